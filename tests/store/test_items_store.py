"""Items: a branch is the path from a head item to the root, whatever else the tree holds."""

from __future__ import annotations

from pathlib import Path

from panelot_host.store import items, threads
from panelot_host.store.db import Database
from panelot_host.store.ids import now_ms
from panelot_host.store.records import ItemRecord


def _tree(tmp_path: Path) -> tuple[Database, str]:
    """root -> a -> b -> c, with a sibling edit a -> b2 -> c2, and another thread's x.

    Rows are stored interleaved across the two branches, as editing a message does.
    """
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        other = threads.create(conn, title="other")
        for item_id, parent in [
            ("root", None), ("a", "root"), ("b", "a"), ("b2", "a"), ("c2", "b2"), ("c", "b"),
        ]:  # fmt: skip
            items.insert(
                conn,
                ItemRecord(id=item_id, thread_id=thread.id, parent_id=parent, turn_id=None,
                           kind="user", created_at=now_ms(), text=f"text {item_id}"),
            )  # fmt: skip
        items.insert(
            conn,
            ItemRecord(id="x", thread_id=other.id, parent_id=None, turn_id=None, kind="user",
                       created_at=now_ms(), text="elsewhere"),
        )  # fmt: skip
    return db, thread.id


def test_a_branch_is_the_path_from_its_head_to_the_root_oldest_first(tmp_path: Path) -> None:
    db, thread_id = _tree(tmp_path)
    assert items.branch_ids(db.conn, thread_id, "c") == ["root", "a", "b", "c"]
    assert items.branch_ids(db.conn, thread_id, "c2") == ["root", "a", "b2", "c2"]
    assert items.branch_ids(db.conn, thread_id, "a") == ["root", "a"]
    assert [i.id for i in items.branch(db.conn, "c2")] == ["root", "a", "b2", "c2"]
    assert [i.text for i in items.branch(db.conn, "c")] == [
        "text root", "text a", "text b", "text c",
    ]  # fmt: skip


def test_the_streamed_branch_equals_the_branch_in_any_chunk_size(tmp_path: Path) -> None:
    db, _ = _tree(tmp_path)
    for head in ("c", "c2", "b2", "root"):
        whole = items.branch(db.conn, head)
        for chunk in (1, 2, 3, 500):
            assert list(items.iter_branch(db.conn, head, chunk=chunk)) == whole


def test_no_head_or_an_unknown_head_is_an_empty_branch(tmp_path: Path) -> None:
    db, thread_id = _tree(tmp_path)
    assert items.branch(db.conn, None) == []
    assert items.branch(db.conn, "nope") == []
    assert list(items.iter_branch(db.conn, None)) == []
    assert list(items.iter_branch(db.conn, "nope")) == []
    assert items.branch_ids(db.conn, thread_id, None) == []
    assert items.branch_ids(db.conn, thread_id, "x") == []  # another thread's item


def test_of_thread_returns_the_asked_items_in_the_asked_order(tmp_path: Path) -> None:
    db, thread_id = _tree(tmp_path)
    assert [i.id for i in items.of_thread(db.conn, thread_id, ["c2", "root", "b"])] == [
        "c2", "root", "b",
    ]  # fmt: skip
    assert items.of_thread(db.conn, thread_id, []) == []


def test_continuation_is_the_rest_of_the_branch_after_an_ancestor(tmp_path: Path) -> None:
    db, thread_id = _tree(tmp_path)
    rest = items.continuation(db.conn, thread_id, "a", "c2")
    assert rest is not None and [i.id for i in rest] == ["b2", "c2"]
    assert items.continuation(db.conn, thread_id, "b", "c2") is None  # not an ancestor
    assert items.continuation(db.conn, thread_id, "nope", "c") is None
