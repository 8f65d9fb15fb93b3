"""Steering messages and the per-thread queue, as stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelot_host.errors import NotFound, QueueFull
from panelot_host.store import steering, threads
from panelot_host.store.db import Database


def _db(tmp_path: Path) -> tuple[Database, str]:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread_id = threads.create(conn, title="t").id
    return db, thread_id


def test_add_steering_returns_the_stored_message_even_with_older_ones_pending(
    tmp_path: Path,
) -> None:
    db, thread_id = _db(tmp_path)
    with db.transaction() as conn:
        first = steering.add_steering(
            conn, steering_id="s1", thread_id=thread_id, turn_id="t", text="one"
        )
        conn.execute("UPDATE steering SET created_at = created_at + 60000 WHERE id = 's1'")
        second = steering.add_steering(
            conn, steering_id="s2", thread_id=thread_id, turn_id="t", text="two",
            attachments=[{"type": "tab", "tabId": 3}],
        )  # fmt: skip
    assert (first.id, first.text, first.state) == ("s1", "one", "pending")
    assert (second.id, second.text, second.attachments) == (
        "s2",
        "two",
        [{"type": "tab", "tabId": 3}],
    )
    assert second in steering.pending_steering(db.conn, "t")


def test_steering_up_to_the_cutoff_leaves_later_messages_for_the_next_call(
    tmp_path: Path,
) -> None:
    db, thread_id = _db(tmp_path)
    with db.transaction() as conn:
        steering.add_steering(conn, steering_id="s1", thread_id=thread_id, turn_id="t", text="a")
        cutoff = steering.steering_cutoff(conn)
        steering.add_steering(conn, steering_id="s2", thread_id=thread_id, turn_id="t", text="b")
        admitted = steering.pending_steering_upto(conn, "t", cutoff)
        assert [m.id for m in admitted] == ["s1"]
        steering.mark_admitted(conn, "s1", 1)
    assert [m.id for m in steering.pending_steering(db.conn, "t")] == ["s2"]


def test_the_queue_holds_eight_entries_in_order_and_can_be_reordered(tmp_path: Path) -> None:
    db, thread_id = _db(tmp_path)
    with db.transaction() as conn:
        added = [
            steering.enqueue(conn, entry_id=f"q{n}", thread_id=thread_id, text=f"m{n}")
            for n in range(steering.QUEUE_LIMIT)
        ]
        with pytest.raises(QueueFull):
            steering.enqueue(conn, entry_id="q9", thread_id=thread_id, text="x")
    assert steering.queue(db.conn, thread_id) == added  # what enqueue returned is what is stored
    with db.transaction() as conn:
        steering.move_entry(conn, thread_id, "q5", 0)
        steering.move_entry(conn, thread_id, "q0", 99)  # clamped to the end
        steering.remove_entry(conn, thread_id, "q3")
        steering.update_entry(conn, thread_id, "q1", "M1")
    queued = steering.queue(db.conn, thread_id)
    assert [e.id for e in queued] == ["q5", "q1", "q2", "q4", "q6", "q7", "q0"]
    assert queued[1].text == "M1"
    with db.transaction() as conn:
        assert steering.pop_front(conn, thread_id) == queued[0]
        entry = steering.enqueue(conn, entry_id="q8", thread_id=thread_id, text="last")
    assert [e.id for e in steering.queue(db.conn, thread_id)][-2:] == ["q0", "q8"]
    assert steering.queue(db.conn, thread_id)[-1] == entry


def test_queue_edits_of_an_unknown_entry_are_not_found(tmp_path: Path) -> None:
    db, thread_id = _db(tmp_path)
    for edit in (
        lambda conn: steering.move_entry(conn, thread_id, "nope", 0),
        lambda conn: steering.remove_entry(conn, thread_id, "nope"),
        lambda conn: steering.update_entry(conn, thread_id, "nope", "x"),
    ):
        with pytest.raises(NotFound), db.transaction() as conn:
            edit(conn)
    with db.transaction() as conn:
        assert steering.pop_front(conn, thread_id) is None
