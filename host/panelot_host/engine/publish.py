"""Events of a thread, built from stored records; published only after their commit."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from panelot_host.engine import views
from panelot_host.engine.events import PENDING_SEQ, EventSink
from panelot_host.errors import InvalidState
from panelot_host.protocol import common, events
from panelot_host.store.frames import FrameRecord
from panelot_host.store.records import (
    ApprovalRecord,
    InteractionRecord,
    ItemRecord,
    QueueEntryRecord,
    RunRef,
    ThreadRecord,
    TurnRecord,
)
from panelot_host.vocabulary import (
    BudgetKind,
    InteractionAction,
    PauseReason,
    RunState,
    TurnEndStatus,
    TurnStatus,
)

_RUN_STATE_STATUS = {
    "queued": "waiting",
    "streaming": "running",
    "executing_tool": "running",
    "awaiting_approval": "awaiting_approval",
    "awaiting_interaction": "awaiting_answer",
    "budget_paused": "budget_paused",
    "paused_uncertain": "paused_uncertain",
}
"""The thread status a live Run state shows; a Run that ends is followed by the Turn's
``turn.complete`` and a ``thread.updated``."""


class Publisher:
    """Typed helpers over the event sink, one per engine. With ``load_thread``, a Run state
    change that changes its thread's status (``Thread.status``) also sends ``thread.updated``,
    so thread lists follow waits and pauses. With ``load_frames`` (an item id -> its stored
    frames), a tool call's item events list its frames (issue 30)."""

    def __init__(
        self,
        sink: EventSink,
        load_thread: Callable[[str], ThreadRecord] | None = None,
        load_frames: Callable[[str], Sequence[FrameRecord]] | None = None,
    ) -> None:
        self._sink = sink
        self._load_thread = load_thread
        self._load_frames = load_frames
        self._sent_status: dict[str, str] = {}

    def _item_view(self, item: ItemRecord) -> Any:
        if item.kind != "toolCall" or self._load_frames is None:
            return views.item_view(item)
        return views.item_view(item, self._load_frames(item.id))

    def authority_widened(self, command_id: str, changes: list[events.AuthorityChange]) -> None:
        """A connection-level event to every client (no thread, no seq)."""
        if changes:
            event = events.AuthorityWidenedEvent(command_id=command_id, changes=changes)
            self._sink.publish(None, "authority.widened", event)

    def thread_updated(self, thread: ThreadRecord) -> None:
        view = views.thread_view(thread)
        self._sent_status[thread.id] = view.status
        event = events.ThreadUpdatedEvent(thread_id=thread.id, seq=PENDING_SEQ, thread=view)
        self._sink.publish(thread.id, "thread.updated", event)

    def turn_started(self, thread_id: str, turn_id: str, run_id: str, user_item_id: str) -> None:
        event = events.TurnStartedEvent(
            thread_id=thread_id,
            seq=PENDING_SEQ,
            turn_id=turn_id,
            run_id=run_id,
            user_item_id=user_item_id,
        )
        self._sink.publish(thread_id, "turn.started", event)

    def item_started(self, item: ItemRecord, turn_id: str) -> None:
        event = events.ItemStartedEvent(
            thread_id=item.thread_id, seq=PENDING_SEQ, turn_id=turn_id, item=self._item_view(item)
        )
        self._sink.publish(item.thread_id, "item.started", event)

    def item_completed(self, item: ItemRecord, turn_id: str) -> None:
        event = events.ItemCompletedEvent(
            thread_id=item.thread_id, seq=PENDING_SEQ, turn_id=turn_id, item=self._item_view(item)
        )
        self._sink.publish(item.thread_id, "item.completed", event)

    def item_updated(self, item: ItemRecord, turn_id: str) -> None:
        event = events.ItemUpdatedEvent(
            thread_id=item.thread_id, seq=PENDING_SEQ, turn_id=turn_id, item=self._item_view(item)
        )
        self._sink.publish(item.thread_id, "item.updated", event)

    def delta(self, thread_id: str, turn_id: str, item_id: str, field: str, text: str) -> None:
        delta = (
            events.ItemDelta(text=text)
            if field == "text"
            else events.ItemDelta(thinking=text)
            if field == "thinking"
            else events.ItemDelta(progress=text)
        )
        event = events.ItemDeltaEvent(
            thread_id=thread_id, seq=PENDING_SEQ, turn_id=turn_id, item_id=item_id, delta=delta
        )
        self._sink.publish(thread_id, "item.delta", event)

    def run_updated(self, run: RunRef, state: RunState, *, wait_reason: str | None = None) -> None:
        """``run.updated`` (``wait_reason``: why a ``queued`` run waits for a slot)."""
        event = events.RunUpdatedEvent(
            thread_id=run.thread_id,
            seq=PENDING_SEQ,
            run_id=run.run_id,
            state=state,
            turn_id=run.turn_id,
            wait_reason=wait_reason,
        )
        self._sink.publish(run.thread_id, "run.updated", event)
        status = _RUN_STATE_STATUS.get(state)
        if self._load_thread and status and self._sent_status.get(run.thread_id) != status:
            self.thread_updated(self._load_thread(run.thread_id))

    def turn_paused(self, run: RunRef, turn: TurnRecord, budget: BudgetKind | None = None) -> None:
        """``turn.paused`` for ``turn`` as stored with its pause (its reason, its budgets)."""
        reason: PauseReason = turn.context.get("pauseReason", "budget")
        event = events.TurnPausedEvent(
            thread_id=run.thread_id,
            seq=PENDING_SEQ,
            turn_id=run.turn_id,
            reason=reason,
            run_id=run.run_id,
            budget_reached=budget,
            cost_budget_usd=turn.context.get("costBudgetUsd"),
            cost_usd=turn.usage.cost_usd if reason == "budget" else None,
        )
        self._sink.publish(run.thread_id, "turn.paused", event)

    def turn_complete(self, turn: TurnRecord) -> None:
        usage = turn.usage
        event = events.TurnCompleteEvent(
            thread_id=turn.thread_id,
            seq=PENDING_SEQ,
            turn_id=turn.id,
            status=_ended(turn.status),
            usage=common.Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                reasoning_tokens=usage.reasoning_tokens,
            ),
            cost_usd=usage.cost_usd,
            stop_reason=turn.stop_reason,
            error=msgspec.convert(turn.error, common.TurnError) if turn.error else None,
            workflow=views.workflow_record(turn.context),
        )
        self._sink.publish(turn.thread_id, "turn.complete", event)

    def queue_updated(self, thread_id: str, entries: list[QueueEntryRecord]) -> None:
        event = events.QueueUpdatedEvent(
            thread_id=thread_id, seq=PENDING_SEQ, queue=views.queue_view(entries)
        )
        self._sink.publish(thread_id, "queue.updated", event)

    def approval_request(self, approval: ApprovalRecord) -> None:
        view = views.approval_view(approval)
        event = events.ApprovalRequestEvent(
            thread_id=approval.thread_id, seq=PENDING_SEQ, **_fields(view)
        )
        self._sink.publish(approval.thread_id, "approval.request", event)

    def approval_resolved(self, approval: ApprovalRecord, *, cancelled: bool = False) -> None:
        view = views.approval_view(approval)
        event = events.ApprovalResolvedEvent(
            thread_id=approval.thread_id,
            seq=PENDING_SEQ,
            cancelled=cancelled,
            decision=approval.decision or "deny",
            scope=approval.scope or "once",
            **_fields(view),
        )
        self._sink.publish(approval.thread_id, "approval.resolved", event)

    def interaction_request(self, interaction: InteractionRecord) -> None:
        view = views.interaction_view(interaction)
        event = events.InteractionRequestEvent(
            thread_id=interaction.thread_id, seq=PENDING_SEQ, **_fields(view)
        )
        self._sink.publish(interaction.thread_id, "interaction.request", event)

    def interaction_resolved(
        self, interaction: InteractionRecord, action: InteractionAction
    ) -> None:
        view = views.interaction_view(interaction)
        event = events.InteractionResolvedEvent(
            thread_id=interaction.thread_id,
            seq=PENDING_SEQ,
            action=action,
            **_fields(view),
        )
        self._sink.publish(interaction.thread_id, "interaction.resolved", event)


def _ended(status: TurnStatus) -> TurnEndStatus:
    match status:
        case "completed" | "interrupted" | "failed":
            return status
        case _:
            raise InvalidState(f"a {status} Turn has not ended")


def _fields(view: object) -> dict[str, Any]:
    return {name: getattr(view, name) for name in view.__struct_fields__}  # type: ignore[attr-defined]
