"""``Database.joining``: a write that rides along the open transaction, or stands alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelot_host.store.db import Database


class _Undo(Exception):
    pass


def _db(tmp_path: Path) -> Database:
    db = Database.open(tmp_path / "p.db")
    db.conn.execute("CREATE TABLE note (value TEXT)")
    return db


def _notes(db: Database) -> list[str]:
    return [row[0] for row in db.conn.execute("SELECT value FROM note ORDER BY rowid")]


def test_alone_it_commits_its_own_transaction(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with db.joining() as conn:
        conn.execute("INSERT INTO note VALUES ('alone')")
        assert db.in_transaction
    assert not db.in_transaction and _notes(db) == ["alone"]


def test_inside_a_transaction_it_commits_and_rolls_back_with_it(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with pytest.raises(_Undo), db.transaction() as outer:
        outer.execute("INSERT INTO note VALUES ('outer')")
        with db.joining() as conn:  # no nested BEGIN: the opener's transaction
            conn.execute("INSERT INTO note VALUES ('joined')")
        raise _Undo
    assert _notes(db) == []
    with db.transaction() as outer:
        with db.joining() as conn:
            conn.execute("INSERT INTO note VALUES ('joined')")
        assert db.in_transaction  # still the opener's until it ends
    assert _notes(db) == ["joined"]
