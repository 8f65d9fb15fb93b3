"""Anthropic Messages SSE events -> normalised ``ProviderEvent``s.

Events: ``message_start`` (usage so far), ``content_block_start``/``_delta``/``_stop`` for
text, thinking (``thinking_delta``, ``signature_delta``), redacted thinking and ``tool_use``
(``input_json_delta`` fragments), ``message_delta`` (stop reason and cumulative usage, whose
fields replace those of ``message_start``), ``message_stop``, ``ping`` and ``error``.
Tool calls are numbered 0, 1, ... within the message whatever their block index.
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

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "content_filter",
    "pause_turn": "pause_turn",
    "model_context_window_exceeded": "max_tokens",
}
RETRYABLE_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error"})


class _Usage(msgspec.Struct, gc=False):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


class _Block(msgspec.Struct, gc=False):
    type: str
    id: str = ""
    name: str = ""
    text: str = ""
    thinking: str = ""
    signature: str = ""
    data: str = ""


class _Delta(msgspec.Struct, gc=False):
    type: str = ""
    text: str = ""
    partial_json: str = ""
    thinking: str = ""
    signature: str = ""
    stop_reason: str | None = None


class _Message(msgspec.Struct, gc=False):
    model: str = ""
    usage: _Usage | None = None


class _Error(msgspec.Struct, gc=False):
    type: str = ""
    message: str = ""


class _Event(msgspec.Struct, gc=False):
    type: str
    index: int = 0
    message: _Message | None = None
    content_block: _Block | None = None
    delta: _Delta | None = None
    usage: _Usage | None = None
    error: _Error | None = None


_decoder = msgspec.json.Decoder(_Event)


class _ToolBlock(msgspec.Struct, gc=False):
    ordinal: int
    name: str
    json: list[str]


class AnthropicDecoder:
    """Feeds on one stream's SSE ``data`` payloads; ``stop`` is set at ``message_stop``."""

    def __init__(self) -> None:
        self._usage = _Usage()
        self._model = ""
        self._stop_reason: StopReason | None = None
        self._tools: dict[int, _ToolBlock] = {}
        self._tool_count = 0
        self.stop: MessageStop | None = None

    def feed(self, data: bytes | str) -> list[ProviderEvent]:
        """Normalised events for one SSE payload; raises ``ProviderStreamError``."""
        try:
            event = _decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ProviderStreamError(f"Anthropic sent a malformed event: {exc}") from None
        except RecursionError:  # ~1,000 levels, even in a member that is skipped
            raise ProviderStreamError("Anthropic sent an event nested too deeply") from None
        match event.type:
            case "content_block_delta":  # by far the most frequent
                return self._block_delta(event)
            case "content_block_start":
                return self._block_start(event)
            case "content_block_stop":
                return self._block_stop(event.index)
            case "message_start":
                self._message_start(event.message)
            case "message_delta":
                self._message_delta(event)
            case "message_stop":
                self.stop = self._finish()
                return [self.stop]
            case "error":
                raise _in_band_error(event.error)
            case _:
                pass  # ping, and event types newer than this adapter
        return []

    def _message_start(self, message: _Message | None) -> None:
        if message is not None:
            self._model = message.model
            self._usage = _merge_usage(self._usage, message.usage)

    def _message_delta(self, event: _Event) -> None:
        self._usage = _merge_usage(self._usage, event.usage)
        raw = event.delta.stop_reason if event.delta else None
        if raw is not None:
            self._stop_reason = _stop_reason(raw)

    def _block_start(self, event: _Event) -> list[ProviderEvent]:
        block = event.content_block
        if block is None:
            return []
        match block.type:
            case "tool_use":
                tool = _ToolBlock(ordinal=self._tool_count, name=block.name, json=[])
                self._tools[event.index] = tool
                self._tool_count += 1
                return [ToolCallStart(index=tool.ordinal, call_id=block.id, name=block.name)]
            case "text" if block.text:
                return [TextDelta(text=block.text)]
            case "thinking" if block.thinking:
                return [ThinkingDelta(text=block.thinking)]
            case "redacted_thinking":
                return [ThinkingDelta(redacted_data=block.data)]
        return []

    def _block_delta(self, event: _Event) -> list[ProviderEvent]:
        delta = event.delta
        if delta is None:
            return []
        match delta.type:
            case "text_delta":
                return [TextDelta(text=delta.text)]
            case "thinking_delta":
                return [ThinkingDelta(text=delta.thinking)]
            case "signature_delta":
                return [ThinkingDelta(signature=delta.signature)]
            case "input_json_delta":
                tool = self._tools.get(event.index)
                if tool is None or not delta.partial_json:
                    return []
                tool.json.append(delta.partial_json)
                return [ToolCallArgsDelta(index=tool.ordinal, fragment=delta.partial_json)]
        return []

    def _block_stop(self, index: int) -> list[ProviderEvent]:
        tool = self._tools.pop(index, None)
        if tool is None:
            return []
        return [finish_tool_call(tool.ordinal, tool.name, "".join(tool.json))]

    def _finish(self) -> MessageStop:
        if self._tools:
            raise ProviderStreamError("Anthropic ended the message inside a tool call")
        if self._stop_reason is None:
            raise ProviderStreamError("Anthropic ended the message without a stop reason")
        u = self._usage
        usage = Usage(
            input_tokens=u.input_tokens or 0,
            output_tokens=u.output_tokens or 0,
            cache_read_tokens=u.cache_read_input_tokens or 0,
            cache_write_tokens=u.cache_creation_input_tokens or 0,
        )
        return MessageStop(stop_reason=self._stop_reason, usage=usage, model=self._model)


def _merge_usage(current: _Usage, update: _Usage | None) -> _Usage:
    """Fields present in ``update`` replace those of ``current`` (they are cumulative)."""
    if update is None:
        return current
    return _Usage(
        input_tokens=_pick(update.input_tokens, current.input_tokens),
        output_tokens=_pick(update.output_tokens, current.output_tokens),
        cache_read_input_tokens=_pick(
            update.cache_read_input_tokens, current.cache_read_input_tokens
        ),
        cache_creation_input_tokens=_pick(
            update.cache_creation_input_tokens, current.cache_creation_input_tokens
        ),
    )


def _pick(new: int | None, old: int | None) -> int | None:
    return old if new is None else new


def _stop_reason(raw: str) -> StopReason:
    reason = STOP_REASONS.get(raw)
    if reason is None:
        log.warning("unknown Anthropic stop reason %r taken as end_turn", raw)
        return "end_turn"
    return reason


def _in_band_error(error: _Error | None) -> ProviderStreamError:
    kind = error.type if error else "error"
    detail = redact(error.message) if error else ""
    return ProviderStreamError(
        f"Anthropic reported {kind} during the stream" + (f": {detail}" if detail else ""),
        retryable=kind in RETRYABLE_ERRORS,
    )
