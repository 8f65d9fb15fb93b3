"""Numbered migrations: an older database upgrades in place, a newer one is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from panelot_host.errors import SchemaTooNew
from panelot_host.store import items, threads
from panelot_host.store.db import Database
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.migrate import apply_migrations, load_migrations, schema_version
from panelot_host.store.records import ItemRecord, ToolCallExtra


def _first_schema_database(path: Path) -> None:
    """A database as the first release wrote it: schema 1 with a thread and a message."""
    conn = sqlite3.connect(path, isolation_level=None)
    apply_migrations(conn, upto=1)
    assert schema_version(conn) == 1
    now = now_ms()
    conn.execute(
        "INSERT INTO thread (id, title, title_source, created_at, updated_at) "
        "VALUES ('thr_old', 'Holiday plans', 'user', ?, ?)",
        (now, now),
    )
    conn.execute(
        "INSERT INTO item (id, thread_id, kind, created_at, text) "
        "VALUES ('itm_old', 'thr_old', 'user', ?, 'find a flight to Lisbon')",
        (now,),
    )
    conn.execute("UPDATE thread SET head_item_id = 'itm_old' WHERE id = 'thr_old'")
    conn.close()


def test_older_database_upgrades_in_place_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "panelot.db"
    _first_schema_database(path)
    db = Database.open(path)
    assert schema_version(db.conn) == load_migrations()[-1].version
    thread = threads.get(db.conn, "thr_old")
    assert thread.title == "Holiday plans"
    assert [i.text for i in items.branch(db.conn, thread.head_item_id)] == [
        "find a flight to Lisbon"
    ]
    # the search migration indexed what schema 1 had stored
    found, _ = threads.list_threads(db.conn, limit=10, cursor=None, query="lisbon")
    assert [t.id for t in found] == ["thr_old"]
    found, _ = threads.list_threads(db.conn, limit=10, cursor=None, query="holiday")
    assert [t.id for t in found] == ["thr_old"]


def test_newer_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "panelot.db"
    Database.open(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(SchemaTooNew, match="newer Panelot"):
        Database.open(path)
    assert path.read_bytes() == before


def test_migrations_are_numbered_without_gaps() -> None:
    versions = [m.version for m in load_migrations()]
    assert versions == list(range(1, len(versions) + 1))


def test_database_runs_in_wal_with_full_sync(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_failed_transaction_writes_nothing(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    with pytest.raises(RuntimeError), db.transaction() as conn:
        threads.create(conn, title="half")
        raise RuntimeError("boom")
    assert threads.list_threads(db.conn, limit=10, cursor=None, query=None)[0] == []


def test_item_rows_round_trip(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        record = ItemRecord(
            id=new_id("itm"),
            thread_id=thread.id,
            parent_id=None,
            turn_id="trn_1",
            kind="toolCall",
            created_at=now_ms(),
            call_id="call_1",
            name="browser_click",
            args={"ref": "e3"},
            status="succeeded",
            result={"content": "clicked", "isError": False},
            call_extra=ToolCallExtra(level="L1"),
        )
        items.insert(conn, record)
    assert items.get(db.conn, record.id) == record


def test_any_change_to_an_item_drops_its_cached_wire_json(tmp_path: Path) -> None:
    from panelot_host.store import item_wire

    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        record = ItemRecord(
            id="itm_1", thread_id=thread.id, parent_id=None, turn_id="trn", kind="toolCall",
            created_at=now_ms(), call_id="c", name="x", args={}, status="running",
        )  # fmt: skip
        items.insert(conn, record)
        item_wire.store(conn, thread.id, 1, [("itm_1", b'{"old": true}')])
    assert item_wire.cached(db.conn, thread.id, 1) == {"itm_1": b'{"old": true}'}
    assert item_wire.cached(db.conn, thread.id, 2) == {}  # another wire format: re-render
    with db.transaction() as conn:
        conn.execute("UPDATE item SET status = 'succeeded' WHERE id = 'itm_1'")
    assert item_wire.cached(db.conn, thread.id, 1) == {}


def test_schema_6_keeps_every_item_and_accepts_compaction_items(tmp_path: Path) -> None:
    path = tmp_path / "panelot.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    apply_migrations(conn, upto=5)
    now = now_ms()
    conn.execute(
        "INSERT INTO thread (id, title, title_source, created_at, updated_at) "
        "VALUES ('thr_a', 'A', 'user', ?, ?)",
        (now, now),
    )
    for n in range(3):
        conn.execute(
            "INSERT INTO item (id, thread_id, parent_id, kind, created_at, text) "
            "VALUES (?, 'thr_a', ?, 'user', ?, ?)",
            (f"itm_{n}", f"itm_{n - 1}" if n else None, now, f"message {n}"),
        )
    conn.execute("INSERT INTO item_wire VALUES ('itm_0', 'thr_a', 1, x'7b7d')")
    before = conn.execute("SELECT * FROM item ORDER BY ord").fetchall()
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO item (id, thread_id, kind, created_at) "
            "VALUES ('itm_c', 'thr_a', 'compaction', 0)"
        )
    apply_migrations(conn)
    assert conn.execute("SELECT * FROM item ORDER BY ord").fetchall() == before
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE tbl_name='item'")}
    assert {"item_by_thread", "item_call_id", "item_by_turn", "item_wire_stale"} <= names
    record = ItemRecord(
        id="itm_c", thread_id="thr_a", parent_id="itm_2", turn_id=None, kind="compaction",
        created_at=now, text="summary", extra={"throughItemId": "itm_1"},
    )  # fmt: skip
    items.insert(conn, record)
    assert items.get(conn, "itm_c") == record
    # new rows continue the creation order, and the wire cache trigger is back
    ords = [r[0] for r in conn.execute("SELECT ord FROM item ORDER BY ord")]
    assert ords == sorted(ords) and len(set(ords)) == 4
    conn.execute("INSERT INTO item_wire VALUES ('itm_1', 'thr_a', 1, x'7b7d')")
    conn.execute("UPDATE item SET text = 'changed' WHERE id = 'itm_1'")
    assert conn.execute("SELECT count(*) FROM item_wire").fetchone()[0] == 0
    conn.close()
