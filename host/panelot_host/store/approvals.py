"""Approval requests and interactions (ask_user, MCP elicitation): persisted, claimed once."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from panelot_host.errors import InvalidState, NotFound
from panelot_host.store.ids import now_ms
from panelot_host.store.records import ApprovalRecord, InteractionRecord

R = TypeVar("R", ApprovalRecord, InteractionRecord)

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


@dataclass(frozen=True)
class _RequestTable(Generic[R]):
    """One of the two kinds of request that waits for the user, each in its own table:
    ``pending`` until claimed once (``claimed_state``: decided, answered) or withdrawn
    (``cancelled``); ``settled_at`` is the column either stamps. Approvals and interactions
    share this state machine; only their columns differ."""

    table: str
    columns: str
    noun: str
    claimed_state: str
    settled_at: str
    record: Callable[[Any], R]

    def get(self, conn: sqlite3.Connection, request_id: str) -> R:
        row = conn.execute(
            f"SELECT {self.columns} FROM {self.table} WHERE id = ?", (request_id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no {self.noun} {request_id!r}")
        return self.record(row)

    def claim(self, conn: sqlite3.Connection, request_id: str, values: dict[str, Any]) -> R:
        """Settle a pending request once with ``values`` (column -> value, fixed by the
        callers here); a second claim raises ``InvalidState``."""
        sets = "".join(f"{column} = ?, " for column in values)
        row = conn.execute(
            f"UPDATE {self.table} SET state = ?, {sets}{self.settled_at} = ? "
            f"WHERE id = ? AND state = 'pending' RETURNING {self.columns}",
            (self.claimed_state, *values.values(), now_ms(), request_id),
        ).fetchone()
        if row is None:
            current = self.get(conn, request_id)
            raise InvalidState(f"{self.noun} {request_id!r} is already {current.state}")
        return self.record(row)

    def withdraw(self, conn: sqlite3.Connection, request_id: str) -> bool:
        """Cancel a still pending request; False when it was settled meanwhile."""
        cur = conn.execute(
            f"UPDATE {self.table} SET state = 'cancelled', {self.settled_at} = ? "
            "WHERE id = ? AND state = 'pending'",
            (now_ms(), request_id),
        )
        return cur.rowcount > 0

    def cancel_of_turn(self, conn: sqlite3.Connection, turn_id: str) -> list[R]:
        """Withdraw the Turn's pending requests; the withdrawn ones, oldest first."""
        rows = conn.execute(
            f"UPDATE {self.table} SET state = 'cancelled', {self.settled_at} = ? "
            f"WHERE turn_id = ? AND state = 'pending' RETURNING {self.columns}, rowid",
            (now_ms(), turn_id),
        ).fetchall()
        # RETURNING gives no order: created_at (column 9 of both), then rowid
        return [self.record(row) for row in sorted(rows, key=lambda row: (row[9], row[-1]))]

    def pending(self, conn: sqlite3.Connection, thread_id: str) -> list[R]:
        rows = conn.execute(
            f"SELECT {self.columns} FROM {self.table} WHERE thread_id = ? "
            "AND state = 'pending' ORDER BY created_at, rowid",
            (thread_id,),
        ).fetchall()
        return [self.record(r) for r in rows]


_APPROVALS = _RequestTable(
    "approval", _APPROVAL_COLUMNS, "approval request", "decided", "decided_at", _approval
)
_INTERACTIONS = _RequestTable(
    "interaction", _INTERACTION_COLUMNS, "interaction", "answered", "answered_at", _interaction
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


def approvals_of_thread(conn: sqlite3.Connection, thread_id: str) -> list[ApprovalRecord]:
    """Every approval request of the thread, oldest first, whatever its state."""
    rows = conn.execute(
        f"SELECT {_APPROVAL_COLUMNS} FROM approval WHERE thread_id = ? ORDER BY created_at, rowid",
        (thread_id,),
    ).fetchall()
    return [_approval(row) for row in rows]


def get_approval(conn: sqlite3.Connection, request_id: str) -> ApprovalRecord:
    return _APPROVALS.get(conn, request_id)


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
    values = {"decision": decision, "scope": scope, "message": message, "command_id": command_id}
    return _APPROVALS.claim(conn, request_id, values)


def cancel_approvals_of_turn(conn: sqlite3.Connection, turn_id: str) -> list[ApprovalRecord]:
    """Withdraw the Turn's pending approval requests; the withdrawn ones, oldest first."""
    return _APPROVALS.cancel_of_turn(conn, turn_id)


def pending_approvals(conn: sqlite3.Connection, thread_id: str) -> list[ApprovalRecord]:
    return _APPROVALS.pending(conn, thread_id)


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
    return _INTERACTIONS.get(conn, interaction_id)


def answer_interaction(
    conn: sqlite3.Connection, interaction_id: str, values: dict[str, Any], command_id: str
) -> InteractionRecord:
    """Claim the interaction once; a second answer raises ``InvalidState``."""
    answer = {"response": _encode(values).decode(), "command_id": command_id}
    return _INTERACTIONS.claim(conn, interaction_id, answer)


def cancel_interactions_of_turn(conn: sqlite3.Connection, turn_id: str) -> list[InteractionRecord]:
    """Withdraw the Turn's pending questions; the withdrawn ones, oldest first."""
    return _INTERACTIONS.cancel_of_turn(conn, turn_id)


def pending_interactions(conn: sqlite3.Connection, thread_id: str) -> list[InteractionRecord]:
    return _INTERACTIONS.pending(conn, thread_id)


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
    return _INTERACTIONS.withdraw(conn, interaction_id)
