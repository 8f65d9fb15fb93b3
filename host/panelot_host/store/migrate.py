"""Numbered schema migrations, applied at start.

``migrations/NNNN_name.sql`` files run in order, each in its own transaction together
with the bump of ``PRAGMA user_version``. An older database upgrades in place; a database
written by a newer Panelot (a higher ``user_version`` than the newest file here) is refused.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import msgspec

from panelot_host.errors import MigrationFailed, SchemaTooNew

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class Migration(msgspec.Struct, frozen=True):
    version: int
    name: str
    sql: str


def load_migrations() -> list[Migration]:
    """The migrations shipped with the package, in version order."""
    # beside this module (the package is installed as files, never zipped): reading them
    # through importlib.resources would import tempfile, zipfile... at every start
    folder = Path(__file__).with_name("migrations")
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    expected = list(range(1, len(found) + 1))
    if [m.version for m in found] != expected:
        raise RuntimeError(f"migration files are not numbered 1..n: {[m.name for m in found]}")
    return found


def schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def newest_version(migrations: list[Migration] | None = None) -> int:
    """The schema version this program writes."""
    migrations = load_migrations() if migrations is None else migrations
    return migrations[-1].version if migrations else 0


def refuse_too_new(conn: sqlite3.Connection, newest: int) -> int:
    """The database's schema version; raises ``SchemaTooNew`` when it is newer than
    ``newest``. Reads only: call it before anything is set on the connection."""
    current = schema_version(conn)
    if current > newest:
        raise SchemaTooNew(
            f"this database uses schema version {current}, but this panelot-host only knows "
            f"versions up to {newest}: it was written by a newer Panelot. Upgrade panelot-host "
            "(or restore a backup made by this version); the database was left untouched."
        )
    return current


def apply_migrations(
    conn: sqlite3.Connection,
    *,
    upto: int | None = None,
    migrations: list[Migration] | None = None,
) -> int:
    """Bring the schema to the newest version (or ``upto``); return the version reached.

    Raises ``SchemaTooNew`` when the database is newer than this program knows, and
    ``MigrationFailed`` when a migration fails (it is rolled back; the ones before it
    stay committed).
    """
    migrations = load_migrations() if migrations is None else migrations
    current = refuse_too_new(conn, newest_version(migrations))
    target = newest_version(migrations) if upto is None else upto
    for migration in migrations:
        if current < migration.version <= target:
            _apply_one(conn, migration)
            current = migration.version
    return current


def _apply_one(conn: sqlite3.Connection, migration: Migration) -> None:
    bump = f"PRAGMA user_version = {migration.version};"
    script = f"BEGIN IMMEDIATE;\n{migration.sql}\n{bump}\nCOMMIT;"
    try:
        conn.executescript(script)
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise MigrationFailed(f"migration {migration.name} failed: {exc}") from exc
