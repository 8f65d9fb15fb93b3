"""Compaction: when the context nears the model's window, the oldest turns are summarized
by the task model (or the main model) and the summary is stored as a ``compaction`` item on
the branch; later model calls send the summary instead of the items it covers.

It runs at a model-call boundary (every tool call of the branch has its result, and the
steering admitted for the call is already stored), so it never separates a call from its
result. The kept tail starts at an ``assistant`` or ``user`` item, so it holds whole batches.
The summary is stored in one transaction with its usage and the thread's new head: a crash
while the summary streams, or before that commit, leaves the branch exactly as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from panelot_host.engine import prompts
from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.engine.context_window.session_context import Boundary
from panelot_host.engine.context_window.tokens import model_limits, text_tokens
from panelot_host.engine.models import ResolvedModel
from panelot_host.engine.response import record_call_usage
from panelot_host.engine.stream import AssistantDraft, StreamFailed, stream_model_call
from panelot_host.errors import ProviderError
from panelot_host.providers.types import ModelRequest, RetryNotice, TextPart, UserMessage
from panelot_host.store import items, threads
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord

log = logging.getLogger(__name__)

COMPACT_AT = 0.95  # share of the input budget past which a model call compacts first
KEEP_TAIL = 0.3  # share of the input budget the verbatim tail may keep
FORCED_TAIL = 0.15  # after a "prompt too long" answer
SUMMARY_MAX_TOKENS = 2_048
RESULT_CLIP = 1_500  # characters of one tool result in the summarizer's transcript
TEXT_CLIP = 4_000  # characters of one message
ARGS_CLIP = 300
USER_MESSAGES_KEPT = 20
USER_MESSAGE_CLIP = 1_000
CHARS_PER_TOKEN_SAFE = 3  # the transcript must fit the summarizer: count tokens generously


class CompactionFailed(Exception):
    """No summary could be written; ``reason`` says why (shown to the user)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Plan(msgspec.Struct, frozen=True):
    """What a compaction covers: the items of the branch from the previous boundary on,
    and where the kept tail starts."""

    region: list[ItemRecord]
    cut: int  # index in ``region`` of the first item kept verbatim

    @property
    def covered(self) -> list[ItemRecord]:
        return self.region[: self.cut]


def plan(
    region: Sequence[ItemRecord], cost: Callable[[ItemRecord], int], tail_budget: int
) -> Plan | None:
    """Cover as much as leaves a tail of at most ``tail_budget`` tokens (at least the last
    batch or message stays); None when nothing can be covered."""
    kept = [item for item in region if item.kind not in ("notice", "compaction")]
    starts = [i for i, item in enumerate(kept) if i > 0 and item.kind in ("assistant", "user")]
    if not starts:
        return None
    suffix = [0] * (len(kept) + 1)
    for index in range(len(kept) - 1, -1, -1):
        suffix[index] = suffix[index + 1] + cost(kept[index])
    cut = next((i for i in starts if suffix[i] <= tail_budget), starts[-1])
    return Plan(region=kept, cut=cut)


def item_cost(result_tokens: dict[str, int]) -> Callable[[ItemRecord], int]:
    """Tokens an item takes in the context: its result as sent (elided or not, from
    ``result_tokens`` by call id), or its text."""

    def cost(item: ItemRecord) -> int:
        if item.kind == "toolCall":
            args = msgspec.json.encode(item.args or {})
            return len(args) // 4 + result_tokens.get(item.call_id or "", 0) + 16
        attachments = len(item.extra.get("attachments", [])) * 1_600
        return text_tokens(item.text or "") + text_tokens(item.thinking or "") + attachments + 4

    return cost


def transcript(covered: Sequence[ItemRecord], max_chars: int) -> str:
    """The covered items as plain text for the summarizer (results clipped, no images);
    the oldest lines give way when it is longer than ``max_chars``."""
    lines = [line for item in covered if (line := _line(item))]
    total = sum(len(line) + 1 for line in lines)
    dropped = 0
    while lines and total > max_chars:
        total -= len(lines.pop(0)) + 1
        dropped += 1
    if dropped:
        lines.insert(0, f"[... {dropped} earlier entries omitted ...]")
    return "\n".join(lines)


def _line(item: ItemRecord) -> str:
    match item.kind:
        case "user":
            images = len(item.extra.get("attachments", []))
            note = f" [{images} image(s) attached]" if images else ""
            return f"User: {_clip(item.text or '', TEXT_CLIP)}{note}"
        case "steering":
            return f"User (while the agent worked): {_clip(item.text or '', TEXT_CLIP)}"
        case "assistant":
            return f"Assistant: {_clip(item.text, TEXT_CLIP)}" if item.text else ""
        case "toolCall":
            args = _clip(msgspec.json.encode(item.args or {}).decode(), ARGS_CLIP)
            result = item.result or {}
            label = "Error" if result.get("isError") else "Result"
            text = _clip(_result_text(result.get("content", "")), RESULT_CLIP)
            return f"Tool call {item.name}({args})\n  {label}: {text}"
        case _:
            return ""


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        parts.append("[image]" if block.get("type") == "image" else str(block.get("text", "")))
    return " ".join(parts)


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit} more chars]"


def user_messages(previous: list[str], covered: Sequence[ItemRecord]) -> list[str]:
    """The user's own words, carried verbatim from compaction to compaction (newest kept)."""
    said = [
        _clip(item.text or "", USER_MESSAGE_CLIP)
        for item in covered
        if item.kind in ("user", "steering") and item.text
    ]
    return [*previous, *said][-USER_MESSAGES_KEPT:]


def summary_text(summary: str, said: list[str]) -> str:
    if not said:
        return summary
    quoted = "\n".join(f"- {text}" for text in said)
    return f"{summary}\n\nThe user's messages in the summarized part, verbatim:\n{quoted}"


class Compactor:
    """Writes and stores one compaction for a running Turn."""

    def __init__(self, ctx: EngineContext, run: RunRef) -> None:
        self.ctx = ctx
        self.run = run
        self.thread_id, self.turn_id, self.run_id = run.thread_id, run.turn_id, run.run_id

    def region(self, boundary: Boundary | None) -> list[ItemRecord]:
        """The branch after the current boundary: what a new compaction may cover."""
        conn = self.ctx.db.conn
        head = threads.get(conn, self.thread_id).head_item_id
        branch = items.iter_branch(conn, head)
        if boundary is None:
            return list(branch)
        region: list[ItemRecord] = []
        started = False
        for item in branch:
            if started:
                region.append(item)
            started = started or item.id == boundary.through_item_id
        return region

    async def compact(
        self,
        covered: Plan,
        previous: ItemRecord | None,
        main: ResolvedModel,
        tokens_before: int,
    ) -> ItemRecord:
        """Summarize ``covered.covered`` and store the compaction item; raises
        ``CompactionFailed`` (nothing stored) when no summary could be written."""
        model = self.ctx.models.task_model() or main
        said = user_messages(list(previous.extra.get("userMessages", [])) if previous else [],
                             covered.covered)  # fmt: skip
        request = self._request(covered.covered, previous, model)
        draft = await self._stream(model, request)
        summary = summary_text(draft.text.strip(), said)
        covered_tokens = sum(item_cost({})(item) for item in covered.covered)
        record = ItemRecord(
            id=new_id("itm"),
            thread_id=self.thread_id,
            parent_id=None,  # set in the transaction: the head then
            turn_id=self.turn_id,
            kind="compaction",
            created_at=now_ms(),
            text=summary,
            extra={
                "throughItemId": covered.covered[-1].id,
                "coveredItems": len(covered.covered),
                "tokensBefore": tokens_before,
                "tokensAfter": max(tokens_before - covered_tokens, 0) + text_tokens(summary),
                "model": model.model,
                "userMessages": said,
            },
        )
        return self._store(record, draft, model)

    def _request(
        self, covered: Sequence[ItemRecord], previous: ItemRecord | None, model: ResolvedModel
    ) -> ModelRequest:
        limits = model_limits(model.info, self.ctx.policy.settings())
        max_tokens = min(SUMMARY_MAX_TOKENS, limits.max_output_tokens)
        before = prompts.COMPACTION_PREVIOUS.format(summary=previous.text or "") if previous else ""
        room = (limits.context_window - max_tokens) * CHARS_PER_TOKEN_SAFE
        room -= len(before) + len(prompts.COMPACTION_REQUEST) + len(prompts.COMPACTION_SYSTEM)
        text = prompts.COMPACTION_REQUEST.format(
            previous=before, transcript=transcript(covered, max(room, 2_000))
        )
        return ModelRequest(
            model=model.model,
            system=prompts.COMPACTION_SYSTEM,
            messages=[UserMessage(content=[TextPart(text)])],
            max_tokens=max_tokens,
            purpose="summary",
        )

    async def _stream(self, model: ResolvedModel, request: ModelRequest) -> AssistantDraft:
        draft = AssistantDraft()
        try:
            await stream_model_call(
                model.provider, request, draft, _no_delta, _no_retry, self.ctx.max_answer_bytes
            )
        except StreamFailed as failed:
            raise CompactionFailed(f"the summary call failed: {failed.error.message}") from None
        except ProviderError as error:
            raise CompactionFailed(f"the summary call failed: {error.message}") from None
        if draft.calls or not draft.text.strip():
            raise CompactionFailed("the model answered the summary request without a summary")
        return draft

    def _store(self, record: ItemRecord, draft: AssistantDraft, model: ResolvedModel) -> ItemRecord:
        with self.ctx.db.transaction() as conn:
            head = threads.get(conn, self.thread_id).head_item_id
            record = msgspec.structs.replace(record, parent_id=head)
            items.insert(conn, record, index_text=False)
            thread = record_call_usage(conn, self.run, draft, model, record.id)
        self.ctx.publish.item_started(record, self.turn_id)
        self.ctx.publish.item_completed(record, self.turn_id)
        self.ctx.publish.thread_updated(thread)
        return record


def _no_delta(field: str, text: str) -> None:
    """The summary streams into the stored item at once, not as deltas."""


def _no_retry(notice: RetryNotice) -> None:
    log.info("compaction: the summary call is retried (%s)", notice.reason)
