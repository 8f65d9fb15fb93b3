"""How a run stops: completed, failed, paused, interrupted by the user, or suspended for
recovery. Each is one transaction; ``turn.complete`` follows only after it committed."""

from __future__ import annotations

import sqlite3
from typing import Any

from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.store import approvals, items, threads, turns
from panelot_host.store.records import ApprovalRecord, InteractionRecord, ItemRecord
from panelot_host.vocabulary import BudgetKind, PauseReason, RunState, StopReason, ToolCallStatus

INTERRUPTED_RESULT = "Interrupted by the user before it finished; its outcome is unknown."
NOT_RUN_RESULT = "Not run: the user interrupted the turn before this call was executed."
ABANDONED_RESULT = "Not run: the turn failed before this call was executed."

_Withdrawn = tuple[list[ApprovalRecord], list[InteractionRecord]]


class TurnFinisher:
    """Ends (or pauses) one run of a thread and tells the clients."""

    def __init__(self, ctx: EngineContext, run: RunRef) -> None:
        self.ctx = ctx
        self.run = run

    def complete(self, stop_reason: StopReason) -> None:
        """A final response: the Turn is ``completed`` with its stop reason."""
        with self.ctx.db.transaction() as conn:
            turns.set_turn_status(conn, self.run.turn_id, "completed", stop_reason=stop_reason)
            turns.update_run(conn, self.run.run_id, state="completed")
        self._ended("completed")

    def fail(self, kind: str, message: str) -> None:
        """The Turn fails (provider error after retries, protocol error, drift...)."""
        with self.ctx.db.transaction() as conn:
            settled = self._settle_calls(conn, "failed", ABANDONED_RESULT)
            withdrawn = self._cancel_waits(conn)
            error = {"kind": kind, "message": message}
            turns.set_turn_status(conn, self.run.turn_id, "failed", error=error)
            turns.update_run(conn, self.run.run_id, state="failed")
        self._publish_withdrawn(withdrawn)
        self._publish_calls(settled)
        self._ended("failed")

    def interrupted(self) -> None:
        """The user's interrupt: unfinished calls get a synthetic result; stored items stay."""
        with self.ctx.db.transaction() as conn:
            settled = self._settle_calls(conn, "interrupted", INTERRUPTED_RESULT)
            withdrawn = self._cancel_waits(conn)
            turns.set_turn_status(conn, self.run.turn_id, "interrupted")
            turns.update_run(conn, self.run.run_id, state="interrupted")
        self._publish_withdrawn(withdrawn)
        self._publish_calls(settled)
        self._detach_l2()
        self._ended("interrupted")

    def pause(self, reason: PauseReason, budget: BudgetKind | None = None) -> None:
        """Pause the Turn (``budget``, with the ``budget`` reached; ``uncertain``): it waits
        for ``run.resume``."""
        # a workflow run waiting for a model resumes as a budget pause does (``run.resume``)
        state: RunState = "paused_uncertain" if reason == "uncertain" else "budget_paused"
        with self.ctx.db.transaction() as conn:
            turn = turns.get_turn(conn, self.run.turn_id)
            context = {**turn.context, "pauseReason": reason}
            context.pop("budgetReached", None)
            if budget is not None:
                context["budgetReached"] = budget
            turns.update_turn_context(conn, self.run.turn_id, context)
            turns.set_turn_status(conn, self.run.turn_id, "paused")
            turns.update_run(conn, self.run.run_id, state=state)
        self.ctx.actor(self.run.thread_id).release()
        self.ctx.publish.run_updated(self.run, state)
        self.ctx.publish.turn_paused(self.run, turns.get_turn(self.ctx.db.conn, turn.id), budget)

    def suspend(self) -> None:
        """The host is stopping: leave the run resumable; recovery settles it on start."""
        with self.ctx.db.transaction() as conn:
            run = turns.get_run(conn, self.run.run_id)
            if run.state == "streaming":
                turns.update_run(conn, self.run.run_id, state="interrupted")
        self.ctx.actor(self.run.thread_id).release()

    # ------------------------------------------------------------ helpers

    def _detach_l2(self) -> None:
        """Interrupt detaches L2 tools (`docs/engine.md`, "Agent loop"): the shim drops its debugger
        attachment when any call of this Turn ran at L2."""
        used_l2 = items.turn_ran_level(self.ctx.db.conn, self.run.turn_id, "L2")
        detach = getattr(self.ctx.browser, "detach", None)
        if used_l2 and detach is not None:
            detach(self.run.thread_id, self.run.turn_id)

    def _settle_calls(
        self, conn: sqlite3.Connection, status: ToolCallStatus, text: str
    ) -> list[ItemRecord]:
        settled = []
        for item in items.of_turn(conn, self.run.thread_id, self.run.turn_id):
            if item.kind == "toolCall" and item.result is None:
                dispatched = item.status in ("running", "uncertain")
                said = text if dispatched or status != "interrupted" else NOT_RUN_RESULT
                result: dict[str, Any] = {"content": said, "isError": True}
                settled.append(items.settle_call(conn, item.id, status, result))
        return settled

    def _cancel_waits(self, conn: sqlite3.Connection) -> _Withdrawn:
        """Withdraw the questions of this Turn; every client is then told (``*.resolved``)."""
        return (
            approvals.cancel_approvals_of_turn(conn, self.run.turn_id),
            approvals.cancel_interactions_of_turn(conn, self.run.turn_id),
        )

    def _publish_withdrawn(self, withdrawn: _Withdrawn) -> None:
        withdrawn_approvals, withdrawn_questions = withdrawn
        for approval in withdrawn_approvals:
            self.ctx.publish.approval_resolved(approval, cancelled=True)
        for interaction in withdrawn_questions:
            self.ctx.publish.interaction_resolved(interaction, "cancel")

    def _publish_calls(self, settled: list[ItemRecord]) -> None:
        for item in settled:
            self.ctx.publish.item_completed(item, self.run.turn_id)

    def _ended(self, state: RunState) -> None:
        """Release the thread, then tell the clients; then start the next queued entry."""
        self.ctx.actor(self.run.thread_id).release()
        turn = turns.get_turn(self.ctx.db.conn, self.run.turn_id)
        self.ctx.publish.run_updated(self.run, state)
        self.ctx.publish.turn_complete(turn)
        self.ctx.publish.thread_updated(threads.get(self.ctx.db.conn, self.run.thread_id))
        self.ctx.on_idle(self.run.thread_id)
