"""Approval requests and interactions (ask_user, MCP elicitation): persisted, claimed once."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from panelot_host.errors import InvalidState, NotFound
from panelot_host.store.ids import now_ms
from panelot_host.store.records import ApprovalRecord, InteractionRecord

_encode = msgspec.json.Encoder().encode
_dict_decode = msgspec.json.Decoder(dict[str, Any]).decode
_APPROVAL_COLUMNS = (
    "id, thread_id, turn_id, tool_call_item_id, request, state, decision, scope, message, "
    "created_at, decided_at"
)
_INTERACTION_COLUMNS = (
    "id, thread_id, turn_id, tool_call_item_id, prompt, schema, origin, state, response, "
    "created_at, answered_at"
)


def _approval(row: Any) -> ApprovalRecord:
    return ApprovalRecord(
        id=row[0],
        thread_id=row[1],
        turn_id=row[2],
        tool_call_item_id=row[3],
        request=_dict_decode(row[4]),
        state=row[5],
        decision=row[6],
        scope=row[7],
        message=row[8],
        created_at=row[9],
        decided_at=row[10],
    )


def _interaction(row: Any) -> InteractionRecord:
    return InteractionRecord(
        id=row[0],
        thread_id=row[1],
        turn_id=row[2],
        tool_call_item_id=row[3],
        prompt=row[4],
        schema=_dict_decode(row[5]),
        origin=row[6],
        state=row[7],
        response=_dict_decode(row[8]) if row[8] else None,
        created_at=row[9],
        answered_at=row[10],
    )


def add_approval(
    conn: sqlite3.Connection,
    *,
    request_id: str,
    thread_id: str,
    turn_id: str,
    tool_call_item_id: str,
    request: dict[str, Any],
) -> None:
    conn.execute(
        "INSERT INTO approval (id, thread_id, turn_id, tool_call_item_id, request, state, "
        "created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)",
        (request_id, thread_id, turn_id, tool_call_item_id, _encode(request).decode(), now_ms()),
    )


def get_approval(conn: sqlite3.Connection, request_id: str) -> ApprovalRecord:
    row = conn.execute(
        f"SELECT {_APPROVAL_COLUMNS} FROM approval WHERE id = ?", (request_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no approval request {request_id!r}")
    return _approval(row)


def decide_approval(
    conn: sqlite3.Connection,
    request_id: str,
    *,
    decision: str,
    scope: str,
    message: str | None,
    command_id: str,
) -> ApprovalRecord:
    """Record the user's decision once; raises ``InvalidState`` if already decided."""
    row = conn.execute(
        "UPDATE approval SET state = 'decided', decision = ?, scope = ?, message = ?, "
        "command_id = ?, decided_at = ? WHERE id = ? AND state = 'pending' "
        f"RETURNING {_APPROVAL_COLUMNS}",
        (decision, scope, message, command_id, now_ms(), request_id),
    ).fetchone()
    if row is None:
        current = get_approval(conn, request_id)
        raise InvalidState(f"approval request {request_id!r} is already {current.state}")
    return _approval(row)


def cancel_approvals_of_turn(conn: sqlite3.Connection, turn_id: str) -> list[ApprovalRecord]:
    """Withdraw the Turn's pending approval requests; the withdrawn ones, oldest first."""
    rows = conn.execute(
        "UPDATE approval SET state = 'cancelled', decided_at = ? "
        f"WHERE turn_id = ? AND state = 'pending' RETURNING {_APPROVAL_COLUMNS}, rowid",
        (now_ms(), turn_id),
    ).fetchall()
    return [_approval(row) for row in _oldest_first(rows)]


def pending_approvals(conn: sqlite3.Connection, thread_id: str) -> list[ApprovalRecord]:
    rows = conn.execute(
        f"SELECT {_APPROVAL_COLUMNS} FROM approval WHERE thread_id = ? AND state = 'pending' "
        "ORDER BY created_at, rowid",
        (thread_id,),
    ).fetchall()
    return [_approval(r) for r in rows]


def add_interaction(
    conn: sqlite3.Connection,
    *,
    interaction_id: str,
    thread_id: str,
    turn_id: str,
    tool_call_item_id: str,
    prompt: str,
    schema: dict[str, Any],
    origin: str = "ask_user",
) -> None:
    conn.execute(
        f"INSERT INTO interaction ({_INTERACTION_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', NULL, ?, NULL)",
        (
            interaction_id,
            thread_id,
            turn_id,
            tool_call_item_id,
            prompt,
            _encode(schema).decode(),
            origin,
            now_ms(),
        ),
    )


def get_interaction(conn: sqlite3.Connection, interaction_id: str) -> InteractionRecord:
    row = conn.execute(
        f"SELECT {_INTERACTION_COLUMNS} FROM interaction WHERE id = ?", (interaction_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no interaction {interaction_id!r}")
    return _interaction(row)


def answer_interaction(
    conn: sqlite3.Connection, interaction_id: str, values: dict[str, Any], command_id: str
) -> InteractionRecord:
    """Claim the interaction once; a second answer raises ``InvalidState``."""
    row = conn.execute(
        "UPDATE interaction SET state = 'answered', response = ?, command_id = ?, "
        f"answered_at = ? WHERE id = ? AND state = 'pending' RETURNING {_INTERACTION_COLUMNS}",
        (_encode(values).decode(), command_id, now_ms(), interaction_id),
    ).fetchone()
    if row is None:
        current = get_interaction(conn, interaction_id)
        raise InvalidState(f"interaction {interaction_id!r} is already {current.state}")
    return _interaction(row)


def cancel_interactions_of_turn(conn: sqlite3.Connection, turn_id: str) -> list[InteractionRecord]:
    """Withdraw the Turn's pending questions; the withdrawn ones, oldest first."""
    rows = conn.execute(
        "UPDATE interaction SET state = 'cancelled', answered_at = ? "
        f"WHERE turn_id = ? AND state = 'pending' RETURNING {_INTERACTION_COLUMNS}, rowid",
        (now_ms(), turn_id),
    ).fetchall()
    return [_interaction(row) for row in _oldest_first(rows)]


def _oldest_first(rows: list[Any]) -> list[Any]:
    """Rows of the columns then ``rowid`` in creation order (``RETURNING`` gives none)."""
    return sorted(rows, key=lambda row: (row[9], row[-1]))  # created_at, rowid


def pending_interactions(conn: sqlite3.Connection, thread_id: str) -> list[InteractionRecord]:
    rows = conn.execute(
        f"SELECT {_INTERACTION_COLUMNS} FROM interaction WHERE thread_id = ? "
        "AND state = 'pending' ORDER BY created_at, rowid",
        (thread_id,),
    ).fetchall()
    return [_interaction(r) for r in rows]


def latest_approval_of_call(
    conn: sqlite3.Connection, tool_call_item_id: str
) -> ApprovalRecord | None:
    """The call's most recent approval request that was not withdrawn."""
    row = conn.execute(
        f"SELECT {_APPROVAL_COLUMNS} FROM approval WHERE tool_call_item_id = ? "
        "AND state != 'cancelled' ORDER BY created_at DESC, rowid DESC LIMIT 1",
        (tool_call_item_id,),
    ).fetchone()
    return _approval(row) if row else None


def interaction_of_call(
    conn: sqlite3.Connection, tool_call_item_id: str, *, origin: str | None = None
) -> InteractionRecord | None:
    """The call's most recent question that was not withdrawn (optionally of ``origin``)."""
    row = conn.execute(
        f"SELECT {_INTERACTION_COLUMNS} FROM interaction WHERE tool_call_item_id = ? "
        "AND state != 'cancelled' AND (? IS NULL OR origin = ?) "
        "ORDER BY created_at DESC, rowid DESC LIMIT 1",
        (tool_call_item_id, origin, origin),
    ).fetchone()
    return _interaction(row) if row else None


def withdraw_interaction(conn: sqlite3.Connection, interaction_id: str) -> bool:
    """Cancel a still pending question; False when it was answered meanwhile."""
    cur = conn.execute(
        "UPDATE interaction SET state = 'cancelled', answered_at = ? "
        "WHERE id = ? AND state = 'pending'",
        (now_ms(), interaction_id),
    )
    return cur.rowcount > 0
