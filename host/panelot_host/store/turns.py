"""Turns, runs and per-call usage.

The run row carries the state machine (``vocabulary.RUN_TRANSITIONS``) and the cursor that
is enough to continue after a crash; every transition is written together with the rows it
implies, in the caller's transaction. ``update_run`` is the one writer of a run's state and
raises ``IllegalTransition`` for a move the table does not allow.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from panelot_host.errors import IllegalTransition, NotFound
from panelot_host.store.ids import now_ms
from panelot_host.store.records import RunRecord, TurnRecord, TurnUsage, UsageRecord
from panelot_host.vocabulary import ACTIVE_TURN_STATUSES as ACTIVE_TURN_STATUSES
from panelot_host.vocabulary import (
    FINAL_RUN_STATES,
    INITIAL_RUN_STATES,
    RUN_STATES,
    RunState,
    StopReason,
    TurnStatus,
    run_sources,
)

_encode = msgspec.json.Encoder().encode
_dict_decode = msgspec.json.Decoder(dict[str, Any]).decode
_TURN_COLUMNS = (
    "id, thread_id, status, stop_reason, error, user_item_id, context, input_tokens, "
    "output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, cost_known, started_at, "
    "ended_at, reasoning_tokens"
)
_RUN_COLUMNS = "id, turn_id, thread_id, state, cursor, environment, environment_digest, updated_at"
# One statement per target state: the move happens only from a state the table allows.
_MOVE_RUN = {
    target: (
        "UPDATE run SET state = ?, cursor = coalesce(?, cursor), updated_at = ? "
        f"WHERE id = ? AND state IN ({', '.join(repr(s) for s in run_sources(target))})"
    )
    for target in RUN_STATES
}


def _turn(row: Any) -> TurnRecord:
    usage = TurnUsage(
        input_tokens=row[7],
        output_tokens=row[8],
        cache_read_tokens=row[9],
        cache_write_tokens=row[10],
        cost_usd=row[11] if row[12] else None,
        reasoning_tokens=row[15],
    )
    return TurnRecord(
        id=row[0],
        thread_id=row[1],
        status=row[2],
        stop_reason=row[3],
        error=_dict_decode(row[4]) if row[4] else None,
        user_item_id=row[5],
        context=_dict_decode(row[6]),
        usage=usage,
        started_at=row[13],
        ended_at=row[14],
    )


def _run(row: Any) -> RunRecord:
    return RunRecord(
        id=row[0],
        turn_id=row[1],
        thread_id=row[2],
        state=row[3],
        cursor=_dict_decode(row[4]),
        environment=_dict_decode(row[5]) if row[5] else None,
        environment_digest=row[6],
        updated_at=row[7],
    )


def insert_turn(
    conn: sqlite3.Connection,
    *,
    turn_id: str,
    thread_id: str,
    user_item_id: str | None,
    context: dict[str, Any],
    status: TurnStatus = "running",
) -> None:
    conn.execute(
        "INSERT INTO turn (id, thread_id, status, user_item_id, context, cost_usd, started_at) "
        "VALUES (?, ?, ?, ?, ?, 0.0, ?)",
        (turn_id, thread_id, status, user_item_id, _encode(context).decode(), now_ms()),
    )


def get_turn(conn: sqlite3.Connection, turn_id: str) -> TurnRecord:
    row = conn.execute(f"SELECT {_TURN_COLUMNS} FROM turn WHERE id = ?", (turn_id,)).fetchone()
    if row is None:
        raise NotFound(f"no turn {turn_id!r}")
    return _turn(row)


def last_turn(conn: sqlite3.Connection, thread_id: str) -> TurnRecord | None:
    row = conn.execute(
        f"SELECT {_TURN_COLUMNS} FROM turn WHERE thread_id = ? "
        "ORDER BY started_at DESC, rowid DESC LIMIT 1",
        (thread_id,),
    ).fetchone()
    return _turn(row) if row else None


_USAGE_COLUMNS = _TURN_COLUMNS.replace("context", "'{}'")


def of_thread(conn: sqlite3.Connection, thread_id: str) -> list[TurnRecord]:
    """Every Turn of the thread, oldest first, without its ``context`` (read and decoded
    for every Turn, it was most of the cost): for showing usage per Turn."""
    rows = conn.execute(
        f"SELECT {_USAGE_COLUMNS} FROM turn WHERE thread_id = ? ORDER BY started_at, rowid",
        (thread_id,),
    ).fetchall()
    return [_turn(row) for row in rows]


def set_turn_status(
    conn: sqlite3.Connection,
    turn_id: str,
    status: TurnStatus,
    *,
    stop_reason: StopReason | None = None,
    error: dict[str, str] | None = None,
) -> None:
    ended = now_ms() if status not in ACTIVE_TURN_STATUSES else None
    conn.execute(
        "UPDATE turn SET status = ?, stop_reason = coalesce(?, stop_reason), "
        "error = coalesce(?, error), ended_at = ? WHERE id = ?",
        (status, stop_reason, _encode(error).decode() if error else None, ended, turn_id),
    )


def update_turn_context(conn: sqlite3.Connection, turn_id: str, context: dict[str, Any]) -> None:
    conn.execute("UPDATE turn SET context = ? WHERE id = ?", (_encode(context).decode(), turn_id))


def record_usage(conn: sqlite3.Connection, usage: UsageRecord) -> None:
    """Store one model call's usage and add it to its turn (an unknown cost stays unknown)."""
    conn.execute(
        "INSERT INTO usage (thread_id, turn_id, run_id, model, input_tokens, output_tokens, "
        "cache_read_tokens, cache_write_tokens, cost_usd, created_at, reasoning_tokens) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            usage.thread_id,
            usage.turn_id,
            usage.run_id,
            usage.model,
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            usage.cost_usd,
            usage.created_at,
            usage.reasoning_tokens,
        ),
    )
    conn.execute(
        "UPDATE turn SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
        "cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?, "
        "reasoning_tokens = reasoning_tokens + ?, "
        "cost_usd = cost_usd + ?, cost_known = cost_known AND ? WHERE id = ?",
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            usage.reasoning_tokens,
            usage.cost_usd or 0.0,
            usage.cost_usd is not None,
            usage.turn_id,
        ),
    )


def insert_run(
    conn: sqlite3.Connection,
    *,
    run_id: str,
    turn_id: str,
    thread_id: str,
    state: RunState,
    cursor: dict[str, Any],
) -> None:
    if state not in INITIAL_RUN_STATES:
        raise IllegalTransition(f"a run cannot start {state}")
    conn.execute(
        f"INSERT INTO run ({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, NULL, ?)",
        (run_id, turn_id, thread_id, state, _encode(cursor).decode(), now_ms()),
    )


ENDED_RUN_STATES: frozenset[RunState] = FINAL_RUN_STATES | {"interrupted"}
"""The states a Run stored as it ended may have (an imported thread's)."""


def insert_ended_run(conn: sqlite3.Connection, record: RunRecord) -> None:
    """Store a Run that has ended (a thread's import: the state as exported, kept with when
    it was last updated); ``IllegalTransition`` for a state a Run still works in."""
    if record.state not in ENDED_RUN_STATES:
        raise IllegalTransition(f"an ended run cannot be {record.state}")
    conn.execute(
        f"INSERT INTO run ({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, NULL, ?)",
        (
            record.id,
            record.turn_id,
            record.thread_id,
            record.state,
            _encode(record.cursor).decode(),
            record.updated_at,
        ),
    )


def get_run(conn: sqlite3.Connection, run_id: str) -> RunRecord:
    row = conn.execute(f"SELECT {_RUN_COLUMNS} FROM run WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise NotFound(f"no run {run_id!r}")
    return _run(row)


def run_of_turn(conn: sqlite3.Connection, turn_id: str) -> RunRecord | None:
    row = conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM run WHERE turn_id = ? ORDER BY rowid DESC LIMIT 1",
        (turn_id,),
    ).fetchone()
    return _run(row) if row else None


def update_run(
    conn: sqlite3.Connection,
    run_id: str,
    *,
    state: RunState | None = None,
    cursor: dict[str, Any] | None = None,
) -> None:
    """Move the run to ``state`` (if given) and store ``cursor`` (if given).

    Raises ``IllegalTransition`` when ``RUN_TRANSITIONS`` does not allow the move from the
    run's current state, ``NotFound`` when there is no such run."""
    encoded = _encode(cursor).decode() if cursor is not None else None
    if state is None:
        conn.execute(
            "UPDATE run SET cursor = coalesce(?, cursor), updated_at = ? WHERE id = ?",
            (encoded, now_ms(), run_id),
        )
        return
    if conn.execute(_MOVE_RUN[state], (state, encoded, now_ms(), run_id)).rowcount == 1:
        return
    current = conn.execute("SELECT state FROM run WHERE id = ?", (run_id,)).fetchone()
    if current is None:
        raise NotFound(f"no run {run_id!r}")
    raise IllegalTransition(f"run {run_id!r} cannot move from {current[0]} to {state}")


def set_environment(
    conn: sqlite3.Connection, run_id: str, environment: dict[str, Any], digest: str
) -> None:
    conn.execute(
        "UPDATE run SET environment = ?, environment_digest = ? WHERE id = ?",
        (_encode(environment).decode(), digest, run_id),
    )


def runs_in_states(conn: sqlite3.Connection, states: tuple[RunState, ...]) -> list[RunRecord]:
    marks = ", ".join("?" * len(states))
    rows = conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM run WHERE state IN ({marks}) ORDER BY updated_at", states
    ).fetchall()
    return [_run(r) for r in rows]


def has_unfinished_runs(conn: sqlite3.Connection) -> bool:
    """Whether a run of a running or paused Turn was left for recovery to settle."""
    row = conn.execute(
        "SELECT 1 FROM run WHERE state NOT IN ('completed', 'failed') AND turn_id IN "
        "(SELECT id FROM turn WHERE status IN ('running', 'paused')) LIMIT 1"
    ).fetchone()
    return row is not None
