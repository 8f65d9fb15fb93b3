"""Saved workflows and their schedules (``workflow``, ``workflow_schedule``), per profile
like threads. The definition is stored as the protocol's ``WorkflowDefinition`` JSON."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from panelot_host.errors import NotFound
from panelot_host.protocol.workflows import Schedule, WorkflowDefinition

_encode = msgspec.json.Encoder().encode
_decode_definition = msgspec.json.Decoder(WorkflowDefinition).decode
_decode_schedule = msgspec.json.Decoder(Schedule).decode


class WorkflowRecord(msgspec.Struct, frozen=True):
    id: str
    definition: WorkflowDefinition
    created_at: int
    updated_at: int


class ScheduleRecord(msgspec.Struct, frozen=True):
    workflow_id: str
    schedule: Schedule
    paused: bool
    utc_offset_minutes: int
    anchor_at: int
    checked_at: int
    last_run_at: int | None = None
    thread_id: str | None = None


_COLUMNS = "id, definition, created_at, updated_at"


def _record(row: Any) -> WorkflowRecord:
    return WorkflowRecord(row[0], _decode_definition(row[1]), row[2], row[3])


def insert(conn: sqlite3.Connection, record: WorkflowRecord) -> None:
    conn.execute(
        f"INSERT INTO workflow ({_COLUMNS}, name) VALUES (?, ?, ?, ?, ?)",
        (
            record.id,
            _encode(record.definition).decode(),
            record.created_at,
            record.updated_at,
            record.definition.name,
        ),
    )


def update(
    conn: sqlite3.Connection, workflow_id: str, definition: WorkflowDefinition, at: int
) -> None:
    """Replace the definition; raises ``NotFound``."""
    cursor = conn.execute(
        "UPDATE workflow SET definition = ?, name = ?, updated_at = ? WHERE id = ?",
        (_encode(definition).decode(), definition.name, at, workflow_id),
    )
    if cursor.rowcount == 0:
        raise NotFound(f"workflow {workflow_id!r} not found")


def get(conn: sqlite3.Connection, workflow_id: str) -> WorkflowRecord:
    """Raises ``NotFound``."""
    row = conn.execute(f"SELECT {_COLUMNS} FROM workflow WHERE id = ?", (workflow_id,)).fetchone()
    if row is None:
        raise NotFound(f"workflow {workflow_id!r} not found")
    return _record(row)


def list_all(conn: sqlite3.Connection) -> list[WorkflowRecord]:
    """Every workflow, the most recently updated first."""
    rows = conn.execute(f"SELECT {_COLUMNS} FROM workflow ORDER BY updated_at DESC, id DESC")
    return [_record(row) for row in rows]


def delete(conn: sqlite3.Connection, workflow_id: str) -> None:
    """Delete the workflow and its schedule; raises ``NotFound``."""
    conn.execute("DELETE FROM workflow_schedule WHERE workflow_id = ?", (workflow_id,))
    if conn.execute("DELETE FROM workflow WHERE id = ?", (workflow_id,)).rowcount == 0:
        raise NotFound(f"workflow {workflow_id!r} not found")


# ---------------------------------------------------------------- schedules

_SCHEDULE_COLUMNS = (
    "workflow_id, schedule, paused, utc_offset_minutes, anchor_at, checked_at, last_run_at, "
    "thread_id"
)


def _schedule(row: Any) -> ScheduleRecord:
    return ScheduleRecord(
        workflow_id=row[0],
        schedule=_decode_schedule(row[1]),
        paused=bool(row[2]),
        utc_offset_minutes=row[3],
        anchor_at=row[4],
        checked_at=row[5],
        last_run_at=row[6],
        thread_id=row[7],
    )


def put_schedule(conn: sqlite3.Connection, record: ScheduleRecord) -> None:
    """Store the workflow's schedule, replacing any."""
    conn.execute(
        f"INSERT OR REPLACE INTO workflow_schedule ({_SCHEDULE_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            record.workflow_id,
            _encode(record.schedule).decode(),
            int(record.paused),
            record.utc_offset_minutes,
            record.anchor_at,
            record.checked_at,
            record.last_run_at,
            record.thread_id,
        ),
    )


def delete_schedule(conn: sqlite3.Connection, workflow_id: str) -> None:
    conn.execute("DELETE FROM workflow_schedule WHERE workflow_id = ?", (workflow_id,))


def get_schedule(conn: sqlite3.Connection, workflow_id: str) -> ScheduleRecord | None:
    row = conn.execute(
        f"SELECT {_SCHEDULE_COLUMNS} FROM workflow_schedule WHERE workflow_id = ?",
        (workflow_id,),
    ).fetchone()
    return None if row is None else _schedule(row)


def schedules(conn: sqlite3.Connection) -> list[ScheduleRecord]:
    rows = conn.execute(f"SELECT {_SCHEDULE_COLUMNS} FROM workflow_schedule ORDER BY workflow_id")
    return [_schedule(row) for row in rows]
