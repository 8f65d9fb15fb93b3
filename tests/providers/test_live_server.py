"""The real adapters against a real HTTP server on 127.0.0.1, with faults."""

from __future__ import annotations

import time

import anyio
import httpx
import msgspec
import pytest

from panelot_host.credentials.secret import Secret
from panelot_host.errors import (
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderStreamError,
)
from panelot_host.providers.anthropic import AnthropicProvider
from panelot_host.providers.openai import OpenAIProvider
from panelot_host.providers.retry import RetryPolicy
from panelot_host.providers.types import (
    MessageStop,
    ProviderEvent,
    RetryNotice,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
)

from .fixtures import ANTHROPIC, ANTHROPIC_ERROR_FIRST, ANTHROPIC_MID_STREAM_ERROR, OPENAI
from .sse_server import HANG, Delay, Reply, SSEServer
from .streams import REQUEST, anthropic_sse, collect, openai_sse

OVERLOADED = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def anthropic(server: SSEServer, sleeps: Sleeps | None = None) -> AnthropicProvider:
    return AnthropicProvider(
        api_key=Secret("sk-ant-test"),
        base_url=server.url,
        sleep=sleeps or Sleeps(),
        retry=RetryPolicy(max_attempts=3),
    )


def openai(server: SSEServer) -> OpenAIProvider:
    return OpenAIProvider(api_key=None, base_url=server.url + "/v1", sleep=Sleeps())


@pytest.mark.anyio
async def test_429_with_retry_after_is_retried_after_that_delay(sse_server: SSEServer) -> None:
    body, expected = ANTHROPIC["text"]
    rate_limited = b'{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}'
    sse_server.add(
        Reply(429, [rate_limited], {"retry-after": "7"}, content_type="application/json"),
        Reply(200, [body]),
    )
    sleeps = Sleeps()
    events = await collect(anthropic(sse_server, sleeps))
    assert sleeps.delays == [7.0]
    assert events[0] == RetryNotice(attempt=2, max_attempts=3, delay_s=7.0, reason=events[0].reason)  # type: ignore[union-attr]
    assert "429" in events[0].reason and "slow down" in events[0].reason  # type: ignore[union-attr]
    assert events[1:] == expected
    sent = sse_server.requests[0]
    assert sent.path == "/v1/messages" and sent.headers["x-api-key"] == "sk-ant-test"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert msgspec.json.decode(sent.body)["stream"] is True


@pytest.mark.anyio
async def test_500_then_529_are_retried_with_growing_backoff(sse_server: SSEServer) -> None:
    body, expected = ANTHROPIC["tool_use"]
    sse_server.add(
        Reply(500, [b"internal"], content_type="text/plain"),
        Reply(529, [OVERLOADED], content_type="application/json"),
        Reply(200, [body]),
    )
    sleeps = Sleeps()
    events = await collect(anthropic(sse_server, sleeps))
    notices = [e for e in events if isinstance(e, RetryNotice)]
    assert [n.attempt for n in notices] == [2, 3]
    assert 0.5 <= sleeps.delays[0] <= 1.0 and 1.0 <= sleeps.delays[1] <= 2.0
    assert [e for e in events if not isinstance(e, RetryNotice)] == expected


@pytest.mark.anyio
async def test_retries_used_up_fail_with_a_readable_typed_error(sse_server: SSEServer) -> None:
    sse_server.add(*[Reply(529, [OVERLOADED], content_type="application/json")] * 3)
    with pytest.raises(ProviderHTTPError) as info:
        await collect(anthropic(sse_server))
    assert info.value.status == 529
    assert str(info.value) == (
        "Anthropic returned HTTP 529 (overloaded): Overloaded (gave up after 3 attempts)"
    )


@pytest.mark.anyio
async def test_client_errors_are_not_retried(sse_server: SSEServer) -> None:
    bad = b'{"type":"error","error":{"type":"invalid_request_error","message":"bad model"}}'
    sse_server.add(Reply(400, [bad], content_type="application/json"))
    with pytest.raises(ProviderHTTPError, match=r"HTTP 400.*bad model"):
        await collect(anthropic(sse_server))
    assert len(sse_server.requests) == 1


@pytest.mark.anyio
async def test_in_band_error_before_first_token_is_retried(sse_server: SSEServer) -> None:
    body, expected = ANTHROPIC["text"]
    sse_server.add(Reply(200, [ANTHROPIC_ERROR_FIRST]), Reply(200, [body]))
    events = await collect(anthropic(sse_server))
    assert isinstance(events[0], RetryNotice) and "overloaded_error" in events[0].reason
    assert events[1:] == expected


@pytest.mark.anyio
async def test_mid_stream_error_after_text_is_raised_not_retried(sse_server: SSEServer) -> None:
    sse_server.add(Reply(200, [ANTHROPIC_MID_STREAM_ERROR]), Reply(200, [ANTHROPIC["text"][0]]))
    seen: list[ProviderEvent] = []
    with pytest.raises(ProviderStreamError, match=r"overloaded_error.*Overloaded"):
        async for event in anthropic(sse_server).stream(REQUEST):
            seen.append(event)
    assert seen == [TextDelta("Partial")]
    assert len(sse_server.requests) == 1


@pytest.mark.anyio
async def test_truncated_stream_is_a_stream_error(sse_server: SSEServer) -> None:
    body = ANTHROPIC["text"][0]
    cut = body.index(b"event: message_delta")
    sse_server.add(Reply(200, [body[:cut]]))
    with pytest.raises(ProviderStreamError, match="ended the stream before the message"):
        await collect(anthropic(sse_server))


def _cut_after_first_text(body: bytes) -> bytes:
    first_text = body.index("Héllo".encode())
    return body[: body.index(b"\n\n", first_text) + 2]


@pytest.mark.anyio
async def test_connection_dropped_mid_stream_is_raised_not_retried(
    sse_server: SSEServer,
) -> None:
    head = _cut_after_first_text(OPENAI["text"][0])
    sse_server.add(Reply(200, [head], chunked=True, terminate=False))
    seen: list[ProviderEvent] = []
    with pytest.raises(ProviderConnectionError, match="closed the connection unexpectedly"):
        async for event in openai(sse_server).stream(REQUEST):
            seen.append(event)
    assert seen == [TextDelta("Héllo")]
    assert len(sse_server.requests) == 1


@pytest.mark.anyio
async def test_connection_dropped_before_first_token_is_retried(sse_server: SSEServer) -> None:
    body, expected = OPENAI["text"]
    sse_server.add(Reply(200, [body[:40]], chunked=True, terminate=False), Reply(200, [body]))
    events = await collect(openai(sse_server))
    assert isinstance(events[0], RetryNotice) and "closed the connection" in events[0].reason
    assert events[1:] == expected


@pytest.mark.anyio
async def test_connection_refused_is_retried_then_a_connection_error() -> None:
    sleeps = Sleeps()
    provider = AnthropicProvider(
        api_key=Secret("k"),
        base_url="http://127.0.0.1:9",
        sleep=sleeps,
        retry=RetryPolicy(max_attempts=2),
    )
    with pytest.raises(ProviderConnectionError, match=r"cannot reach Anthropic.*2 attempts"):
        await collect(provider)
    assert len(sleeps.delays) == 1


@pytest.mark.anyio
async def test_malformed_tool_arguments_end_the_call_with_an_error(
    sse_server: SSEServer,
) -> None:
    call = {"index": 0, "id": "call_1", "function": {"name": "click", "arguments": '{"ref": '}}
    body = openai_sse(
        {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        "[DONE]",
    )
    sse_server.add(Reply(200, [body]))
    events = await collect(openai(sse_server))
    assert events[0] == ToolCallStart(0, "call_1", "click")
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.args == {} and end.error is not None
    assert "'click'" in end.error and "not valid JSON" in end.error
    stop = events[-1]
    assert isinstance(stop, MessageStop) and stop.stop_reason == "tool_use"
    assert not stop.usage_reported


@pytest.mark.anyio
async def test_openai_compatible_server_gets_no_tools_without_tool_support(
    sse_server: SSEServer,
) -> None:
    from panelot_host.providers.types import ToolSpec

    sse_server.add(Reply(200, [OPENAI["text"][0]]))
    provider = OpenAIProvider(api_key=None, base_url=sse_server.url + "/v1", tool_use=False)
    request = msgspec.structs.replace(
        REQUEST, tools=[ToolSpec("read", "Read the page", {"type": "object"})]
    )
    assert await collect(provider, request) == OPENAI["text"][1]
    sent = sse_server.requests[0]
    assert sent.path == "/v1/chat/completions" and "authorization" not in sent.headers
    body = msgspec.json.decode(sent.body)
    assert "tools" not in body and body["max_tokens"] == REQUEST.max_tokens
    assert body["stream_options"] == {"include_usage": True}


async def _cancel_after_first_text(provider: AnthropicProvider) -> float:
    with anyio.CancelScope() as scope:
        async for event in provider.stream(REQUEST):
            if isinstance(event, TextDelta):
                scope.cancel()
    return time.monotonic()


async def _closed_at(server: SSEServer) -> float:
    with anyio.fail_after(3):
        while not server.closed_at:  # noqa: ASYNC110 - written by the server thread
            await anyio.sleep(0.005)
    return server.closed_at[0]


@pytest.mark.anyio
async def test_cancelling_a_hanging_stream_closes_the_connection_at_once(
    sse_server: SSEServer,
) -> None:
    head = ANTHROPIC_MID_STREAM_ERROR.split(b"event: error")[0]
    sse_server.add(Reply(200, [head, HANG]))
    cancelled = await _cancel_after_first_text(anthropic(sse_server))
    assert await _closed_at(sse_server) - cancelled < 0.25


@pytest.mark.anyio
async def test_closing_the_iteration_closes_the_connection(sse_server: SSEServer) -> None:
    sse_server.add(Reply(200, [anthropic_sse({"type": "ping"}), Delay(0.05), HANG]))
    provider = anthropic(sse_server)
    events = provider.stream(REQUEST)
    with anyio.move_on_after(0.3):
        await events.__anext__()  # hangs: the ping yields nothing
    await events.aclose()
    await _closed_at(sse_server)


@pytest.mark.anyio
async def test_given_client_is_not_closed_by_the_provider(sse_server: SSEServer) -> None:
    sse_server.add(Reply(200, [ANTHROPIC["text"][0]]))
    async with httpx.AsyncClient() as client:
        provider = AnthropicProvider(api_key=Secret("k"), base_url=sse_server.url, client=client)
        await collect(provider)
        await provider.aclose()
        assert not client.is_closed


@pytest.mark.anyio
async def test_a_client_the_provider_made_is_closed_by_aclose() -> None:
    provider = OpenAIProvider(api_key=None, base_url="http://127.0.0.1:9/v1")
    client = provider._client  # made by the provider, since none was given
    assert not client.is_closed
    await provider.aclose()
    assert client.is_closed
