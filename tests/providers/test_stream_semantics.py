"""Decoder semantics beyond the fixtures: compatible-server quirks, usage, stop reasons."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from panelot_host.errors import ProviderStreamError
from panelot_host.providers.anthropic_stream import AnthropicDecoder
from panelot_host.providers.openai import OpenAIProvider
from panelot_host.providers.openai_stream import OpenAIDecoder
from panelot_host.providers.retry import RetryPolicy
from panelot_host.providers.toolargs import MAX_ARGS_DEPTH
from panelot_host.providers.types import (
    MessageStop,
    ProviderEvent,
    ThinkingDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)

from .fixtures import OPENAI
from .streams import collect, mock_client, openai_sse


def feed_openai(*chunks: dict[str, Any] | str) -> list[ProviderEvent]:
    decoder = OpenAIDecoder()
    events: list[ProviderEvent] = []
    for chunk in chunks:
        events += decoder.feed(chunk if isinstance(chunk, str) else json.dumps(chunk))
    return events


def choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_openai_compatible_arguments_in_one_chunk_without_ids_or_usage() -> None:
    calls = [
        {"index": 0, "function": {"name": "read", "arguments": '{"tabId": 1}'}},
        {"index": 1, "function": {"name": "read", "arguments": '{"tabId": 2}'}},
    ]
    events = feed_openai(choice({"tool_calls": calls}), choice({}, "tool_calls"), "[DONE]")
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert starts == [ToolCallStart(0, "", "read"), ToolCallStart(1, "", "read")]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.args for e in ends] == [{"tabId": 1}, {"tabId": 2}]
    stop = events[-1]
    assert isinstance(stop, MessageStop)
    assert stop.usage == Usage() and stop.usage_reported is False


def test_openai_compatible_quirks_stop_after_tools_object_args_missing_index() -> None:
    call = {"id": "x1", "function": {"name": "click", "arguments": {"ref": "e3"}}}
    events = feed_openai(choice({"tool_calls": [call]}), choice({}, "stop"), "[DONE]")
    assert ToolCallEnd(0, {"ref": "e3"}) in events
    stop = events[-1]
    assert isinstance(stop, MessageStop) and stop.stop_reason == "tool_use"


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


def test_openai_object_arguments_nested_too_deeply_are_an_error_for_that_call() -> None:
    call = {"id": "x1", "function": {"name": "click", "arguments": _nested(MAX_ARGS_DEPTH + 1)}}
    events = feed_openai(choice({"tool_calls": [call]}), choice({}, "tool_calls"), "[DONE]")
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.args == {} and end.error and f"deeper than {MAX_ARGS_DEPTH} levels" in end.error


def test_an_event_too_deep_for_the_decoder_is_a_stream_error_not_a_crash() -> None:
    """msgspec recurses also into members it skips: ~1,000 levels raise RecursionError."""
    deep = "[" * 5000 + "]" * 5000
    call = '{"index":0,"function":{"name":"click","arguments":{"a":' + deep + "}}}"
    with pytest.raises(ProviderStreamError, match="nested too deeply"):
        OpenAIDecoder().feed('{"choices":[{"index":0,"delta":{"tool_calls":[' + call + "]}}]}")
    with pytest.raises(ProviderStreamError, match="nested too deeply"):
        AnthropicDecoder().feed('{"type":"ping","unknown":' + deep + "}")


def test_openai_reused_index_with_a_new_id_is_a_new_call() -> None:
    first = {"index": 0, "id": "a", "function": {"name": "read", "arguments": "{}"}}
    second = {"index": 0, "id": "b", "function": {"name": "tabs", "arguments": "{}"}}
    events = feed_openai(
        choice({"tool_calls": [first]}), choice({"tool_calls": [second]}), choice({}, "tool_calls")
    )
    assert [e for e in events if isinstance(e, ToolCallStart)] == [
        ToolCallStart(0, "a", "read"),
        ToolCallStart(1, "b", "tabs"),
    ]


def test_openai_reasoning_content_is_thinking_and_errors_in_band_are_raised() -> None:
    assert feed_openai(choice({"reasoning_content": "hmm"})) == [ThinkingDelta(text="hmm")]
    with pytest.raises(ProviderStreamError, match="model crashed") as info:
        feed_openai({"error": {"message": "model crashed", "code": 500}})
    assert info.value.retryable


def test_openai_usage_subtracts_cached_tokens_from_prompt_tokens() -> None:
    usage = {
        "prompt_tokens": 2000,
        "completion_tokens": 10,
        "prompt_tokens_details": {"cached_tokens": 1536},
    }
    stop = feed_openai(choice({"content": "x"}, "stop"), {"choices": [], "usage": usage}, "[DONE]")[
        -1
    ]
    assert isinstance(stop, MessageStop)
    assert stop.usage == Usage(input_tokens=464, output_tokens=10, cache_read_tokens=1536)


def test_openai_usage_keeps_the_reasoning_tokens_of_the_completion_tokens() -> None:
    usage = {
        "prompt_tokens": 40,
        "completion_tokens": 300,
        "completion_tokens_details": {"reasoning_tokens": 256, "audio_tokens": 0},
    }
    stop = feed_openai(choice({"content": "x"}, "stop"), {"choices": [], "usage": usage}, "[DONE]")
    assert stop[-1] == MessageStop(
        "end_turn", Usage(input_tokens=40, output_tokens=300, reasoning_tokens=256)
    )


@pytest.mark.anyio
async def test_openai_stream_ending_after_a_finish_reason_without_done_is_complete() -> None:
    body, expected = OPENAI["text"]
    without_done = body[: body.rindex(b"data: [DONE]")]
    provider = OpenAIProvider(api_key=None, client=mock_client([without_done]))
    assert await collect(provider) == expected


@pytest.mark.anyio
async def test_openai_stream_ending_before_a_finish_reason_is_truncated() -> None:
    body = openai_sse(choice({"content": "Once"}))
    provider = OpenAIProvider(
        api_key=None, client=mock_client([body]), retry=RetryPolicy(max_attempts=1)
    )
    with pytest.raises(ProviderStreamError, match="ended the stream before") as info:
        await collect(provider)
    assert info.value.retryable


def test_openai_stream_without_usage_reports_none_rather_than_zero() -> None:
    no_usage = OpenAIDecoder().close()
    assert no_usage[-1] == MessageStop("end_turn", Usage(), usage_reported=False)


def feed_anthropic(*events: dict[str, Any]) -> list[ProviderEvent]:
    decoder = AnthropicDecoder()
    out: list[ProviderEvent] = []
    for event in events:
        out += decoder.feed(json.dumps(event))
    return out


START = {"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 5}}}


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("end_turn", "end_turn"),
        ("tool_use", "tool_use"),
        ("max_tokens", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("refusal", "content_filter"),
        ("pause_turn", "pause_turn"),
        ("model_context_window_exceeded", "max_tokens"),
    ],
)
def test_anthropic_stop_reasons(raw: str, normalised: str) -> None:
    delta = {"type": "message_delta", "delta": {"stop_reason": raw}, "usage": {"output_tokens": 2}}
    stop = feed_anthropic(START, delta, {"type": "message_stop"})[-1]
    assert isinstance(stop, MessageStop) and stop.stop_reason == normalised
    assert stop.usage == Usage(input_tokens=5, output_tokens=2)


def test_anthropic_malformed_event_and_unknown_events() -> None:
    assert feed_anthropic({"type": "some_future_event", "x": 1}) == []
    future_block = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "future_block"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "future_delta"}},
        {"type": "content_block_stop", "index": 0},
    ]
    assert feed_anthropic(START, *future_block) == []
    with pytest.raises(ProviderStreamError, match="malformed"):
        AnthropicDecoder().feed("{not json")
    with pytest.raises(ProviderStreamError, match="without a stop reason"):
        feed_anthropic(START, {"type": "message_stop"})


def test_anthropic_message_ending_inside_a_tool_call_is_a_stream_error() -> None:
    tool = {"type": "tool_use", "id": "t1", "name": "read"}
    open_call = {"type": "content_block_start", "index": 1, "content_block": tool}
    end = {"type": "message_delta", "delta": {"stop_reason": "tool_use"}}
    with pytest.raises(ProviderStreamError, match="inside a tool call"):
        feed_anthropic(START, open_call, end, {"type": "message_stop"})


def test_unknown_stop_and_finish_reasons_are_taken_as_end_turn_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    delta = {"type": "message_delta", "delta": {"stop_reason": "something_new"}}
    anthropic = feed_anthropic(START, delta, {"type": "message_stop"})[-1]
    openai = feed_openai(choice({"content": "x"}, "something_new"), "[DONE]")[-1]
    for stop in (anthropic, openai):
        assert isinstance(stop, MessageStop) and stop.stop_reason == "end_turn"
    assert caplog.text.count("something_new") == 2


def test_openai_tool_call_without_a_name_ends_with_an_error_the_model_can_fix() -> None:
    call = {"index": 0, "id": "c1", "function": {"arguments": '{"a": 1}'}}
    events = feed_openai(choice({"tool_calls": [call]}), choice({}, "tool_calls"), "[DONE]")
    assert events[:2] == [
        ToolCallStart(0, "c1", ""),
        ToolCallEnd(0, {}, "the tool call has no tool name; name the tool to call"),
    ]


@pytest.mark.anyio
async def test_a_json_answer_instead_of_an_event_stream_is_a_stream_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"choices": []})

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    provider = OpenAIProvider(api_key=None, client=client, retry=RetryPolicy(max_attempts=1))
    with pytest.raises(ProviderStreamError, match="JSON instead of an event stream"):
        await collect(provider)
