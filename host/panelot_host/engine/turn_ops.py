"""Turn commands (`docs/engine.md`, "Steering, queueing and interrupt"): submit, steer,
enqueue and queue edits, interrupt, approval and interaction responses, resume. Each
changing command is one transaction unit with its receipt; events follow the commit; the
thread's actor then drives the run. Plain arguments in, result structs out: the server
maps the wire."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import jsonschema

from panelot_host.engine import environment, views
from panelot_host.engine.actor import StopCause
from panelot_host.engine.admission import Admission, TurnRequest, active_turn_id, admit
from panelot_host.engine.budget import with_more_budget
from panelot_host.engine.commands import Receipt, command_unit
from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.engine.cursor import dump_cursor, load_cursor
from panelot_host.engine.finish import TurnFinisher
from panelot_host.engine.loop import RunDriver
from panelot_host.engine.tool_step import record_approval_grants
from panelot_host.errors import (
    DriftError,
    InvalidParams,
    InvalidState,
    NotFound,
    StaleTurn,
    ThreadBusy,
)
from panelot_host.protocol.common import ApprovalScope, Decision, RecoveryOutcome
from panelot_host.protocol.ops import turns as ops
from panelot_host.protocol.ops._base import EmptyResult
from panelot_host.store import approvals, items, steering, threads, turns
from panelot_host.store.ids import new_id
from panelot_host.store.records import RunRecord
from panelot_host.vocabulary import InteractionAction, ToolCallStatus

log = logging.getLogger(__name__)


class TurnService:
    def __init__(self, ctx: EngineContext) -> None:
        self.ctx = ctx

    # ------------------------------------------------------------ submit and queue

    def submit(
        self,
        cmd: Receipt,
        thread_id: str,
        text: str,
        attachments: list[dict[str, Any]] | None = None,
        model: str | None = None,
        token_budget: int | None = None,
        cost_budget_usd: float | None = None,
    ) -> ops.TurnSubmitResult:
        """Start a Turn with the user's message (``attachments``: image attachments as
        plain dicts), on ``model`` and within ``token_budget`` and ``cost_budget_usd``
        when given."""
        request = TurnRequest(text, attachments or [], model, token_budget, cost_budget_usd)
        with command_unit(self.ctx.db, cmd) as unit:
            admission = admit(self.ctx, unit.conn, thread_id, request)
            result = unit.respond(ops.TurnSubmitResult(turn_id=admission.turn_id))
        self._started(admission)
        return result

    def enqueue(self, cmd: Receipt, thread_id: str, text: str) -> ops.TurnEnqueueResult:
        """Queue a later Turn; when the thread is idle it starts at once."""
        entry_id = new_id("que")
        admission: Admission | None = None
        with command_unit(self.ctx.db, cmd) as unit:
            threads.get(unit.conn, thread_id)
            if active_turn_id(unit.conn, thread_id) is None:
                admission = admit(self.ctx, unit.conn, thread_id, TurnRequest(text))
                position = 0
            else:
                steering.enqueue(unit.conn, entry_id=entry_id, thread_id=thread_id, text=text)
                position = len(steering.queue(unit.conn, thread_id)) - 1
            result = unit.respond(ops.TurnEnqueueResult(entry_id=entry_id, position=position))
        if admission is not None:
            self._started(admission)
        else:
            self._queue_changed(thread_id)
        return result

    def update_queue(
        self,
        cmd: Receipt,
        thread_id: str,
        entry_id: str,
        *,
        text: str | None = None,
        position: int | None = None,
    ) -> ops.QueueResult:
        """Edit a queued entry's text and/or move it to ``position``; the queue after."""
        with command_unit(self.ctx.db, cmd) as unit:
            threads.get(unit.conn, thread_id)
            if text is not None:
                steering.update_entry(unit.conn, thread_id, entry_id, text)
            if position is not None:
                steering.move_entry(unit.conn, thread_id, entry_id, position)
            result = unit.respond(self._queue_result(unit.conn, thread_id))
        self._queue_changed(thread_id)
        return result

    def remove_from_queue(self, cmd: Receipt, thread_id: str, entry_id: str) -> ops.QueueResult:
        with command_unit(self.ctx.db, cmd) as unit:
            threads.get(unit.conn, thread_id)
            steering.remove_entry(unit.conn, thread_id, entry_id)
            result = unit.respond(self._queue_result(unit.conn, thread_id))
        self._queue_changed(thread_id)
        return result

    @staticmethod
    def _queue_result(conn: sqlite3.Connection, thread_id: str) -> ops.QueueResult:
        return ops.QueueResult(queue=views.queue_view(steering.queue(conn, thread_id)))

    def start_next_queued(self, thread_id: str) -> None:
        """When a Turn ends, the next queued entry starts (one transaction)."""
        if not steering.queue(self.ctx.db.conn, thread_id):
            return
        with self.ctx.db.transaction() as conn:
            if not threads.exists(conn, thread_id) or active_turn_id(conn, thread_id):
                return
            entry = steering.pop_front(conn, thread_id)
            if entry is None:
                return
            try:
                admission = admit(self.ctx, conn, thread_id, TurnRequest(entry.text))
            except Exception:
                log.exception("the queued message could not start a Turn; it stays queued")
                raise
        self._queue_changed(thread_id)
        self._started(admission)

    # ------------------------------------------------------------ steering

    def steer(
        self, cmd: Receipt, thread_id: str, expected_turn_id: str, text: str
    ) -> ops.TurnSteerResult:
        """Persist input for the next model call of the running Turn (durable when answered)."""
        with command_unit(self.ctx.db, cmd) as unit:
            threads.get(unit.conn, thread_id)
            active = active_turn_id(unit.conn, thread_id)
            if active is None or active != expected_turn_id:
                raise StaleTurn(
                    f"Turn {expected_turn_id!r} is not the running Turn of this thread"
                    + (f" (running: {active})" if active else " (the thread is idle)")
                )
            item_id = new_id("itm")
            self.ctx.faults.store_steering(
                unit.conn,
                steering_id=item_id,
                thread_id=thread_id,
                turn_id=active,
                text=text,
            )
            result = unit.respond(ops.TurnSteerResult(item_id=item_id))
        return result

    # ------------------------------------------------------------ interrupt

    async def interrupt(self, thread_id: str, turn_id: str | None = None) -> EmptyResult:
        """Stop the current Turn (only if it is ``turn_id``, when given); always allowed,
        idempotent. Returns after it has ended."""
        threads.get(self.ctx.db.conn, thread_id)
        active = active_turn_id(self.ctx.db.conn, thread_id)
        if active is None or (turn_id is not None and turn_id != active):
            return EmptyResult()
        actor = self.ctx.actor(thread_id)
        if actor.driving:
            await actor.stop(StopCause.INTERRUPT)
        if active_turn_id(self.ctx.db.conn, thread_id) == active:
            run = turns.run_of_turn(self.ctx.db.conn, active)
            if run is not None:  # nothing was driving it (paused, or waiting after a restart)
                TurnFinisher(self.ctx, run.ref).interrupted()
        return EmptyResult()

    # ------------------------------------------------------------ the user's answers

    def approval_response(
        self,
        cmd: Receipt,
        request_id: str,
        decision: Decision,
        scope: ApprovalScope,
        message: str | None = None,
    ) -> EmptyResult:
        with command_unit(self.ctx.db, cmd) as unit:
            record = approvals.decide_approval(
                unit.conn,
                request_id,
                decision=decision,
                scope=scope,
                message=message,
                command_id=cmd.command_id,
            )
            # even "once" may create one: an allowed L2 call lets L2 attach to its origin
            # in this thread (L2 asks once per origin; grants_from_approval decides)
            record_approval_grants(self.ctx, record, scope)
            result = unit.respond(EmptyResult())
        self.ctx.publish.approval_resolved(record)
        self._continue(record.thread_id)
        return result

    def interaction_response(
        self,
        cmd: Receipt,
        interaction_id: str,
        action: InteractionAction,
        values: dict[str, Any],
    ) -> EmptyResult:
        """The user's answer (``accept`` with ``values`` matching the request's schema,
        ``decline`` or ``cancel``)."""
        with command_unit(self.ctx.db, cmd) as unit:
            current = approvals.get_interaction(unit.conn, interaction_id)
            if action == "accept":
                _validate_values(current.schema, values)
            record = approvals.answer_interaction(
                unit.conn,
                interaction_id,
                {"action": action, "values": values},
                cmd.command_id,
            )
            result = unit.respond(EmptyResult())
        self.ctx.publish.interaction_resolved(record, action)
        self._continue(record.thread_id)
        return result

    def resume(
        self,
        cmd: Receipt,
        thread_id: str,
        run_id: str,
        token_budget: int | None = None,
        cost_budget_usd: float | None = None,
    ) -> EmptyResult:
        """Continue a budget-paused or recovered run, optionally with more budget (tokens,
        USD); ``CapabilityError`` for USD when the Turn's cost is unknown."""
        with command_unit(self.ctx.db, cmd) as unit:
            run = turns.get_run(unit.conn, run_id)
            if run.thread_id != thread_id:
                raise NotFound(f"run {run_id!r} is not in thread {thread_id!r}")
            self._check_owner(thread_id, run.id)
            if run.state not in ("budget_paused", "interrupted"):
                raise InvalidState(f"run {run_id!r} is {run.state}; nothing to resume")
            turn = turns.get_turn(unit.conn, run.turn_id)
            if turn.status not in turns.ACTIVE_TURN_STATUSES:
                raise InvalidState(f"the Turn of run {run_id!r} has ended ({turn.status})")
            cursor = load_cursor(run.cursor)
            environment.validate(self.ctx, run, cursor)
            cursor.recovered = False  # this is the continuation claim
            if run.state == "budget_paused":
                cursor = with_more_budget(cursor, turn, token_budget, cost_budget_usd)
            turns.update_run(unit.conn, run.id, state="streaming", cursor=dump_cursor(cursor))
            turns.set_turn_status(unit.conn, turn.id, "running")
            result = unit.respond(EmptyResult())
        self.ctx.publish.run_updated(run.ref, "streaming")
        self.drive(run.ref)
        return result

    # ------------------------------------------------------------ driving

    def drive(self, run: RunRef) -> None:
        driver = RunDriver(self.ctx, run)
        self.ctx.actor(run.thread_id).drive(driver, on_release=driver.slot.give_back)

    def _continue(self, thread_id: str) -> None:
        """Wake the loop waiting for the user, or (after a restart) start one."""
        actor = self.ctx.actor(thread_id)
        if actor.driving:
            actor.wake()
            return
        active = active_turn_id(self.ctx.db.conn, thread_id)
        run = turns.run_of_turn(self.ctx.db.conn, active) if active else None
        if run is not None and run.state in ("awaiting_approval", "awaiting_interaction"):
            self._claim_and_drive(run)

    def _claim_and_drive(self, run: RunRecord) -> None:
        """Continue a recovered run: validate its environment, then drive it; on drift the
        run is not continued and its Turn fails with the ``drift`` error."""
        cursor = load_cursor(run.cursor)
        try:
            environment.validate(self.ctx, run, cursor)
        except DriftError as exc:
            TurnFinisher(self.ctx, run.ref).fail(exc.kind, exc.message)
            return
        if cursor.recovered:
            cursor.recovered = False
            with self.ctx.db.transaction() as conn:
                turns.update_run(conn, run.id, cursor=dump_cursor(cursor))
        self.drive(run.ref)

    def _check_owner(self, thread_id: str, run_id: str) -> None:
        """A recovered run owns its thread until one continuation claim finishes."""
        owner = recovered_owner(self.ctx, thread_id)
        if owner is not None and owner != run_id:
            raise ThreadBusy(f"a recovered run ({owner}) owns this thread; resume or interrupt it")

    # ------------------------------------------------------------ recovery.resolve

    def resolve(self, cmd: Receipt, tool_call_id: str, outcome: RecoveryOutcome) -> EmptyResult:
        """Settle a ``paused_uncertain`` call as the user decided; the run then continues."""
        with command_unit(self.ctx.db, cmd) as unit:
            call = items.get(unit.conn, tool_call_id)
            if call.kind != "toolCall" or call.status != "uncertain":
                raise InvalidState(f"tool call {tool_call_id!r} is not awaiting a decision")
            if outcome == "retry":
                items.reset_call(unit.conn, call.id)
            else:
                items.set_tool_status(unit.conn, call.id, *_resolution(outcome))
            run = turns.run_of_turn(unit.conn, call.turn_id or "")
            assert run is not None
            still_uncertain = items.of_turn(
                unit.conn, call.thread_id, run.turn_id, statuses=("uncertain",)
            )
            if not still_uncertain:
                turns.update_run(unit.conn, run.id, state="executing_tool")
                turns.set_turn_status(unit.conn, run.turn_id, "running")
            result = unit.respond(EmptyResult())
            settled = items.get(unit.conn, call.id)
        self.ctx.publish.item_completed(settled, call.turn_id or "")
        if not still_uncertain:
            self._claim_and_drive(turns.get_run(self.ctx.db.conn, run.id))
        return result

    def start_admitted(self, admission: Admission) -> None:
        """Announce and drive a Turn admitted by another command (``workflow.run``)."""
        self._started(admission)

    def _started(self, admission: Admission) -> None:
        publish = self.ctx.publish
        thread_id, turn_id = admission.thread_id, admission.turn_id
        publish.turn_started(thread_id, turn_id, admission.run_id, admission.user_item.id)
        publish.item_started(admission.user_item, turn_id)
        publish.item_completed(admission.user_item, turn_id)
        publish.thread_updated(threads.get(self.ctx.db.conn, thread_id))  # status: running
        run = RunRef(thread_id, turn_id, admission.run_id)
        publish.run_updated(run, "streaming")
        self.drive(run)
        if admission.first_turn and admission.title_changed:
            self.ctx.on_first_turn(thread_id, admission.user_item.text or "")

    def _queue_changed(self, thread_id: str) -> None:
        self.ctx.publish.queue_updated(thread_id, steering.queue(self.ctx.db.conn, thread_id))


def recovered_owner(ctx: EngineContext, thread_id: str) -> str | None:
    """The id of the recovered run that owns ``thread_id``, if any."""
    active = active_turn_id(ctx.db.conn, thread_id)
    run = turns.run_of_turn(ctx.db.conn, active) if active else None
    if run is not None and load_cursor(run.cursor).recovered:
        return run.id
    return None


def _resolution(outcome: str) -> tuple[ToolCallStatus, dict[str, Any]]:
    """The status and result of an uncertain call the user settled (``succeeded`` or
    ``failed``; ``retry`` resets the call instead)."""
    if outcome == "succeeded":
        return "succeeded", {
            "content": "The user confirmed that this call succeeded.",
            "isError": False,
        }
    return "failed", {
        "content": "The user reported that this call failed; it had no effect.",
        "isError": True,
    }


def _validate_values(schema: dict[str, Any], values: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = [
        {
            "path": "$.params.values" + "".join(f"[{p!r}]" for p in e.absolute_path),
            "message": e.message,
        }
        for e in validator.iter_errors(values)
    ]
    if errors:
        raise InvalidParams("the answer does not match the question's schema", errors)
