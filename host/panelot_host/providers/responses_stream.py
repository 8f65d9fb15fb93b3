"""OpenAI Responses API SSE events -> normalised ``ProviderEvent``s.

Events are told apart by their payload's ``type`` (every frame carries it; the SSE
``event:`` line says the same). Output items are numbered by ``output_index``:
``function_call`` items become tool calls (ordinals in the order they start), ``message``
items give text (``output_text``/``refusal`` deltas), ``reasoning`` items give thinking
(summary deltas; raw ``reasoning_text`` deltas from compatible servers) that ends, at
``response.output_item.done``, with the item's id and encrypted content, so that the engine
keeps it and sends it back on the next call of the turn. Other items (hosted tools) and
events (``response.created``, ``*.done`` of parts, ``keepalive``) are skipped.

A response ends with ``response.completed``, ``response.incomplete`` (its reason mapped to
a stop reason) or ``response.failed``/``error`` (a ``ProviderStreamError``); a stream that
ends before any of them is truncated (``HTTPProvider.end_of_stream``).
"""

from __future__ import annotations

import logging

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

INCOMPLETE_REASONS: dict[str, StopReason] = {
    "max_output_tokens": "max_tokens",
    "content_filter": "content_filter",
}
RETRYABLE_CODES = frozenset(
    {"server_error", "rate_limit_exceeded", "server_is_overloaded", "overloaded_error"}
)


class _Item(msgspec.Struct):
    type: str = ""
    id: str | None = None
    call_id: str | None = None
    name: str | None = None
    arguments: str | None = None
    encrypted_content: str | None = None


class _Details(msgspec.Struct):
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None


class _Usage(msgspec.Struct):
    input_tokens: int | None = None
    output_tokens: int | None = None
    input_tokens_details: _Details | None = None
    output_tokens_details: _Details | None = None


class _Error(msgspec.Struct):
    message: str | None = None
    code: str | int | None = None
    type: str | None = None


class _Incomplete(msgspec.Struct):
    reason: str | None = None


class _Response(msgspec.Struct):
    model: str | None = None
    usage: _Usage | None = None
    error: _Error | None = None
    incomplete_details: _Incomplete | None = None


class _Event(msgspec.Struct):
    type: str = ""
    output_index: int | None = None
    item_id: str | None = None
    summary_index: int | None = None
    delta: str | None = None
    arguments: str | None = None
    item: _Item | None = None
    response: _Response | None = None
    error: _Error | None = None
    # an ``error`` event carries these at the top level
    message: str | None = None
    code: str | int | None = None


_decoder = msgspec.json.Decoder(_Event)


class _Call(msgspec.Struct):
    ordinal: int
    name: str
    fragments: list[str] = []
    done: bool = False


class _Reasoning(msgspec.Struct):
    summary_index: int | None = None


class ResponsesDecoder:
    """Feeds on one stream's SSE ``data`` payloads; ``stop`` is set at the final event."""

    def __init__(self, label: str = "OpenAI") -> None:
        self._label = label
        self._calls: dict[str, _Call] = {}  # by output index (or item id)
        self._reasoning: dict[str, _Reasoning] = {}
        self._model = ""
        self.stop: MessageStop | None = None

    def feed(self, data: bytes | str) -> list[ProviderEvent]:
        """Normalised events for one SSE payload; raises ``ProviderStreamError``."""
        if data.strip() in (b"[DONE]", "[DONE]"):
            return []  # some servers end with it; a stream without a final event is cut
        try:
            event = _decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ProviderStreamError(f"{self._label} sent a malformed event: {exc}") from None
        except RecursionError:
            raise ProviderStreamError(f"{self._label} sent an event nested too deeply") from None
        if event.response is not None and event.response.model:
            self._model = event.response.model
        return self._dispatch(event)

    def _dispatch(self, event: _Event) -> list[ProviderEvent]:
        match event.type:
            case "response.output_text.delta" | "response.refusal.delta":
                return [TextDelta(text=event.delta)] if event.delta else []
            case "response.reasoning_summary_text.delta" | "response.reasoning_text.delta":
                return self._thinking(event)
            case "response.output_item.added":
                return self._item_added(event)
            case "response.function_call_arguments.delta":
                return self._args_delta(event)
            case "response.function_call_arguments.done":
                self._args_done(event)
                return []
            case "response.output_item.done":
                return self._item_done(event)
            case "response.completed" | "response.incomplete":
                return self._finish(event)
            case "response.failed":
                response = event.response or _Response()
                raise _stream_error(self._label, response.error or _Error(message="failed"))
            case "error":
                error = event.error or _Error(message=event.message, code=event.code)
                raise _stream_error(self._label, error)
            case _:
                return []

    def _key(self, event: _Event) -> str:
        if event.output_index is not None:
            return str(event.output_index)
        return event.item_id or ""

    def _item_added(self, event: _Event) -> list[ProviderEvent]:
        item = event.item or _Item()
        if item.type != "function_call":
            return []
        call = _Call(ordinal=len(self._calls), name=item.name or "")
        self._calls[self._key(event)] = call
        return [ToolCallStart(index=call.ordinal, call_id=item.call_id or "", name=call.name)]

    def _args_delta(self, event: _Event) -> list[ProviderEvent]:
        call = self._calls.get(self._key(event)) or self._by_item(event.item_id)
        if call is None or not event.delta:
            return []
        call.fragments.append(event.delta)
        return [ToolCallArgsDelta(index=call.ordinal, fragment=event.delta)]

    def _args_done(self, event: _Event) -> None:
        call = self._calls.get(self._key(event)) or self._by_item(event.item_id)
        if call is not None and event.arguments is not None:
            call.fragments = [event.arguments]  # the whole arguments: they win

    def _by_item(self, item_id: str | None) -> _Call | None:
        return self._calls.get(item_id) if item_id else None

    def _item_done(self, event: _Event) -> list[ProviderEvent]:
        item = event.item or _Item()
        if item.type == "reasoning":
            if not (item.id or item.encrypted_content):
                return []
            return [ThinkingDelta(item_id=item.id, encrypted_content=item.encrypted_content)]
        if item.type != "function_call":
            return []
        call = self._calls.get(self._key(event))
        if call is None:  # a server that sent the call only when done
            call = _Call(ordinal=len(self._calls), name=item.name or "")
            self._calls[self._key(event)] = call
            start = ToolCallStart(index=call.ordinal, call_id=item.call_id or "", name=call.name)
            return [start, *self._end(call, item.arguments)]
        return self._end(call, item.arguments)

    def _end(self, call: _Call, arguments: str | None) -> list[ProviderEvent]:
        if call.done:
            return []
        call.done = True
        raw = arguments if arguments else "".join(call.fragments)
        end = finish_tool_call(call.ordinal, call.name, raw)
        if not call.name:
            end = msgspec.structs.replace(
                end, args={}, error="the tool call has no tool name; name the tool to call"
            )
        return [end]

    def _thinking(self, event: _Event) -> list[ProviderEvent]:
        if not event.delta:
            return []
        key = event.item_id or self._key(event)
        state = self._reasoning.setdefault(key, _Reasoning(summary_index=event.summary_index))
        text = event.delta
        if event.summary_index is not None and event.summary_index != state.summary_index:
            state.summary_index = event.summary_index
            text = "\n\n" + text  # a new summary part
        return [ThinkingDelta(text=text)]

    def _finish(self, event: _Event) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        for call in self._calls.values():
            events += self._end(call, None)
        response = event.response or _Response()
        self.stop = MessageStop(
            stop_reason=self._stop_reason(event.type, response),
            usage=_usage(response.usage),
            model=self._model,
            usage_reported=response.usage is not None,
        )
        return [*events, self.stop]

    def _stop_reason(self, kind: str, response: _Response) -> StopReason:
        if kind == "response.incomplete":
            reason = (response.incomplete_details or _Incomplete()).reason or ""
            stop = INCOMPLETE_REASONS.get(reason)
            if stop is None:
                log.warning("unknown incomplete reason %r taken as max_tokens", reason)
                stop = "max_tokens"
            return stop
        return "tool_use" if self._calls else "end_turn"


def _usage(usage: _Usage | None) -> Usage:
    if usage is None:
        return Usage()
    cached = (usage.input_tokens_details or _Details()).cached_tokens or 0
    reasoning = (usage.output_tokens_details or _Details()).reasoning_tokens or 0
    return Usage(
        input_tokens=max(0, (usage.input_tokens or 0) - cached),
        output_tokens=usage.output_tokens or 0,
        cache_read_tokens=cached,
        reasoning_tokens=reasoning,
    )


def _stream_error(label: str, error: _Error) -> ProviderStreamError:
    code = error.code
    retryable = (
        (isinstance(code, int) and (code == 429 or code >= 500))
        or code in RETRYABLE_CODES
        or error.type in RETRYABLE_CODES
    )
    detail = redact(error.message or "") or str(code or error.type or "error")
    return ProviderStreamError(
        f"{label} reported an error during the stream: {detail}", retryable=retryable
    )
