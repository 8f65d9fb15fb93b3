"""Event sequence numbers: strictly increasing per thread, never reused across restarts."""

from __future__ import annotations

from pathlib import Path

from panelot_host.store import threads
from panelot_host.store.db import Database
from panelot_host.store.seq import BLOCK, SeqAllocator


def test_seq_increases_per_thread_and_is_never_reused_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    db = Database.open(path)
    with db.transaction() as conn:
        one = threads.create(conn, title="one").id
        two = threads.create(conn, title="two").id
    seq = SeqAllocator(db)
    assert seq.current(one) == 0
    handed = [seq.next(one) for _ in range(BLOCK + 5)]  # crosses a block boundary
    assert handed == list(range(1, BLOCK + 6))
    assert seq.current(one) == BLOCK + 5
    assert seq.next(two) == 1  # each thread counts on its own
    db.close()  # a crash: numbers up to the stored ceiling may have been sent
    db = Database.open(path)
    again = SeqAllocator(db)
    assert again.current(one) > max(handed)
    assert again.next(one) > max(handed)
    assert again.next(two) > 1


def test_raising_the_ceiling_joins_the_callers_transaction(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread_id = threads.create(conn, title="t").id
    seq = SeqAllocator(db)
    with db.transaction():
        assert seq.next(thread_id) == 1  # no nested transaction is opened
    stored = db.conn.execute("SELECT seq_ceiling FROM thread WHERE id = ?", (thread_id,))
    assert stored.fetchone()[0] >= 1
