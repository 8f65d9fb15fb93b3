"""The scripted provider: a real Provider for engine tests and demo mode."""

from __future__ import annotations

import anyio
import pytest

from panelot_host.errors import ProviderHTTPError, ProviderStreamError
from panelot_host.providers.scripted import (
    Fail,
    Hang,
    ScriptedProvider,
    Stop,
    Text,
    Thinking,
    ToolCall,
)
from panelot_host.providers.types import (
    MessageStop,
    ModelRequest,
    RetryNotice,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UserMessage,
)

from .streams import REQUEST, collect


@pytest.mark.anyio
async def test_scripts_play_text_thinking_tool_calls_and_stop_with_usage() -> None:
    provider = ScriptedProvider(
        [
            [
                Thinking("plan", signature="sig"),
                Text("Hello", chunks=2),
                ToolCall("read", {"tabId": 1}, call_id="dup"),
                ToolCall("read", {"tabId": 2}, call_id="dup"),
                ToolCall("click", call_id=""),
                Stop(usage=Usage(10, 5, 3, 2)),
            ]
        ]
    )
    events = await collect(provider)
    assert events[:4] == [
        ThinkingDelta(text="plan"),
        ThinkingDelta(signature="sig"),
        TextDelta("Hel"),
        TextDelta("lo"),
    ]
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.index, s.call_id) for s in starts] == [(0, "dup"), (1, "dup"), (2, "")]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.args for e in ends] == [{"tabId": 1}, {"tabId": 2}, {}]
    assert events[-1] == MessageStop("tool_use", Usage(10, 5, 3, 2), "claude-sonnet-4-5")


@pytest.mark.anyio
async def test_every_request_is_recorded_and_scripts_are_consumed_in_order() -> None:
    provider = ScriptedProvider([[Text("one")], [Text("two"), Stop("max_tokens")]])
    second = ModelRequest("m", "", [UserMessage([TextPart("again")])])
    first_events = await collect(provider, REQUEST)
    second_events = await collect(provider, second)
    assert provider.requests == [REQUEST, second]
    quiet = ScriptedProvider([[Text("one")]], keep_requests=False)
    assert (await collect(quiet, REQUEST))[0] == TextDelta("one")
    assert quiet.requests == []  # a long session holds no request
    assert first_events[-1] == MessageStop("end_turn", Usage(), "claude-sonnet-4-5")
    assert isinstance(second_events[-1], MessageStop)
    assert second_events[-1].stop_reason == "max_tokens"
    with pytest.raises(ProviderStreamError, match="no script left"):
        await collect(provider, REQUEST)


@pytest.mark.anyio
async def test_errors_before_first_token_retry_and_non_retryable_ones_fail() -> None:
    retryable = ScriptedProvider([[Fail(ProviderHTTPError(529, "overloaded"))], [Text("ok")]])
    events = await collect(retryable)
    assert isinstance(events[0], RetryNotice) and events[1] == TextDelta("ok")
    assert retryable.attempts == 2 and len(retryable.requests) == 1

    fatal = ScriptedProvider([[Fail(ProviderHTTPError(401, "bad key"))], [Text("never")]])
    with pytest.raises(ProviderHTTPError, match="bad key"):
        await collect(fatal)


@pytest.mark.anyio
async def test_malformed_raw_arguments_end_with_an_error() -> None:
    provider = ScriptedProvider([[ToolCall("click", raw_args='{"ref": ')]])
    ends = [e for e in await collect(provider) if isinstance(e, ToolCallEnd)]
    assert ends[0].args == {} and ends[0].error and "not valid JSON" in ends[0].error


@pytest.mark.anyio
async def test_hang_waits_until_cancelled() -> None:
    provider = ScriptedProvider([[Text("partial"), Hang()]])
    seen = []
    with anyio.move_on_after(0.2) as scope:
        async for event in provider.stream(REQUEST):
            seen.append(event)
    assert scope.cancelled_caught and seen == [TextDelta("partial")]
    assert provider.cancelled == 1


@pytest.mark.anyio
async def test_responder_answers_when_scripts_run_out() -> None:
    provider = ScriptedProvider.echo()
    events = await collect(provider)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "You said: Hi"
