"""**extension** Workflow ops (issue 29): propose a draft from a finished Turn, save, list,
get, update, delete, export and import workflows; run one without the model; its schedule
and the ``workflow.due`` check the worker makes when its alarm fires."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from panelot_host.protocol.common import CommandId, Id, Timestamp
from panelot_host.protocol.ops._base import Params, Result
from panelot_host.protocol.workflows import (
    Schedule,
    Workflow,
    WorkflowDefinition,
    WorkflowDocument,
    WorkflowParameter,
    WorkflowSchedule,
)

WorkflowName = Annotated[str, Meta(min_length=1, max_length=200)]
UtcOffset = Annotated[
    int,
    Meta(
        ge=-14 * 60,
        le=14 * 60,
        description="Minutes east of UTC of the browser's local time "
        "(JavaScript: -new Date().getTimezoneOffset())",
    ),
]


class WorkflowResult(Result, kw_only=True):
    """``{workflow}``."""

    workflow: Workflow


class WorkflowProposeParams(Params, kw_only=True):
    """A draft from the finished Turn ``turnId`` of ``threadId``; nothing is stored."""

    thread_id: Id
    turn_id: Id


class WorkflowProposeResult(Result, kw_only=True):
    """``draft``: what ``workflow.save`` takes, for the user to rename and fix first;
    ``skipped``: how many of the Turn's tool calls were left out (reads, snapshots, failed
    calls, tools that are not the browser's)."""

    draft: WorkflowDefinition
    skipped: int = 0


class WorkflowSaveParams(Params, kw_only=True):
    command_id: CommandId
    workflow: WorkflowDefinition


WorkflowSaveResult = WorkflowResult


class WorkflowListParams(Params, kw_only=True):
    pass


class WorkflowListResult(Result, kw_only=True):
    """The profile's workflows, the most recently updated first."""

    workflows: list[Workflow]


class WorkflowGetParams(Params, kw_only=True):
    workflow_id: Id


WorkflowGetResult = WorkflowResult


class WorkflowUpdateParams(Params, kw_only=True):
    """Change what is given: ``name``, ``goal``, ``parameters`` (the whole list),
    ``removeSteps`` (0-based indexes of the current steps)."""

    command_id: CommandId
    workflow_id: Id
    name: WorkflowName | None = None
    goal: str | None = None
    parameters: list[WorkflowParameter] | None = None
    remove_steps: list[Annotated[int, Meta(ge=0)]] = []


WorkflowUpdateResult = WorkflowResult


class WorkflowDeleteParams(Params, kw_only=True):
    command_id: CommandId
    workflow_id: Id


class WorkflowDeleteResult(Result, kw_only=True):
    pass


class WorkflowExportParams(Params, kw_only=True):
    workflow_id: Id


class WorkflowExportResult(Result, kw_only=True):
    """``document``: valid against ``schema/workflow.schema.json``."""

    document: WorkflowDocument


class WorkflowImportParams(Params, kw_only=True):
    """``document``: an export document; checked against its schema before anything is
    stored (``invalid_params`` with ``data.errors`` otherwise). A new workflow is made
    (a new id), even when one of the same name exists."""

    command_id: CommandId
    document: dict[str, Any]


WorkflowImportResult = WorkflowResult


class WorkflowRunParams(Params, kw_only=True):
    """Run a workflow in ``threadId`` (none: a new thread named after the workflow).
    ``parameters``: values by name (a missing one takes its default)."""

    command_id: CommandId
    workflow_id: Id
    thread_id: Id | None = None
    parameters: dict[str, str] = {}
    trigger: Literal["user", "schedule"] = "user"


class WorkflowRunResult(Result, kw_only=True):
    """The thread the run is in and its Turn (streamed as any Turn)."""

    thread_id: Id
    turn_id: Id


class WorkflowScheduleSetParams(Params, kw_only=True):
    """Set (or, with ``schedule`` null, remove) a workflow's schedule."""

    command_id: CommandId
    workflow_id: Id
    schedule: Schedule | None
    paused: bool = False
    utc_offset_minutes: UtcOffset = 0


class WorkflowScheduleSetResult(Result, kw_only=True):
    """The schedule as stored (null when removed)."""

    schedule: WorkflowSchedule | None


class WorkflowScheduleListParams(Params, kw_only=True):
    pass


class WorkflowScheduleListResult(Result, kw_only=True):
    """Every schedule, with ``nextRunAt``; ``nextDueAt``: the earliest of them (null:
    nothing is scheduled), when the worker's alarm should fire next."""

    schedules: list[WorkflowSchedule]
    next_due_at: Timestamp | None = None


class DueRun(Result, kw_only=True):
    """A run to start now (``workflow.run`` with ``trigger: "schedule"`` in ``threadId``)."""

    workflow_id: Id
    name: str
    thread_id: Id | None = None
    due_at: Timestamp


class MissedRun(Result, kw_only=True):
    """Runs that fell due while nothing called ``workflow.due`` (the browser was closed):
    reported, never run. ``count`` of them, the first and the last."""

    workflow_id: Id
    name: str
    count: int
    first_at: Timestamp
    last_at: Timestamp


class WorkflowDueParams(Params, kw_only=True):
    """What is due at ``now`` (ms since the epoch; default: the host's clock). The
    occurrences since the last check are recorded as handled: asking again gives nothing
    twice. ``graceMinutes``: how late an occurrence may still be run."""

    command_id: CommandId
    now: Annotated[int, Meta(ge=0)] | None = None
    grace_minutes: Annotated[int, Meta(ge=0, le=24 * 60)] = 15


class WorkflowDueResult(Result, kw_only=True):
    """``due``: start each once; ``missed``: tell the user; ``nextDueAt``: set the alarm."""

    due: list[DueRun]
    missed: list[MissedRun]
    next_due_at: Timestamp | None = None
