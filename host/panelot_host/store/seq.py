"""Per-thread event sequence numbers: stored, strictly increasing across restarts.

Writing a row per streamed delta would cost an fsync each, so numbers are handed out from a
stored ceiling: the thread row records ``seq_ceiling`` and this process uses numbers up to
it, raising it by a block when they run out. After a crash the next process starts above the
stored ceiling, so no number is ever reused even if some were sent but not recorded.
"""

from __future__ import annotations

from panelot_host.store.db import Database

BLOCK = 1024


class SeqAllocator:
    """Hands out ``seq`` values; one instance per database, used on the event loop thread."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._next: dict[str, int] = {}
        self._ceiling: dict[str, int] = {}

    def current(self, thread_id: str) -> int:
        """The last seq handed out for the thread (what ``thread.open`` reports as lastSeq)."""
        self._ensure_loaded(thread_id)
        return self._next[thread_id] - 1

    def next(self, thread_id: str) -> int:
        self._ensure_loaded(thread_id)
        value = self._next[thread_id]
        if value > self._ceiling[thread_id]:
            self._raise_ceiling(thread_id, value + BLOCK)
        self._next[thread_id] = value + 1
        return value

    def _ensure_loaded(self, thread_id: str) -> None:
        if thread_id in self._next:
            return
        row = self._db.conn.execute(
            "SELECT seq_ceiling FROM thread WHERE id = ?", (thread_id,)
        ).fetchone()
        stored = int(row[0]) if row else 0
        # Numbers up to the stored ceiling may have been sent by an earlier process.
        self._next[thread_id] = stored + 1
        self._ceiling[thread_id] = stored

    def _raise_ceiling(self, thread_id: str, ceiling: int) -> None:
        with self._db.joining() as conn:
            conn.execute("UPDATE thread SET seq_ceiling = ? WHERE id = ?", (ceiling, thread_id))
        self._ceiling[thread_id] = ceiling
