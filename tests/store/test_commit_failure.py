"""A failed COMMIT is rolled back whole and the store keeps serving (issue 11, item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelot_host.errors import StoreError
from panelot_host.store.db import Database


def _with_deferred_check(db: Database) -> None:
    """A table whose foreign key is checked only at COMMIT: a real way for COMMIT to fail
    while the transaction stays open (as busy or I/O errors can leave it)."""
    db.conn.executescript(
        """
        CREATE TABLE parent_row (id INTEGER PRIMARY KEY);
        CREATE TABLE child_row (
            id INTEGER PRIMARY KEY,
            parent INTEGER REFERENCES parent_row (id) DEFERRABLE INITIALLY DEFERRED
        );
        CREATE TABLE kept (value TEXT);
        """
    )


def test_a_failed_commit_rolls_back_and_the_next_transaction_works(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    _with_deferred_check(db)
    with pytest.raises(StoreError, match="nothing of it was stored"), db.transaction() as conn:
        conn.execute("INSERT INTO kept VALUES ('lost')")
        conn.execute("INSERT INTO child_row (parent) VALUES (42)")  # fails at COMMIT
    assert not db.conn.in_transaction
    with db.transaction() as conn:
        conn.execute("INSERT INTO kept VALUES ('saved')")
    assert db.conn.execute("SELECT value FROM kept").fetchall() == [("saved",)]
    db.close()


def test_a_failed_commit_is_a_storage_error_on_the_wire() -> None:
    from panelot_host.server.errors import to_rpc_error

    error = to_rpc_error(StoreError("the change could not be saved (disk full)"))
    assert error.code == -32020 and error.data == {"kind": "storage"}
