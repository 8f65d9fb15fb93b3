"""The grant ledger: what the user allowed or denied beyond one call, with provenance."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from panelot_host.errors import NotFound
from panelot_host.store.ids import now_ms
from panelot_host.store.records import GrantRecord

_encode = msgspec.json.Encoder().encode
_dict_decode = msgspec.json.Decoder(dict[str, Any]).decode
_COLUMNS = "id, scope, tool, origin, thread_id, decision, provenance, created_at, revoked_at"


def _grant(row: Any) -> GrantRecord:
    return GrantRecord(
        id=row[0],
        scope=row[1],
        tool=row[2],
        origin=row[3],
        thread_id=row[4],
        decision=row[5],
        provenance=_dict_decode(row[6]),
        created_at=row[7],
        revoked_at=row[8],
    )


def add(conn: sqlite3.Connection, grant: GrantRecord) -> None:
    conn.execute(
        f"INSERT INTO grant_rule ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            grant.id,
            grant.scope,
            grant.tool,
            grant.origin,
            grant.thread_id,
            grant.decision,
            _encode(grant.provenance).decode(),
            grant.created_at,
            grant.revoked_at,
        ),
    )


def active(conn: sqlite3.Connection) -> list[GrantRecord]:
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM grant_rule WHERE revoked_at IS NULL ORDER BY created_at, rowid"
    ).fetchall()
    return [_grant(r) for r in rows]


def everything(conn: sqlite3.Connection) -> list[GrantRecord]:
    """Every grant ever given, revoked ones included (the exportable ledger)."""
    rows = conn.execute(f"SELECT {_COLUMNS} FROM grant_rule ORDER BY created_at, rowid").fetchall()
    return [_grant(r) for r in rows]


def revoke(conn: sqlite3.Connection, grant_id: str) -> None:
    cur = conn.execute(
        "UPDATE grant_rule SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
        (now_ms(), grant_id),
    )
    if cur.rowcount == 0:
        raise NotFound(f"no active grant {grant_id!r}")
