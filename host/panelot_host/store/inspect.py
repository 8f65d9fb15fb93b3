"""Reading a profile database without the host: for ``panelot-host doctor``.

Opened read-only (``mode=ro``): a running host keeps writing meanwhile (WAL), and a
check must never change, migrate or lock what it checks.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import msgspec

from panelot_host.store.profiles import DATABASE_NAME


class DatabaseHealth(msgspec.Struct, frozen=True):
    path: Path
    problems: list[str]
    settings: dict[str, Any]


def profile_databases(home: Path) -> list[Path]:
    """Every profile's database under ``home/profiles``."""
    return sorted((home / "profiles").glob(f"*/{DATABASE_NAME}"))


def inspect_database(path: Path) -> DatabaseHealth:
    """SQLite's ``integrity_check`` of ``path`` and its settings (never a secret)."""
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5)) as conn:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
            problems = [str(row[0]) for row in rows if row[0] != "ok"]
            settings = {} if problems else _settings(conn)
    except sqlite3.Error as exc:
        return DatabaseHealth(path, [str(exc)], {})
    return DatabaseHealth(path, problems, settings)


def _settings(conn: sqlite3.Connection) -> dict[str, Any]:
    try:
        rows = conn.execute("SELECT key, value FROM setting").fetchall()
    except sqlite3.Error:
        return {}  # not migrated yet: no settings
    decoded: dict[str, Any] = {}
    for key, value in rows:
        try:
            decoded[key] = msgspec.json.decode(value)
        except msgspec.DecodeError:
            continue
    return decoded
