"""The item wire-JSON cache (schema 4): rendered once, dropped by trigger on any change."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable


def cached(conn: sqlite3.Connection, thread_id: str, wire_format: int) -> dict[str, bytes]:
    rows = conn.execute(
        "SELECT id, json FROM item_wire WHERE thread_id = ? AND format = ?",
        (thread_id, wire_format),
    ).fetchall()
    return {item_id: bytes(json) for item_id, json in rows}


def store(
    conn: sqlite3.Connection,
    thread_id: str,
    wire_format: int,
    rendered: Iterable[tuple[str, bytes]],
) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO item_wire (id, thread_id, format, json) VALUES (?, ?, ?, ?)",
        [(item_id, thread_id, wire_format, json) for item_id, json in rendered],
    )
