"""The agent loop of one run (`docs/engine.md`, "Execution", "Agent loop"): model calls and
tool steps until a final response, driven from the stored run state so it can continue after
a crash.

Each step writes its outcome, with the next run state, in one transaction; events follow
the commit. The driver reads the run's cursor once when it starts and then keeps it in
memory (while it runs it is the cursor's only writer), so a crash at any point leaves the
stored state it would have continued from.
"""

from __future__ import annotations

import logging

import anyio
import msgspec

from panelot_host.engine import prompts, tool_warmup, workflow_run
from panelot_host.engine.actor import StopCause
from panelot_host.engine.budget import budget_reached
from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.engine.context_window.request import RequestBuilder
from panelot_host.engine.cursor import (
    CHANGE_APPROACH_AFTER,
    DISABLE_TOOLS_AFTER,
    CursorCell,
    RunCursor,
    dump_cursor,
    load_cursor,
)
from panelot_host.engine.environment import model_of_run
from panelot_host.engine.finish import TurnFinisher
from panelot_host.engine.models import ResolvedModel
from panelot_host.engine.response import store_response, store_stream_failure
from panelot_host.engine.slots import RunSlot
from panelot_host.engine.stream import AssistantDraft, StreamFailed, stream_model_call
from panelot_host.engine.tool_step import RunPaused, ToolStepper
from panelot_host.engine.workflow_run import player_of, record_progress
from panelot_host.errors import ContextOverflow, PanelotError, ProviderError, StoreError
from panelot_host.providers.overflow import is_prompt_too_long
from panelot_host.providers.types import RetryNotice
from panelot_host.store import items, steering, threads, turns
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord
from panelot_host.tools.catalog import RunCatalog, recovered_run_catalog
from panelot_host.vocabulary import StopReason, ToolCallStatus

log = logging.getLogger(__name__)

UNSETTLED: tuple[ToolCallStatus, ...] = ("pending", "awaiting_approval", "running")


class RunDriver:
    """Drives one run of a thread until it completes, pauses, fails or is stopped."""

    def __init__(self, ctx: EngineContext, run: RunRef) -> None:
        self.ctx = ctx
        self.run = run
        self.finish = TurnFinisher(ctx, run)
        self.slot = RunSlot(ctx.slots, ctx.db, ctx.publish, run)  # given back by the actor
        self._draft: AssistantDraft | None = None
        self._draft_item_id: str | None = None
        self._model: ResolvedModel | None = None
        self._catalog: RunCatalog | None = None
        self._pending_cursor: RunCursor | None = None  # advanced, stored with the response
        self._cell = CursorCell(RunCursor())  # loaded from the run's row when the loop starts
        self._context = RequestBuilder(ctx, run, self._run_catalog, self._add_notice)

    async def __call__(self) -> None:
        actor = self.ctx.actor(self.run.thread_id)
        try:
            await self.slot.take()  # queued until one is free
            await self._loop()
        except RunPaused:
            return  # already paused and released, with its events sent
        except anyio.get_cancelled_exc_class():
            self._settle_stopped(actor.stop_cause)  # synchronous: no await to cancel
            raise
        except PanelotError as exc:
            self._fail(exc.kind, exc.message)
        except Exception as exc:
            log.exception("run %s failed unexpectedly", self.run.run_id)
            self._fail("internal", f"the engine failed unexpectedly ({type(exc).__name__})")

    def _fail(self, kind: str, message: str) -> None:
        """End the Turn ``failed``; when even that cannot be stored, leave the run as it is
        for recovery rather than let the error escape and stop the host."""
        try:
            self.finish.fail(kind, message)
        except StoreError:
            log.exception(
                "run %s: its failure could not be stored; recovery settles it", self.run.run_id
            )

    # ------------------------------------------------------------ the loop

    async def _loop(self) -> None:
        cell = self._cell = CursorCell(
            load_cursor(turns.get_run(self.ctx.db.conn, self.run.run_id).cursor)
        )
        stepper = ToolStepper(self.ctx, self.run, cell, self.slot)
        calls = self._unsettled_calls()  # left by a restart, or awaiting approval
        if not calls and cell.value.calls == 0:  # a new run: MCP servers get their chance
            model = self._resolved(cell.value)
            cell.value = await tool_warmup.ready_cursor(
                self.ctx, self.run.run_id, cell.value, model, self._add_notice
            )
            self._say_unpriced_budget()
        while True:
            cursor = cell.value
            if calls:
                for call in calls:  # each is settled when step returns
                    await stepper.step(call, self._run_catalog(cursor), cursor.tools_disabled)
                calls = []
                continue
            if self._workflow_waits(cursor):
                return
            reached = budget_reached(cursor, turns.get_turn(self.ctx.db.conn, self.run.turn_id))
            if reached is not None:
                self.finish.pause("budget", reached)
                return
            draft = await self._model_call(cursor)
            if draft is None:
                return
            catalog = dict(self._run_catalog(cursor).tools)
            pending, self._pending_cursor = self._pending_cursor, None
            outcome, calls = store_response(
                self.ctx,
                self.run,
                self._draft_id(),
                draft,
                self._resolved(cursor),
                catalog,
                pending,
            )
            if pending is not None:
                cell.value = pending
            self._draft = None
            self._record_workflow(cursor)
            if outcome in ("tools", "continue"):
                continue
            if outcome == "failed":
                return
            if self._pending_steering():
                continue  # an acknowledged steering message arrived: one more request
            self.finish.complete(_final_stop_reason(draft))
            return

    def _record_workflow(self, cursor: RunCursor) -> None:
        """A workflow run: its record on the Turn, and a notice when it just diverged or a
        step was denied."""
        player = player_of(self._resolved(cursor))
        change = record_progress(self.ctx, self.run, player) if player else None
        if player is not None and change == "diverged":
            assert player.divergence is not None
            step = player.divergence.step + 1
            then = "the model takes over" if player.fallback else "no model is configured"
            shown = f"The workflow diverged at step {step}: {player.divergence.why}; {then}."
            self._add_notice("workflow_diverged", shown)
        elif player is not None and change == "denied":
            assert player.refusal is not None
            step = player.refusal.step + 1
            shown = f"The workflow stopped at step {step}: its call was denied; the run ends there."
            self._add_notice("workflow_denied", shown)

    def _workflow_waits(self, cursor: RunCursor) -> bool:
        """A workflow run that diverged with no model to hand it to pauses (``needs_model``)
        until ``run.resume`` after one is configured."""
        player = player_of(self._resolved(cursor))
        if player is None or not workflow_run.needs_model(self.ctx, self.run, player):
            return False
        self.finish.pause("needs_model")
        return True

    def _draft_id(self) -> str:
        assert self._draft_item_id is not None
        return self._draft_item_id

    def _resolved(self, cursor: RunCursor) -> ResolvedModel:
        if self._model is None:
            self._model = model_of_run(self.ctx, cursor, self.run.turn_id)
        return self._model

    def _run_catalog(self, cursor: RunCursor) -> RunCatalog:
        """The run's catalog: bound once, from its snapshot, to one registry generation."""
        if self._catalog is None:
            capabilities = self._resolved(cursor).capabilities
            generation = self.ctx.registry.current
            self._catalog = recovered_run_catalog(generation, capabilities, cursor.catalog)
        return self._catalog

    def _unsettled_calls(self) -> list[ItemRecord]:
        return items.of_turn(
            self.ctx.db.conn, self.run.thread_id, self.run.turn_id, statuses=UNSETTLED
        )

    def _say_unpriced_budget(self) -> None:
        """A default budget in money the model's unknown price left unapplied: the Turn
        says so once, at its start, instead of silently running without it."""
        turn = turns.get_turn(self.ctx.db.conn, self.run.turn_id)
        usd = turn.context.get("costBudgetUnpriced")
        if usd is None:
            return
        tokens = turn.context.get("tokenBudget")
        held = f"its token budget ({tokens:,} tokens) still holds" if tokens else "no budget holds"
        text = prompts.UNPRICED_BUDGET.format(
            model=turn.context.get("model", "this model"), usd=usd, held=held
        )
        self._add_notice("budget_unpriced", text)

    def _pending_steering(self) -> bool:
        return bool(steering.pending_steering(self.ctx.db.conn, self.run.turn_id))

    # ------------------------------------------------------------ one model call

    async def _model_call(self, cursor: RunCursor) -> AssistantDraft | None:
        model = self._resolved(cursor)
        cursor = self._admit_steering(cursor)
        request = await self._context.fitted(cursor, model)
        item_id = new_id("itm")
        self._draft_item_id = item_id
        placeholder = ItemRecord(
            id=item_id,
            thread_id=self.run.thread_id,
            parent_id=None,
            turn_id=self.run.turn_id,
            kind="assistant",
            created_at=now_ms(),
        )
        self.ctx.publish.item_started(placeholder, self.run.turn_id)
        retried = False
        while True:
            self._draft = AssistantDraft()
            try:
                draft = await stream_model_call(
                    model.provider,
                    request,
                    self._draft,
                    self._delta,
                    self._retry_notice,
                    self.ctx.max_answer_bytes,
                )
            except StreamFailed as failed:
                too_long = not failed.draft.started and is_prompt_too_long(failed.error)
                if too_long and not retried:
                    retried = True  # compact harder and retry once
                    request = await self._context.fitted(cursor, model, forced=True)
                    continue
                store_stream_failure(self.ctx, self.run, self._draft_id(), failed)
                self._draft = None
                if too_long:
                    raise ContextOverflow(self._context.overflow_message(model, "")) from None
                self.finish.fail("provider", failed.error.message)
                return None
            self._calibrate(draft)
            return draft

    def _delta(self, field: str, text: str) -> None:
        assert self._draft_item_id is not None
        self.ctx.publish.delta(
            self.run.thread_id, self.run.turn_id, self._draft_item_id, field, text
        )

    def _retry_notice(self, notice: RetryNotice) -> None:
        text = (
            f"The model is unavailable ({notice.reason}); retrying in {notice.delay_s:.0f} s, "
            f"attempt {notice.attempt}/{notice.max_attempts}."
        )
        self._add_notice("provider_retry", text)

    def _admit_steering(self, cursor: RunCursor) -> RunCursor:
        """Capture the admission cutoff and materialise the steering admitted up to it.

        Without steering or a notice to store, nothing is written here: the advanced cursor
        is stored with the model call's response (one commit per model call)."""
        db = self.ctx.db
        conn = db.conn
        self.ctx.faults.before_model_call(db, self.run.turn_id)
        cutoff = steering.steering_cutoff(conn)
        admitted = steering.pending_steering_upto(conn, self.run.turn_id, cutoff)
        cursor = self._next_call_cursor(cursor, cutoff)
        if not (admitted or self._due_notice(cursor)):
            self._pending_cursor = cursor
            return cursor
        added: list[ItemRecord] = []
        with db.transaction() as conn:
            cutoff = steering.steering_cutoff(conn)
            head = threads.get(conn, self.run.thread_id).head_item_id
            for message in steering.pending_steering_upto(conn, self.run.turn_id, cutoff):
                item = ItemRecord(
                    id=message.id,
                    thread_id=self.run.thread_id,
                    parent_id=head,
                    turn_id=self.run.turn_id,
                    kind="steering",
                    created_at=message.created_at,
                    text=message.text,
                )
                items.insert(conn, item)
                steering.mark_admitted(conn, message.id, cursor.calls)
                head = item.id
                added.append(item)
            added.extend(self._streak_notices(cursor, head))
            if added:
                threads.set_head(conn, self.run.thread_id, added[-1].id)
            cursor = msgspec.structs.replace(cursor, steering_cutoff=cutoff)
            turns.update_run(conn, self.run.run_id, state="streaming", cursor=dump_cursor(cursor))
        self._pending_cursor = None
        self._cell.value = cursor
        for item in added:
            self.ctx.publish.item_started(item, self.run.turn_id)
            self.ctx.publish.item_completed(item, self.run.turn_id)
        return cursor

    def _due_notice(self, cursor: RunCursor) -> tuple[str, str, str] | None:
        """The failure-streak notice this model call owes (once per Turn each): its code,
        what the model is told, and what the user is shown."""
        streak = cursor.failure_streak
        if streak >= DISABLE_TOOLS_AFTER:
            code, text = "tools_disabled", prompts.TOOLS_DISABLED.format(n=streak)
            shown = prompts.TOOLS_DISABLED_SHOWN.format(n=streak)
        elif streak == CHANGE_APPROACH_AFTER:
            code, text = "change_approach", prompts.CHANGE_APPROACH.format(n=streak)
            shown = prompts.CHANGE_APPROACH_SHOWN.format(n=streak)
        else:
            return None
        given = items.has_notice(self.ctx.db.conn, self.run.thread_id, self.run.turn_id, code)
        return None if given else (code, text, shown)

    def _next_call_cursor(self, cursor: RunCursor, cutoff: int) -> RunCursor:
        disable = cursor.failure_streak >= DISABLE_TOOLS_AFTER
        return msgspec.structs.replace(
            cursor,
            calls=cursor.calls + 1,
            steering_cutoff=cutoff,
            tools_disabled=cursor.tools_disabled or disable,
        )

    def _streak_notices(self, cursor: RunCursor, head: str | None) -> list[ItemRecord]:
        due = self._due_notice(cursor)
        if due is None:
            return []
        code, text, shown = due
        notice = self._notice_record(code, text, head, user_text=shown)
        items.insert(self.ctx.db.conn, notice)
        return [notice]

    def _notice_record(
        self, code: str, text: str, parent: str | None, *, user_text: str | None = None
    ) -> ItemRecord:
        extra: dict[str, str] = {"code": code}
        if user_text is not None:
            extra["userText"] = user_text
        return ItemRecord(
            id=new_id("itm"),
            thread_id=self.run.thread_id,
            parent_id=parent,
            turn_id=self.run.turn_id,
            kind="notice",
            created_at=now_ms(),
            text=text,
            extra=extra,
        )

    def _add_notice(self, code: str, text: str) -> None:
        with self.ctx.db.transaction() as conn:
            head = threads.get(conn, self.run.thread_id).head_item_id
            notice = self._notice_record(code, text, head)
            items.insert(conn, notice)
            threads.set_head(conn, self.run.thread_id, notice.id)
        self.ctx.publish.item_started(notice, self.run.turn_id)
        self.ctx.publish.item_completed(notice, self.run.turn_id)

    # ------------------------------------------------------------ the context

    def _current_cursor(self) -> RunCursor:
        return self._pending_cursor or self._cell.value

    def _calibrate(self, draft: AssistantDraft) -> None:
        """Learn the estimate's ratio from the input tokens the provider reported; stored
        with the response (in the cursor), so a continued run decides the same way."""
        cursor = self._current_cursor()
        calibrated = self._context.calibrated(cursor, draft)
        if calibrated is not cursor:
            self._pending_cursor = calibrated

    # ------------------------------------------------------------ stop

    def _settle_stopped(self, cause: StopCause) -> None:
        """Keep what streamed; settle the run for the user's interrupt or for recovery."""
        # ``_draft`` is cleared as soon as the response is stored: a draft here never was
        draft = self._draft
        if draft is not None and self._draft_item_id is not None and draft.started:
            stopped = StreamFailed(ProviderError("stopped"), draft)
            store_stream_failure(self.ctx, self.run, self._draft_id(), stopped)
        if cause is StopCause.INTERRUPT:
            self.finish.interrupted()
        else:
            self.finish.suspend()


def _final_stop_reason(draft: AssistantDraft) -> StopReason:
    """The Turn's stop reason on the wire. A provider's ``tool_use`` with no tool call
    (nothing to run) ends the Turn as ``end_turn``."""
    match draft.stop.stop_reason if draft.stop else "end_turn":
        case "max_tokens" | "stop_sequence" | "content_filter" as reason:
            return reason
        case _:
            return "end_turn"
