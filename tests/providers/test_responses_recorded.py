"""Recorded OpenAI Responses streams replayed through the Responses adapter: the events each
gives, over a mock transport and over a real loopback HTTP server, at any chunking."""

from __future__ import annotations

import json

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelot_host.credentials.secret import Secret
from panelot_host.errors import ProviderStreamError
from panelot_host.providers.responses import ResponsesProvider
from panelot_host.providers.retry import RetryPolicy
from panelot_host.providers.types import (
    MessageStop,
    ProviderEvent,
    RetryNotice,
    TextDelta,
    ThinkingDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
)

from .recorded_streams import NAMES, done_items, last_of, payloads, recorded
from .sse_server import Reply, SSEServer
from .streams import REQUEST, collect, mock_client, split_at

KEY = Secret("sk-test-responses-key")
COMPLETE = [n for n in NAMES if n != "responses_error"]


async def _sleep(seconds: float) -> None:
    del seconds


def provider(chunks: list[bytes]) -> ResponsesProvider:
    return ResponsesProvider(api_key=KEY, client=mock_client(chunks), sleep=_sleep)


def replay(name: str) -> list[ProviderEvent]:
    return anyio.run(collect, provider([recorded(name)]))


def text_of(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def thinking_of(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ThinkingDelta))


def stop_of(events: list[ProviderEvent]) -> MessageStop:
    stop = events[-1]
    assert isinstance(stop, MessageStop)
    return stop


def test_text_stream_gives_its_text_and_usage() -> None:
    events = replay("responses_text")
    assert text_of(events) == "The capital of France is Paris."
    final = last_of("responses_text", "response.completed")["response"]
    stop = stop_of(events)
    assert stop.stop_reason == "end_turn"
    assert stop.model == final["model"] == "gpt-4o-2024-08-06"
    assert stop.usage.input_tokens == final["usage"]["input_tokens"] == 278
    assert stop.usage.output_tokens == 9


def test_parallel_function_calls_become_two_tool_calls_in_order() -> None:
    events = replay("responses_parallel_calls")
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(s.index, s.name) for s in starts] == [(0, "currentLocation"), (1, "weather")]
    assert starts[1].call_id == "call_Dg6WUmFHNeR5JxX1s53s1G4b"
    assert [(e.index, e.args, e.error) for e in ends] == [
        (0, {}, None),
        (1, {"location": "Rome"}, None),
    ]
    fragments = [e.fragment for e in events if isinstance(e, ToolCallArgsDelta) and e.index == 1]
    assert "".join(fragments) == '{"location":"Rome"}'
    assert stop_of(events).stop_reason == "tool_use"


def test_reasoning_then_function_call_keeps_summary_id_and_encrypted_content() -> None:
    events = replay("responses_reasoning_call")
    (reasoning,) = done_items("responses_reasoning_call", "reasoning")
    assert thinking_of(events) == reasoning["summary"][0]["text"]
    assert thinking_of(events).startswith("**Calculating step-by-step using calculator**")
    (closing,) = [e for e in events if isinstance(e, ThinkingDelta) and e.item_id]
    assert closing.item_id == reasoning["id"]
    assert closing.encrypted_content == reasoning["encrypted_content"]
    kinds = [type(e) for e in events]
    assert kinds.index(ThinkingDelta) < kinds.index(ToolCallStart)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.args for e in ends] == [{"a": 12, "b": 7, "op": "add"}]
    assert stop_of(events).stop_reason == "tool_use"


def test_reasoning_usage_counts_reasoning_and_cached_tokens() -> None:
    events = replay("responses_reasoning_call_gpt5")
    usage = last_of("responses_reasoning_call_gpt5", "response.completed")["response"]["usage"]
    stop = stop_of(events)
    assert stop.usage.reasoning_tokens == usage["output_tokens_details"]["reasoning_tokens"] == 448
    assert stop.usage.output_tokens == 469
    cached = usage["input_tokens_details"]["cached_tokens"]
    assert stop.usage.cache_read_tokens == cached
    assert stop.usage.input_tokens == usage["input_tokens"] - cached
    (item,) = done_items("responses_reasoning_call_gpt5", "reasoning")
    assert any(isinstance(e, ThinkingDelta) and e.item_id == item["id"] for e in events)


def test_incomplete_by_max_output_tokens_stops_with_max_tokens() -> None:
    events = replay("responses_incomplete")
    reason = last_of("responses_incomplete", "response.incomplete")["response"]
    assert reason["incomplete_details"]["reason"] == "max_output_tokens"
    assert text_of(events) == "Hello,"
    assert stop_of(events).stop_reason == "max_tokens"


def test_error_event_fails_the_stream_with_its_message_and_no_retry() -> None:
    client = mock_client([recorded("responses_error")])
    p = ResponsesProvider(
        api_key=KEY, client=client, sleep=_sleep, retry=RetryPolicy(max_attempts=3)
    )
    seen: list[ProviderEvent] = []

    async def run() -> None:
        async for event in p.stream(REQUEST):
            seen.append(event)

    with pytest.raises(ProviderStreamError) as info:
        anyio.run(run)
    assert "You exceeded your current quota" in info.value.message
    assert info.value.retryable is False
    assert not [e for e in seen if isinstance(e, RetryNotice)]


@pytest.mark.parametrize("name", COMPLETE)
def test_every_recorded_stream_ends_with_one_stop(name: str) -> None:
    events = replay(name)
    assert sum(isinstance(e, MessageStop) for e in events) == 1
    starts = {e.index for e in events if isinstance(e, ToolCallStart)}
    assert starts == {e.index for e in events if isinstance(e, ToolCallEnd)}
    assert len(payloads(name)) > 3


@pytest.mark.parametrize("name", COMPLETE)
def test_crlf_and_byte_by_byte_give_the_same_events(name: str) -> None:
    data = recorded(name)
    expected = replay(name)
    crlf = data.replace(b"\n", b"\r\n")
    assert anyio.run(collect, provider([crlf])) == expected
    if len(data) < 9000:
        assert anyio.run(collect, provider([bytes([b]) for b in data])) == expected


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(COMPLETE), cuts=st.lists(st.integers(min_value=0), max_size=60))
def test_any_chunking_of_a_recorded_stream_gives_the_same_events(
    name: str, cuts: list[int]
) -> None:
    data = recorded(name)
    chunks = split_at(data, [c % (len(data) + 1) for c in cuts])
    assert anyio.run(collect, provider(chunks)) == replay(name)


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["responses_reasoning_call", "responses_parallel_calls"])
async def test_recorded_stream_over_a_loopback_server(sse_server: SSEServer, name: str) -> None:
    data = recorded(name)
    sse_server.replies.append(Reply(body=[data[i : i + 97] for i in range(0, len(data), 97)]))
    p = ResponsesProvider(api_key=KEY, base_url=sse_server.url + "/v1", sleep=_sleep)
    events = await collect(p)
    await p.aclose()
    assert events == await collect(provider([data]))
    (seen,) = sse_server.requests
    assert seen.path == "/v1/responses"
    body = json.loads(seen.body)
    assert body["stream"] is True and body["store"] is False
    assert seen.headers.get("authorization") == "Bearer sk-test-responses-key"


@pytest.mark.parametrize("name", ["responses_reasoning_call", "responses_parallel_calls"])
def test_a_stream_cut_before_its_final_event_is_a_clear_stream_error(name: str) -> None:
    data = recorded(name)
    cut = data[: data.rindex(b"response.completed") - 40]  # before the final event
    events: list[ProviderEvent] = []

    async def run() -> None:
        async for event in provider([cut]).stream(REQUEST):
            events.append(event)

    with pytest.raises(ProviderStreamError, match="ended the stream before the message"):
        anyio.run(run)
    assert events and not [e for e in events if isinstance(e, MessageStop)]


def test_a_malformed_event_and_a_failed_response_are_clear_stream_errors() -> None:
    created = recorded("responses_text").split(b"\n\n")[0] + b"\n\n"
    broken = created + b'event: response.output_text.delta\ndata: {"type": "response.out\n\n'
    with pytest.raises(ProviderStreamError, match="malformed event"):
        anyio.run(collect, provider([broken]))
    failed = {
        "type": "response.failed",
        "response": {"error": {"code": "server_error", "message": "The server had an error"}},
    }
    body = created + f"data: {json.dumps(failed)}\n\n".encode()
    with pytest.raises(ProviderStreamError, match="The server had an error") as info:
        anyio.run(
            collect,
            ResponsesProvider(
                api_key=KEY,
                client=mock_client([body]),
                sleep=_sleep,
                retry=RetryPolicy(max_attempts=1),
            ),
        )
    assert info.value.retryable is True
