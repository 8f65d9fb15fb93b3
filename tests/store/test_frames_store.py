"""The ``frame`` table (schema 11, issue 30): a thread's frames go with it (ON DELETE
CASCADE with foreign keys on, and the soft ``threads.delete``), the budget trims oldest
first, and an item's cached wire JSON is dropped whenever its frames change."""

from __future__ import annotations

import base64
from pathlib import Path

from tests.support.frames import JPEG, PNG

from panelot_host.engine.frames import store_frames
from panelot_host.protocol.frames import CapturedFrame
from panelot_host.store import frames, item_wire, items, threads
from panelot_host.store.db import Database
from panelot_host.store.frames import FrameRecord
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord


def _frame(thread_id: str, item_id: str, captured_at: int, seq: int = 0) -> FrameRecord:
    return FrameRecord(
        id=new_id("frm"),
        thread_id=thread_id,
        turn_id="tu_1",
        item_id=item_id,
        seq=seq,
        phase="after",
        mime="image/jpeg",
        width=16,
        height=8,
        url="https://shop.example/",
        captured_at=captured_at,
        meta={"title": "Shop"},
        image=JPEG,
    )


def _call(conn: object, thread_id: str) -> ItemRecord:
    call = ItemRecord(
        id=new_id("itm"),
        thread_id=thread_id,
        parent_id=None,
        turn_id="tu_1",
        kind="toolCall",
        created_at=now_ms(),
        call_id=new_id("call"),
        name="browser_click",
        args={"ref": "e1"},
        status="running",
    )
    items.insert(conn, call)  # type: ignore[arg-type]
    return call


def test_foreign_keys_are_on_and_a_removed_thread_takes_its_frames(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    assert db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        other = threads.create(conn, title="o")
        frames.insert(conn, _frame(thread.id, "itm_1", 1))
        frames.insert(conn, _frame(other.id, "itm_2", 2))
    with db.transaction() as conn:
        conn.execute("DELETE FROM turn WHERE thread_id = ?", (thread.id,))
        conn.execute("DELETE FROM thread WHERE id = ?", (thread.id,))
    assert [f.thread_id for f in frames.of_thread(db.conn, other.id)] == [other.id]
    assert frames.of_thread(db.conn, thread.id) == []


def test_deleting_a_thread_removes_its_frames(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        kept = threads.create(conn, title="k")
        gone = _frame(thread.id, "itm_1", 1)
        frames.insert(conn, gone)
        frames.insert(conn, _frame(kept.id, "itm_2", 2))
    with db.transaction() as conn:
        threads.delete(conn, thread.id)
    assert frames.get(db.conn, gone.id) is None
    assert frames.total_size(db.conn) == len(JPEG)


def test_storing_and_trimming_frames_drop_the_cached_item_json(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        old, new = _call(conn, thread.id), _call(conn, thread.id)
        frames.insert(conn, _frame(thread.id, old.id, 1))
        item_wire.store(conn, thread.id, 3, [(old.id, b"{}"), (new.id, b"{}")])
        frames.insert(conn, _frame(thread.id, new.id, 2))
    assert set(item_wire.cached(db.conn, thread.id, 3)) == {old.id}
    with db.transaction() as conn:
        item_wire.store(conn, thread.id, 3, [(new.id, b"{}")])
        frames.trim_to(conn, len(JPEG))  # the older frame goes
    assert set(item_wire.cached(db.conn, thread.id, 3)) == {new.id}
    assert [f.item_id for f in frames.of_thread(db.conn, thread.id)] == [new.id]


def test_store_frames_orders_before_first_and_keeps_the_budget(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    not_jpeg = _b64(PNG)  # said to be a JPEG: dropped
    shots = [
        CapturedFrame(
            phase=phase,  # type: ignore[arg-type]
            mime="image/jpeg",
            data=frame_data,
            width=16,
            height=8,
            url="https://shop.example/",
            captured_at=f"2026-12-04T10:00:0{n}.000Z",
        )
        for n, (phase, frame_data) in enumerate(
            [("after", _b64(JPEG)), ("before", _b64(JPEG)), ("after", not_jpeg)]
        )
    ]
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        call = _call(conn, thread.id)
        stored = store_frames(conn, call, shots, budget=10 * len(JPEG))
    assert [(f.phase, f.seq) for f in stored] == [("before", 0), ("after", 1)]
    assert [f.id for f in frames.of_items(db.conn, [call.id])[call.id]] == [f.id for f in stored]
    with db.transaction() as conn:
        for _ in range(20):
            store_frames(conn, _call(conn, thread.id), shots[:1], budget=3 * len(JPEG))
    assert frames.total_size(db.conn) <= 3 * len(JPEG)


def _b64(image: bytes) -> str:
    return base64.b64encode(image).decode()
