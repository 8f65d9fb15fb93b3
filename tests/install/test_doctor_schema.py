"""``doctor``'s schema check: a database that will migrate (a note), one written by a
newer Panelot (a problem), and a copy left by a migration that did not finish (a problem
with what to do)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from tests.store.fixtures.generate import fixture_path

from panelot_host.cli.doctor_schema import check_schemas
from panelot_host.errors import MigrationFailed
from panelot_host.store.backup import backup_path
from panelot_host.store.db import Database
from panelot_host.store.migrate import load_migrations

NEWEST = load_migrations()[-1].version


def _profile(home: Path, name: str, fixture: int | None = None) -> Path:
    path = home / "profiles" / name / "panelot.db"
    path.parent.mkdir(parents=True)
    if fixture is None:
        Database.open(path).close()
    else:
        shutil.copyfile(fixture_path(fixture), path)
    return path


def test_current_databases_need_no_finding(tmp_path: Path) -> None:
    _profile(tmp_path, "default")
    assert check_schemas(tmp_path) == []


def test_an_older_database_is_a_note_with_both_versions(tmp_path: Path) -> None:
    path = _profile(tmp_path, "default", fixture=3)
    [finding] = check_schemas(tmp_path)
    assert finding.status == "note"
    assert f"{path} uses schema version 3; this panelot-host uses {NEWEST}" in finding.message


def test_a_newer_database_is_a_problem_saying_to_upgrade(tmp_path: Path) -> None:
    path = _profile(tmp_path, "default")
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 999")
    [finding] = check_schemas(tmp_path)
    assert finding.status == "problem"
    assert "schema version 999" in finding.message and "newer Panelot" in finding.message
    assert "upgrade panelot-host" in finding.fix


def test_a_copy_left_by_a_failed_migration_is_named_with_what_to_do(tmp_path: Path) -> None:
    path = _profile(tmp_path, "default", fixture=5)
    with sqlite3.connect(path) as conn:  # migration 6 creates this table: it now fails
        conn.execute("CREATE TABLE item_new (x)")
    with pytest.raises(MigrationFailed):
        Database.open(path)
    findings = check_schemas(tmp_path)
    assert [f.status for f in findings] == ["note", "problem"]  # still at 5, and the copy
    backup = backup_path(path, 5)
    assert f"{backup} is a copy of {path} at schema version 5" in findings[1].message
    assert f"delete {backup}" in findings[1].fix and f"copy it over {path}" in findings[1].fix
