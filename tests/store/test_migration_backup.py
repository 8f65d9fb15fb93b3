"""Before a migration the host keeps a copy of the database (SQLite's online backup) until
every migration commits; a failed migration keeps it and names it. An older host on a newer
database refuses, says so to the client, and changes no byte of it or of its WAL."""

from __future__ import annotations

import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from tests.store.fixtures.generate import fixture_path
from tests.store.fixtures.host_client import HostSession, RemoteFailure, host_environment

from panelot_host.errors import MigrationFailed
from panelot_host.store import threads
from panelot_host.store.backup import backup_path, leftover_backups
from panelot_host.store.db import Database
from panelot_host.store.migrate import load_migrations, schema_version


def _old_database(tmp_path: Path, version: int = 5) -> Path:
    path = tmp_path / "profiles" / "default" / "panelot.db"
    path.parent.mkdir(parents=True)
    shutil.copyfile(fixture_path(version), path)
    return path


def _thread_titles(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return sorted(row[0] for row in conn.execute("SELECT title FROM thread"))


def test_a_migrated_database_leaves_no_copy_once_it_commits(tmp_path: Path) -> None:
    path = _old_database(tmp_path)
    titles = _thread_titles(path)
    db = Database.open(path)
    assert schema_version(db.conn) == load_migrations()[-1].version
    db.close()
    assert _thread_titles(path) == titles
    assert leftover_backups(path) == []


def test_a_new_database_is_not_copied(tmp_path: Path) -> None:
    path = tmp_path / "panelot.db"
    Database.open(path).close()
    assert leftover_backups(path) == []


def test_a_failed_migration_keeps_the_copy_and_names_it(tmp_path: Path) -> None:
    path = _old_database(tmp_path)
    with sqlite3.connect(path) as conn:  # migration 6 creates this table: it now fails
        conn.execute("CREATE TABLE item_new (x)")
    titles = _thread_titles(path)
    with pytest.raises(MigrationFailed) as failed:
        Database.open(path)
    backup = backup_path(path, 5)
    assert str(backup) in str(failed.value) and "0006_compaction_items.sql" in str(failed.value)
    assert leftover_backups(path) == [backup]
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    with sqlite3.connect(backup) as copy:
        assert schema_version(copy) == 5
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _thread_titles(backup) == titles
    with sqlite3.connect(path) as conn:  # the failed migration was rolled back
        assert schema_version(conn) == 5
    assert _thread_titles(path) == titles


def _newer_database(path: Path) -> None:
    """A database a newer Panelot is using: schema 999, its last commit still in the WAL."""
    source = path.with_name("source.db")
    db = Database.open(source)
    with db.transaction() as conn:
        threads.create(conn, title="Written by a newer Panelot")
        conn.execute("PRAGMA user_version = 999")
    for suffix in ("", "-wal"):  # copied while it is open: the WAL holds the last commit
        shutil.copyfile(f"{source}{suffix}", f"{path}{suffix}")
    db.close()


def test_an_older_host_refuses_a_newer_database_and_changes_nothing(tmp_path: Path) -> None:
    home, scratch = tmp_path / "home", tmp_path / "scratch"
    path = home / "profiles" / "default" / "panelot.db"
    path.parent.mkdir(parents=True)
    scratch.mkdir()
    _newer_database(path)
    wal = Path(f"{path}-wal")
    before = {p: p.read_bytes() for p in (path, wal)}
    assert before[wal], "the WAL must hold the newer host's last commit"
    with HostSession(host_environment(home, scratch, None), cwd=scratch) as host:
        with pytest.raises(RemoteFailure) as refused:
            host.call("initialize", {"protocolVersion": 1, "client": {"name": "t", "version": "0"}})
        assert refused.value.kind == "invalid_state"
        assert "newer Panelot" in str(refused.value) and "schema version 999" in str(refused.value)
    assert {p: p.read_bytes() for p in (path, wal)} == before
    assert leftover_backups(path) == []
