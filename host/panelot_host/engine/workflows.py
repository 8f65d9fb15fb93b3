"""The ``workflow.*`` commands (issue 29): propose a draft from a finished Turn, save, list,
get, update, delete, export and import workflows, run one (a Turn the player drives:
``workflow_run``), and its schedule with the ``workflow.due`` check."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from panelot_host.engine import views
from panelot_host.engine.admission import TurnRequest, admit
from panelot_host.engine.commands import Receipt, command_unit
from panelot_host.engine.context import EngineContext
from panelot_host.engine.turn_ops import TurnService
from panelot_host.engine.workflow_draft import propose
from panelot_host.engine.workflow_run import workflow_context
from panelot_host.engine.workflow_schedule import check, next_after
from panelot_host.errors import InvalidParams, InvalidState, NotFound
from panelot_host.protocol import ops
from panelot_host.protocol.workflows import (
    WORKFLOW_FORMAT,
    WORKFLOW_FORMAT_VERSION,
    Schedule,
    Workflow,
    WorkflowDefinition,
    WorkflowDocument,
    WorkflowParameter,
    WorkflowSchedule,
)
from panelot_host.store import items, threads, turns, workflows
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.workflows import ScheduleRecord, WorkflowRecord

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def schedule_view(record: ScheduleRecord) -> WorkflowSchedule:
    upcoming = None
    if not record.paused:
        upcoming = next_after(
            record.schedule, record.anchor_at, record.utc_offset_minutes, record.checked_at
        )
    return WorkflowSchedule(
        workflow_id=record.workflow_id,
        schedule=record.schedule,
        paused=record.paused,
        utc_offset_minutes=record.utc_offset_minutes,
        next_run_at=views.iso(upcoming) if upcoming is not None else None,
        last_run_at=views.iso(record.last_run_at) if record.last_run_at else None,
        thread_id=record.thread_id,
    )


def workflow_view(record: WorkflowRecord, schedule: ScheduleRecord | None) -> Workflow:
    d = record.definition
    return Workflow(
        id=record.id,
        name=d.name,
        goal=d.goal,
        parameters=d.parameters,
        steps=d.steps,
        source=d.source,
        created_at=views.iso(record.created_at),
        updated_at=views.iso(record.updated_at),
        schedule=schedule_view(schedule) if schedule is not None else None,
    )


def check_definition(definition: WorkflowDefinition, where: str = "$") -> None:
    """Raise ``InvalidParams`` when a step names a parameter that is not declared, or two
    parameters share a name."""
    names = [p.name for p in definition.parameters]
    errors = [
        {"path": f"{where}.parameters", "message": f"parameter {n!r} is declared twice"}
        for n in sorted({n for n in names if names.count(n) > 1})
    ]
    for index, step in enumerate(definition.steps):
        used = _PLACEHOLDER.findall(msgspec.json.encode(step).decode())
        errors += [
            {"path": f"{where}.steps[{index}]", "message": f"{{{{{n}}}}} names no parameter"}
            for n in used
            if n not in names
        ]
    if errors:
        raise InvalidParams("the workflow is not valid: " + errors[0]["message"], errors)


class WorkflowService:
    """Workflows of the profile; runs start Turns through ``turns``."""

    def __init__(self, ctx: EngineContext, turns_service: TurnService) -> None:
        self.ctx = ctx
        self._turns = turns_service

    def _view(self, workflow_id: str) -> Workflow:
        conn = self.ctx.db.conn
        return workflow_view(
            workflows.get(conn, workflow_id), workflows.get_schedule(conn, workflow_id)
        )

    # ------------------------------------------------------------ drafts and storage

    def propose(self, thread_id: str, turn_id: str) -> ops.WorkflowProposeResult:
        """A draft from a finished Turn; raises ``NotFound``, or ``InvalidState`` while it runs."""
        conn = self.ctx.db.conn
        turn = turns.get_turn(conn, turn_id)
        if turn.thread_id != thread_id:
            raise NotFound(f"turn {turn_id!r} is not in thread {thread_id!r}")
        if turn.status in turns.ACTIVE_TURN_STATUSES:
            raise InvalidState("the Turn is still running: save it as a workflow once it ended")
        draft = propose(thread_id, turn_id, items.of_turn(conn, thread_id, turn_id))
        return ops.WorkflowProposeResult(draft=draft.definition, skipped=draft.skipped)

    def save(self, cmd: Receipt, definition: WorkflowDefinition) -> ops.WorkflowResult:
        check_definition(definition, "$.params.workflow")
        return self._insert(cmd, definition)

    def _insert(self, cmd: Receipt, definition: WorkflowDefinition) -> ops.WorkflowResult:
        now = now_ms()
        record = WorkflowRecord(new_id("wfl"), definition, now, now)
        with command_unit(self.ctx.db, cmd) as unit:
            workflows.insert(unit.conn, record)
            result = unit.respond(ops.WorkflowResult(workflow=workflow_view(record, None)))
        return result

    def list_all(self) -> ops.WorkflowListResult:
        conn = self.ctx.db.conn
        scheduled = {s.workflow_id: s for s in workflows.schedules(conn)}
        found = [workflow_view(r, scheduled.get(r.id)) for r in workflows.list_all(conn)]
        return ops.WorkflowListResult(workflows=found)

    def get(self, workflow_id: str) -> ops.WorkflowResult:
        return ops.WorkflowResult(workflow=self._view(workflow_id))

    def update(
        self,
        cmd: Receipt,
        workflow_id: str,
        *,
        name: str | None = None,
        goal: str | None = None,
        parameters: list[WorkflowParameter] | None = None,
        remove_steps: list[int] | None = None,
    ) -> ops.WorkflowResult:
        """Rename, edit the goal or the parameters, remove steps (by index)."""
        with command_unit(self.ctx.db, cmd) as unit:
            current = workflows.get(unit.conn, workflow_id).definition
            gone = set(remove_steps or [])
            if any(i >= len(current.steps) for i in gone):
                raise InvalidParams(
                    f"the workflow has {len(current.steps)} steps",
                    [{"path": "$.params.removeSteps", "message": "no such step"}],
                )
            changed = msgspec.structs.replace(
                current,
                name=name.strip() if name else current.name,
                goal=current.goal if goal is None else goal,
                parameters=current.parameters if parameters is None else parameters,
                steps=[s for i, s in enumerate(current.steps) if i not in gone],
            )
            check_definition(changed, "$.params")
            workflows.update(unit.conn, workflow_id, changed, now_ms())
            record = workflows.get(unit.conn, workflow_id)
            view = workflow_view(record, workflows.get_schedule(unit.conn, workflow_id))
            result = unit.respond(ops.WorkflowResult(workflow=view))
        return result

    def delete(self, cmd: Receipt, workflow_id: str) -> ops.WorkflowDeleteResult:
        with command_unit(self.ctx.db, cmd) as unit:
            workflows.delete(unit.conn, workflow_id)
            result = unit.respond(ops.WorkflowDeleteResult())
        return result

    def export(self, workflow_id: str) -> ops.WorkflowExportResult:
        record = workflows.get(self.ctx.db.conn, workflow_id)
        document = WorkflowDocument(
            format=WORKFLOW_FORMAT,
            version=WORKFLOW_FORMAT_VERSION,
            workflow=record.definition,
            exported_at=views.iso(now_ms()),
        )
        return ops.WorkflowExportResult(document=document)

    def import_(self, cmd: Receipt, document: dict[str, Any]) -> ops.WorkflowResult:
        """A new workflow from an export document; ``InvalidParams`` (nothing stored)
        when it does not follow ``schema/workflow.schema.json``."""
        definition = decode_document(document).workflow
        check_definition(definition, "$.params.document.workflow")
        return self._insert(cmd, definition)

    # ------------------------------------------------------------ runs

    def run(
        self,
        cmd: Receipt,
        workflow_id: str,
        thread_id: str | None,
        parameters: dict[str, str],
        trigger: str = "user",
    ) -> ops.WorkflowRunResult:
        """Start a Turn the workflow's player drives, in ``thread_id`` or a new thread
        named after the workflow. Raises ``InvalidParams`` for an unknown parameter and
        ``TurnActive`` when a Turn runs in the thread."""
        with command_unit(self.ctx.db, cmd) as unit:
            record = workflows.get(unit.conn, workflow_id)
            definition = record.definition
            values = _values(definition, parameters)
            if thread_id is None:
                thread_id = threads.create(
                    unit.conn, title=definition.name[:200], title_source="user"
                ).id
            else:
                threads.get(unit.conn, thread_id)
            if trigger == "schedule":
                _remember_thread(unit.conn, workflow_id, thread_id)
            request = TurnRequest(
                text=_run_text(definition, values),
                workflow=workflow_context(workflow_id, definition, values, trigger),
            )
            admission = admit(self.ctx, unit.conn, thread_id, request)
            result = unit.respond(
                ops.WorkflowRunResult(thread_id=thread_id, turn_id=admission.turn_id)
            )
        self._turns.start_admitted(admission)
        return result

    # ------------------------------------------------------------ schedules

    def set_schedule(
        self, cmd: Receipt, workflow_id: str, schedule: Schedule | None, paused: bool, offset: int
    ) -> ops.WorkflowScheduleSetResult:
        with command_unit(self.ctx.db, cmd) as unit:
            workflows.get(unit.conn, workflow_id)
            if schedule is None:
                workflows.delete_schedule(unit.conn, workflow_id)
                return_value = None
            else:
                before = workflows.get_schedule(unit.conn, workflow_id)
                now = now_ms()
                # the same schedule paused or resumed keeps its rhythm; nothing that fell
                # due meanwhile is run or reported
                same = before is not None and before.schedule == schedule
                record = ScheduleRecord(
                    workflow_id=workflow_id,
                    schedule=schedule,
                    paused=paused,
                    utc_offset_minutes=offset,
                    anchor_at=before.anchor_at if same and before else now,
                    checked_at=now,
                    last_run_at=before.last_run_at if before else None,
                    thread_id=before.thread_id if before else None,
                )
                workflows.put_schedule(unit.conn, record)
                return_value = schedule_view(record)
            result = unit.respond(ops.WorkflowScheduleSetResult(schedule=return_value))
        return result

    def list_schedules(self) -> ops.WorkflowScheduleListResult:
        shown = [schedule_view(s) for s in workflows.schedules(self.ctx.db.conn)]
        upcoming = sorted(s.next_run_at for s in shown if s.next_run_at is not None)
        return ops.WorkflowScheduleListResult(
            schedules=shown, next_due_at=upcoming[0] if upcoming else None
        )

    def due(self, cmd: Receipt, now: int | None, grace_minutes: int) -> ops.WorkflowDueResult:
        """The runs due at ``now`` and those missed since the last check; both recorded,
        so they are handed out once."""
        at = now if now is not None else now_ms()
        due: list[ops.DueRun] = []
        missed: list[ops.MissedRun] = []
        with command_unit(self.ctx.db, cmd) as unit:
            for record in workflows.schedules(unit.conn):
                name = workflows.get(unit.conn, record.workflow_id).definition.name
                found = check(
                    record.schedule, record.anchor_at, record.utc_offset_minutes,
                    record.checked_at, at, grace_minutes * 60_000,
                )  # fmt: skip
                if record.paused:
                    found = msgspec.structs.replace(found, due_at=None, missed=[])
                if found.due_at is not None:
                    due.append(ops.DueRun(
                        workflow_id=record.workflow_id, name=name, thread_id=record.thread_id,
                        due_at=views.iso(found.due_at),
                    ))  # fmt: skip
                if found.missed:
                    missed.append(ops.MissedRun(
                        workflow_id=record.workflow_id, name=name, count=len(found.missed),
                        first_at=views.iso(found.missed[0]), last_at=views.iso(found.missed[-1]),
                    ))  # fmt: skip
                workflows.put_schedule(unit.conn, msgspec.structs.replace(
                    record, checked_at=max(at, record.checked_at),
                    last_run_at=found.due_at or record.last_run_at,
                ))  # fmt: skip
            upcoming = [
                next_after(r.schedule, r.anchor_at, r.utc_offset_minutes, r.checked_at)
                for r in workflows.schedules(unit.conn)
                if not r.paused
            ]
            result = unit.respond(ops.WorkflowDueResult(
                due=due, missed=missed,
                next_due_at=views.iso(min(upcoming)) if upcoming else None,
            ))  # fmt: skip
        return result


def decode_document(document: dict[str, Any]) -> WorkflowDocument:
    """The export document ``document``; raises ``InvalidParams`` naming what is wrong."""
    try:
        return msgspec.convert(document, WorkflowDocument)
    except msgspec.ValidationError as exc:
        text = str(exc)
        path = text.rsplit(" - at `", 1)[-1].rstrip("`") if " - at `" in text else "$"
        path = "$.params.document" + path.removeprefix("$")
        raise InvalidParams(
            f"not a Panelot workflow document (version {WORKFLOW_FORMAT_VERSION}): {text}",
            [{"path": path, "message": text.split(" - at `")[0]}],
        ) from None


def _values(definition: WorkflowDefinition, given: dict[str, str]) -> dict[str, str]:
    names = {p.name for p in definition.parameters}
    unknown = sorted(set(given) - names)
    if unknown:
        raise InvalidParams(
            f"the workflow has no parameter {unknown[0]!r}",
            [{"path": f"$.params.parameters.{n}", "message": "no such parameter"} for n in unknown],
        )
    return {p.name: given.get(p.name, p.default) for p in definition.parameters}


def _run_text(definition: WorkflowDefinition, values: dict[str, str]) -> str:
    text = f'Run the workflow "{definition.name}"'
    if values:
        text += " with " + ", ".join(f"{k} = {v!r}" for k, v in values.items())
    return text + "."


def _remember_thread(conn: Any, workflow_id: str, thread_id: str) -> None:
    record = workflows.get_schedule(conn, workflow_id)
    if record is not None and record.thread_id != thread_id:
        workflows.put_schedule(conn, msgspec.structs.replace(record, thread_id=thread_id))
