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
    # each stored credential's reference -> the provider origin it was entered for (None:
    # entered with none known), as a turn reads it (``settings.credential_origin``)
    credential_origins: dict[str, str | None] = {}
    schema_version: int | None = None  # PRAGMA user_version; None: unreadable


def profile_databases(home: Path) -> list[Path]:
    """Every profile's database under ``home/profiles``."""
    return sorted((home / "profiles").glob(f"*/{DATABASE_NAME}"))


def inspect_database(path: Path) -> DatabaseHealth:
    """SQLite's ``integrity_check`` of ``path``, its settings and the origin each credential
    was entered for (never a secret)."""
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5)) as conn:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
            problems = [str(row[0]) for row in rows if row[0] != "ok"]
            if problems:
                return DatabaseHealth(path, problems, {})
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            origins = _credential_origins(conn)
            return DatabaseHealth(path, [], _settings(conn), origins, version)
    except sqlite3.Error as exc:
        return DatabaseHealth(path, [str(exc)], {})


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


def _credential_origins(conn: sqlite3.Connection) -> dict[str, str | None]:
    try:
        rows = conn.execute("SELECT ref, provider FROM credential").fetchall()
    except sqlite3.Error:
        return {}  # not migrated yet: no credentials
    return {str(ref): origin for ref, origin in rows}
