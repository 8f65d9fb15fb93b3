"""OpenAI Chat Completions SSE chunks -> normalised ``ProviderEvent``s.

Tolerates what OpenAI-compatible servers do: usage missing or in the last chunk only,
arguments in one chunk or many (or as an object), tool call ids missing (``call_id`` ""),
names only on the first fragment, ``finish_reason: "stop"`` after tool calls, a missing
``[DONE]`` after a finish reason, ``reasoning_content``/``reasoning`` deltas (as thinking).
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from panelot_host.errors import ProviderStreamError
from panelot_host.providers.httpio import redact
from panelot_host.providers.toolargs import finish_tool_call
from panelot_host.providers.types import (
    MessageStop,
    ProviderEvent,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolCallArgsDelta,
    ToolCallStart,
    Usage,
)

log = logging.getLogger(__name__)

FINISH_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filter",
}


class _Function(msgspec.Struct):
    name: str | None = None
    arguments: str | dict[str, Any] | None = None


class _ToolCallDelta(msgspec.Struct):
    index: int | None = None
    id: str | None = None
    function: _Function | None = None


class _Delta(msgspec.Struct):
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[_ToolCallDelta] | None = None


class _Choice(msgspec.Struct):
    index: int = 0
    delta: _Delta | None = None
    finish_reason: str | None = None


class _Details(msgspec.Struct):
    cached_tokens: int | None = None


class _OutputDetails(msgspec.Struct):
    reasoning_tokens: int | None = None


class _Usage(msgspec.Struct):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_tokens_details: _Details | None = None
    completion_tokens_details: _OutputDetails | None = None


class _Error(msgspec.Struct):
    message: str = ""
    type: str | None = None
    code: int | str | None = None


class _Chunk(msgspec.Struct):
    model: str = ""
    choices: list[_Choice] | None = None
    usage: _Usage | None = None
    error: _Error | None = None


_decoder = msgspec.json.Decoder(_Chunk)
_json = msgspec.json.Encoder()


class _Call(msgspec.Struct):
    ordinal: int
    call_id: str
    name: str = ""
    started: bool = False
    fragments: list[str] = []


class OpenAIDecoder:
    """Feeds on one stream's SSE ``data`` payloads; ``stop`` is set at ``[DONE]``."""

    def __init__(self, label: str = "OpenAI") -> None:
        self._label = label
        self._calls: dict[int, _Call] = {}
        self._open: list[_Call] = []
        self._finish: str | None = None
        self._usage: _Usage | None = None
        self._model = ""
        self.stop: MessageStop | None = None

    @property
    def finished(self) -> bool:
        """A finish reason arrived (the stream may end without ``[DONE]`` after it)."""
        return self._finish is not None

    def feed(self, data: bytes | str) -> list[ProviderEvent]:
        """Normalised events for one SSE payload; raises ``ProviderStreamError``."""
        if data.strip() in (b"[DONE]", "[DONE]"):
            return self.close()
        try:
            chunk = _decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ProviderStreamError(f"{self._label} sent a malformed chunk: {exc}") from None
        except RecursionError:  # ~1,000 levels (object-form tool arguments, say)
            raise ProviderStreamError(f"{self._label} sent a chunk nested too deeply") from None
        if chunk.error is not None:
            raise _in_band_error(self._label, chunk.error)
        self._model = chunk.model or self._model
        self._usage = chunk.usage or self._usage
        events: list[ProviderEvent] = []
        for choice in chunk.choices or ():
            if choice.index == 0:
                events += self._choice(choice)
        return events

    def close(self) -> list[ProviderEvent]:
        """End the message: pending tool calls end, then ``MessageStop``."""
        events = self._end_calls()
        self.stop = MessageStop(
            stop_reason=self._stop_reason(),
            usage=self._normalised_usage(),
            model=self._model,
            usage_reported=self._usage is not None,
        )
        return [*events, self.stop]

    def _choice(self, choice: _Choice) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        delta = choice.delta
        if delta is not None:
            thinking = delta.reasoning_content or delta.reasoning
            if thinking:
                events.append(ThinkingDelta(text=thinking))
            if delta.content:
                events.append(TextDelta(text=delta.content))
            for call in delta.tool_calls or ():
                events += self._tool_delta(call)
        if choice.finish_reason:
            self._finish = choice.finish_reason
            events += self._end_calls()
        return events

    def _tool_delta(self, delta: _ToolCallDelta) -> list[ProviderEvent]:
        call = self._call_for(delta)
        fn = delta.function or _Function()
        if fn.name and not call.started:
            call.name += fn.name
        args = fn.arguments
        fragment = args if isinstance(args, str) else _json.encode(args).decode() if args else ""
        events: list[ProviderEvent] = []
        if not call.started and call.name:
            call.started = True
            events.append(ToolCallStart(index=call.ordinal, call_id=call.call_id, name=call.name))
            events += [ToolCallArgsDelta(index=call.ordinal, fragment=f) for f in call.fragments]
        if fragment:
            call.fragments.append(fragment)
            if call.started:
                events.append(ToolCallArgsDelta(index=call.ordinal, fragment=fragment))
        return events

    def _call_for(self, delta: _ToolCallDelta) -> _Call:
        key = delta.index
        if key is None:  # servers that omit the index: a new id starts a new call
            is_new = bool(delta.id) and all(c.call_id != delta.id for c in self._open)
            key = len(self._calls) if is_new or not self._calls else max(self._calls)
        call = self._calls.get(key)
        starts_over = call is not None and bool(delta.id) and call.call_id not in ("", delta.id)
        if call is None or starts_over:
            key = key if call is None else max(self._calls) + 1
            call = _Call(ordinal=len(self._calls), call_id=delta.id or "")
            self._calls[key] = call
            self._open.append(call)
        elif delta.id and not call.call_id:
            call.call_id = delta.id
        return call

    def _end_calls(self) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        for call in self._open:
            if not call.started:
                events.append(ToolCallStart(index=call.ordinal, call_id=call.call_id, name=""))
            end = finish_tool_call(call.ordinal, call.name, "".join(call.fragments))
            if not call.name:
                end = msgspec.structs.replace(
                    end, args={}, error="the tool call has no tool name; name the tool to call"
                )
            events.append(end)
        self._open = []
        return events

    def _stop_reason(self) -> StopReason:
        had_calls = bool(self._calls)
        if self._finish is None:
            return "tool_use" if had_calls else "end_turn"
        reason = FINISH_REASONS.get(self._finish)
        if reason is None:
            log.warning("unknown finish_reason %r taken as end_turn", self._finish)
            reason = "end_turn"
        if reason == "end_turn" and had_calls:
            return "tool_use"  # some compatible servers say "stop" after tool calls
        return reason

    def _normalised_usage(self) -> Usage:
        u = self._usage
        if u is None:
            return Usage()
        cached = (u.prompt_tokens_details.cached_tokens if u.prompt_tokens_details else 0) or 0
        details = u.completion_tokens_details
        return Usage(
            input_tokens=max(0, (u.prompt_tokens or 0) - cached),
            output_tokens=u.completion_tokens or 0,
            cache_read_tokens=cached,
            reasoning_tokens=(details.reasoning_tokens if details else 0) or 0,
        )


def _in_band_error(label: str, error: _Error) -> ProviderStreamError:
    code = error.code
    retryable = (isinstance(code, int) and (code == 429 or code >= 500)) or error.type in (
        "server_error",
        "rate_limit_exceeded",
        "overloaded_error",
    )
    detail = redact(error.message) or (error.type or "error")
    return ProviderStreamError(
        f"{label} reported an error during the stream: {detail}", retryable=retryable
    )
