"""One model call: stream provider events into an assistant draft, coalescing deltas.

The side panel keeps up with about 2,500-5,000 small messages a second through the service
worker, so text and thinking deltas are coalesced: at most one ``item.delta`` per item
every ``DELTA_INTERVAL_S``, and no text is ever lost (the remainder is flushed at the end).

A draft keeps text and thinking as lists of deltas, joined when read: appending to one
string would copy everything so far for every delta (quadratic in the answer's length).

One answer holds at most ``MAX_ANSWER_BYTES`` (UTF-8 bytes of text, thinking and tool
calls; ``docs/engine.md``, "Agent loop"): the event that would pass it stops the stream
and fails the call with ``AnswerTooLarge``, the draft keeping what came before it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import aclosing
from typing import Any

import msgspec

from panelot_host.errors import ProviderError
from panelot_host.providers.types import (
    MessageStop,
    ModelRequest,
    Provider,
    RetryNotice,
    TextDelta,
    ThinkingDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
)

DELTA_INTERVAL_S = 0.016
MAX_ANSWER_BYTES = 16 * 1024 * 1024


class ToolCallDraft(msgspec.Struct):
    index: int
    call_id: str
    name: str
    fragments: list[str] = []
    args: dict[str, Any] | None = None
    error: str | None = None


class ThinkingDraft(msgspec.Struct):
    """One thinking block as it streams; a signature, redacted data or (a Responses
    reasoning item) the item's id and encrypted content close it."""

    parts: list[str] = []
    signature: str | None = None
    redacted_data: str | None = None
    item_id: str | None = None
    encrypted_content: str | None = None

    @property
    def closed(self) -> bool:
        return any(
            v is not None
            for v in (self.signature, self.redacted_data, self.item_id, self.encrypted_content)
        )

    @property
    def text(self) -> str:
        return _joined(self.parts)

    def stored(self) -> dict[str, Any]:
        """The block as the assistant item keeps it (``thinkingBlocks``)."""
        block: dict[str, Any] = {"text": self.text}
        if self.signature is not None:
            block["signature"] = self.signature
        if self.redacted_data is not None:
            block["redactedData"] = self.redacted_data
        if self.item_id is not None:
            block["itemId"] = self.item_id
        if self.encrypted_content is not None:
            block["encryptedContent"] = self.encrypted_content
        return block


class AssistantDraft(msgspec.Struct):
    """What one model call produced so far."""

    text_parts: list[str] = []
    thinking_blocks: list[ThinkingDraft] = []
    calls: dict[int, ToolCallDraft] = {}
    stop: MessageStop | None = None

    @property
    def text(self) -> str:
        return _joined(self.text_parts)

    @property
    def thinking(self) -> str | None:
        texts = [text for b in self.thinking_blocks if (text := b.text)]
        return "\n\n".join(texts) if texts else None

    @property
    def started(self) -> bool:
        return bool(self.text_parts or self.thinking_blocks or self.calls)

    def ordered_calls(self) -> list[ToolCallDraft]:
        return [self.calls[i] for i in sorted(self.calls)]


def _joined(parts: list[str]) -> str:
    """``parts`` as one string, kept as its only part (a second read costs nothing)."""
    if len(parts) > 1:
        parts[:] = ["".join(parts)]
    return parts[0] if parts else ""


class StreamFailed(Exception):
    """The provider failed; ``draft`` holds what streamed before (kept, marked interrupted)."""

    def __init__(self, error: ProviderError, draft: AssistantDraft) -> None:
        super().__init__(error.message)
        self.error = error
        self.draft = draft


class AnswerTooLarge(ProviderError):
    """The model's answer would pass ``limit`` bytes: the stream is stopped there."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the model's answer exceeded {size_in_words(limit)} (text, thinking and tool "
            "calls together); it was stopped there and what arrived before is kept"
        )
        self.limit = limit


def size_in_words(count: int) -> str:
    """``16 MiB``, ``64 KiB``, ``100 bytes``."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= scale:
            return f"{count / scale:.4g} {unit}"
    return f"{count} bytes"


DeltaSink = Callable[[str, str], None]
"""``sink(field, text)`` with field ``text`` or ``thinking``: publish one ``item.delta``."""
RetrySink = Callable[[RetryNotice], None]


class DeltaCoalescer:
    """Hands deltas to ``sink`` at most once per interval per field, without a task.

    The first delta after a quiet interval goes out at once; later ones are buffered and
    a timer on the event loop flushes them when the interval ends (so buffered text never
    waits for the provider's next event). ``close`` flushes what is left.
    """

    def __init__(self, sink: DeltaSink, interval_s: float = DELTA_INTERVAL_S) -> None:
        self._sink = sink
        self._interval_s = interval_s
        self._pending: dict[str, list[str]] = {}
        self._loop = asyncio.get_running_loop()
        self._next_flush = 0.0  # loop time before which a delta is buffered
        self._timer: asyncio.TimerHandle | None = None

    def add(self, field: str, text: str) -> None:
        if not text:
            return
        self._pending.setdefault(field, []).append(text)
        if self._timer is not None:
            return  # a flush is already due
        if self._loop.time() >= self._next_flush:
            self.flush()
        else:
            self._timer = self._loop.call_at(self._next_flush, self._timer_fired)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, {}
        if pending:
            self._next_flush = self._loop.time() + self._interval_s
        for field, parts in pending.items():
            self._sink(field, "".join(parts))

    def _timer_fired(self) -> None:
        self._timer = None
        self.flush()


async def stream_model_call(
    provider: Provider,
    request: ModelRequest,
    draft: AssistantDraft,
    deltas: DeltaSink,
    retries: RetrySink,
    limit: int = MAX_ANSWER_BYTES,
) -> AssistantDraft:
    """Run one model call to its ``MessageStop``, filling ``draft`` as events arrive.

    Raises ``StreamFailed`` with the partial draft on a provider error, or with
    ``AnswerTooLarge`` once the answer would pass ``limit`` bytes (the provider stream is
    closed there). Cancellation (an interrupt) closes the provider stream, and with it the
    HTTP response, at once; the caller still holds ``draft`` to keep what streamed.
    """
    coalescer = DeltaCoalescer(deltas)
    failure: ProviderError | None = None
    size = 0
    try:
        async with aclosing(provider.stream(request)) as events:
            async for event in events:
                size += _bytes_of(event)
                if size > limit:
                    raise AnswerTooLarge(limit)
                _apply(draft, event, coalescer, retries)
    except ProviderError as error:
        failure = error
    finally:
        coalescer.flush()
    if failure is not None:
        raise StreamFailed(failure, draft) from failure
    if draft.stop is None:
        raise StreamFailed(ProviderError("the model's stream ended without a stop"), draft)
    return draft


def _apply(
    draft: AssistantDraft, event: object, coalescer: DeltaCoalescer, retries: RetrySink
) -> None:
    match event:
        case TextDelta(text=text):
            if text:
                draft.text_parts.append(text)
            coalescer.add("text", text)
        case ThinkingDelta():
            _add_thinking(draft, event)
            coalescer.add("thinking", event.text)
        case ToolCallStart(index=index, call_id=call_id, name=name):
            draft.calls[index] = ToolCallDraft(index=index, call_id=call_id, name=name)
        case ToolCallArgsDelta(index=index, fragment=fragment):
            if index in draft.calls:
                draft.calls[index].fragments.append(fragment)
        case ToolCallEnd(index=index, args=args, error=error):
            call = draft.calls.setdefault(index, ToolCallDraft(index, "", ""))
            call.args, call.error = args, error
        case RetryNotice():
            retries(event)
        case MessageStop():
            draft.stop = event


def _bytes_of(event: object) -> int:
    """What ``event`` adds to the answer, in UTF-8 bytes."""
    match event:
        case TextDelta(text=text) | ToolCallArgsDelta(fragment=text):
            return len(text.encode())
        case ThinkingDelta(text=text, signature=signature, redacted_data=redacted):
            opaque = (signature, redacted, event.item_id, event.encrypted_content)
            return len(text.encode()) + sum(len(v or "") for v in opaque)
        case ToolCallStart(call_id=call_id, name=name):
            return len(call_id.encode()) + len(name.encode())
        case _:
            return 0


def _add_thinking(draft: AssistantDraft, event: ThinkingDelta) -> None:
    blocks = draft.thinking_blocks
    if not blocks or blocks[-1].closed:
        blocks.append(ThinkingDraft())
    block = blocks[-1]
    if event.text:
        block.parts.append(event.text)
    if event.signature is not None:
        block.signature = event.signature
    if event.redacted_data is not None:
        block.redacted_data = event.redacted_data
    if event.item_id is not None:
        block.item_id = event.item_id
    if event.encrypted_content is not None:
        block.encrypted_content = event.encrypted_content
