"""Steering messages and the per-thread queue of later turns."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from panelot_host.errors import NotFound, QueueFull
from panelot_host.store.ids import now_ms
from panelot_host.store.records import QueueEntryRecord, SteeringRecord

QUEUE_LIMIT = 8
_encode = msgspec.json.Encoder().encode
_list_decode = msgspec.json.Decoder(list[Any]).decode
_STEER_COLUMNS = "id, thread_id, turn_id, text, state, created_at, admitted_at_call, attachments"


def _steering(row: Any) -> SteeringRecord:
    return SteeringRecord(
        id=row[0],
        thread_id=row[1],
        turn_id=row[2],
        text=row[3],
        state=row[4],
        created_at=row[5],
        admitted_at_call=row[6],
        attachments=_list_decode(row[7]) if row[7] else [],
    )


def add_steering(
    conn: sqlite3.Connection,
    *,
    steering_id: str,
    thread_id: str,
    turn_id: str,
    text: str,
    attachments: list[Any] | None = None,
) -> SteeringRecord:
    row = conn.execute(
        f"INSERT INTO steering ({_STEER_COLUMNS}) VALUES (?, ?, ?, ?, 'pending', ?, NULL, ?) "
        f"RETURNING {_STEER_COLUMNS}",
        (
            steering_id,
            thread_id,
            turn_id,
            text,
            now_ms(),
            _encode(attachments).decode() if attachments else None,
        ),
    ).fetchone()
    return _steering(row)


def pending_steering(conn: sqlite3.Connection, turn_id: str) -> list[SteeringRecord]:
    """Acknowledged steering of ``turn_id`` not yet seen by a model call, oldest first."""
    rows = conn.execute(
        f"SELECT {_STEER_COLUMNS} FROM steering WHERE turn_id = ? AND state = 'pending' "
        "ORDER BY created_at, rowid",
        (turn_id,),
    ).fetchall()
    return [_steering(r) for r in rows]


def pending_steering_upto(
    conn: sqlite3.Connection, turn_id: str, cutoff_rowid: int
) -> list[SteeringRecord]:
    """Pending steering admitted at or before the cutoff (a rowid captured before a call)."""
    rows = conn.execute(
        f"SELECT {_STEER_COLUMNS} FROM steering WHERE turn_id = ? AND state = 'pending' "
        "AND rowid <= ? ORDER BY rowid",
        (turn_id, cutoff_rowid),
    ).fetchall()
    return [_steering(r) for r in rows]


def steering_cutoff(conn: sqlite3.Connection) -> int:
    """The admission cutoff: the highest steering rowid stored so far."""
    row = conn.execute("SELECT coalesce(max(rowid), 0) FROM steering").fetchone()
    return int(row[0])


def mark_admitted(conn: sqlite3.Connection, steering_id: str, call_number: int) -> None:
    conn.execute(
        "UPDATE steering SET state = 'admitted', admitted_at_call = ? WHERE id = ?",
        (call_number, steering_id),
    )


def queue(conn: sqlite3.Connection, thread_id: str) -> list[QueueEntryRecord]:
    rows = conn.execute(
        "SELECT id, thread_id, position, text, created_at FROM queue_entry "
        "WHERE thread_id = ? ORDER BY position",
        (thread_id,),
    ).fetchall()
    return [QueueEntryRecord(*r) for r in rows]


def enqueue(
    conn: sqlite3.Connection, *, entry_id: str, thread_id: str, text: str
) -> QueueEntryRecord:
    """Append to the thread's queue; raises ``QueueFull`` past eight entries."""
    entries = queue(conn, thread_id)
    if len(entries) >= QUEUE_LIMIT:
        raise QueueFull(f"the thread already has {QUEUE_LIMIT} queued messages")
    entry = QueueEntryRecord(
        entry_id, thread_id, entries[-1].position + 1 if entries else 0, text, now_ms()
    )
    conn.execute(
        "INSERT INTO queue_entry (id, thread_id, position, text, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (entry.id, entry.thread_id, entry.position, entry.text, entry.created_at),
    )
    return entry


def update_entry(conn: sqlite3.Connection, thread_id: str, entry_id: str, text: str) -> None:
    cur = conn.execute(
        "UPDATE queue_entry SET text = ? WHERE id = ? AND thread_id = ?",
        (text, entry_id, thread_id),
    )
    if cur.rowcount == 0:
        raise NotFound(f"no queued entry {entry_id!r} in this thread")


def remove_entry(conn: sqlite3.Connection, thread_id: str, entry_id: str) -> None:
    cur = conn.execute(
        "DELETE FROM queue_entry WHERE id = ? AND thread_id = ?", (entry_id, thread_id)
    )
    if cur.rowcount == 0:
        raise NotFound(f"no queued entry {entry_id!r} in this thread")


def pop_front(conn: sqlite3.Connection, thread_id: str) -> QueueEntryRecord | None:
    entries = queue(conn, thread_id)
    if not entries:
        return None
    conn.execute("DELETE FROM queue_entry WHERE id = ?", (entries[0].id,))
    return entries[0]


def move_entry(conn: sqlite3.Connection, thread_id: str, entry_id: str, position: int) -> None:
    """Move a queued entry to ``position`` (clamped); raises ``NotFound``."""
    ids = [e.id for e in queue(conn, thread_id)]
    if entry_id not in ids:
        raise NotFound(f"no queued entry {entry_id!r} in this thread")
    ids.remove(entry_id)
    ids.insert(min(position, len(ids)), entry_id)
    conn.executemany("UPDATE queue_entry SET position = ? WHERE id = ?", list(enumerate(ids)))
