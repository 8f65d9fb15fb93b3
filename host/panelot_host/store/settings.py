"""Settings (never a secret) and credential metadata (never the secret either)."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from panelot_host.store.ids import now_ms
from panelot_host.store.records import CredentialRecord

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def all_settings(conn: sqlite3.Connection) -> dict[str, Any]:
    rows = conn.execute("SELECT key, value FROM setting ORDER BY key").fetchall()
    return {key: _decode(value) for key, value in rows}


def put_settings(conn: sqlite3.Connection, values: dict[str, Any]) -> None:
    """Set each key; a ``None`` value removes the key (back to its default)."""
    for key, value in values.items():
        if value is None:
            conn.execute("DELETE FROM setting WHERE key = ?", (key,))
        else:
            conn.execute(
                "INSERT INTO setting (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, _encode(value).decode()),
            )


def put_credential(
    conn: sqlite3.Connection, *, ref: str, provider: str | None, backend: str, fingerprint: str
) -> None:
    """Record a stored credential; ``provider`` is the provider origin it is bound to."""
    now = now_ms()
    conn.execute(
        "INSERT INTO credential (ref, provider, backend, fingerprint, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (ref) DO UPDATE SET provider = excluded.provider, "
        "backend = excluded.backend, fingerprint = excluded.fingerprint, "
        "updated_at = excluded.updated_at",
        (ref, provider, backend, fingerprint, now, now),
    )


def credential_origin(conn: sqlite3.Connection, ref: str) -> str | None:
    """The provider origin the credential ``ref`` was entered for (kept in the
    ``provider`` column), or None when it was entered with none known."""
    row = conn.execute("SELECT provider FROM credential WHERE ref = ?", (ref,)).fetchone()
    return row[0] if row else None


def get_credential(conn: sqlite3.Connection, ref: str) -> CredentialRecord | None:
    row = conn.execute(
        "SELECT ref, provider, backend, fingerprint, created_at, updated_at FROM credential "
        "WHERE ref = ?",
        (ref,),
    ).fetchone()
    return CredentialRecord(*row) if row else None


def delete_credential(conn: sqlite3.Connection, ref: str) -> bool:
    return conn.execute("DELETE FROM credential WHERE ref = ?", (ref,)).rowcount > 0
