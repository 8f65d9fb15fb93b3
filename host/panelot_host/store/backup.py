"""The copy of a database kept while it migrates (issue 28: upgrades keep everything).

Before the host migrates a database that holds data, it copies it beside itself with
SQLite's online backup (``<db>.before-schema-<version>.bak``, private like the database),
and removes the copy once every migration has committed. When a migration fails the copy
stays, the error names it, and ``panelot-host doctor`` reports it until it is removed.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from panelot_host.private_files import private_file

_SUFFIX = ".bak"


def backup_path(database: Path, version: int) -> Path:
    """Where the copy of ``database`` at schema ``version`` is kept."""
    return database.with_name(f"{database.name}.before-schema-{version}{_SUFFIX}")


def leftover_backups(database: Path) -> list[Path]:
    """Copies of ``database`` kept from migrations that did not finish."""
    return sorted(database.parent.glob(f"{database.name}.before-schema-*{_SUFFIX}"))


def backup_version(backup: Path) -> int | None:
    """The schema version a backup's name says it holds."""
    stem = backup.name.removesuffix(_SUFFIX)
    number = stem.rpartition("-")[2]
    return int(number) if number.isdigit() else None


def take_backup(conn: sqlite3.Connection, database: Path, version: int) -> Path:
    """Copy the database open on ``conn`` (at schema ``version``) beside ``database``,
    replacing an older copy of the same version; returns the copy's path.

    Raises ``sqlite3.Error`` or ``OSError`` when the copy cannot be written.
    """
    path = private_file(backup_path(database, version))  # private before SQLite writes it
    with closing(sqlite3.connect(path)) as copy:
        conn.backup(copy)
    return path
