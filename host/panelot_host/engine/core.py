"""The engine facade the server talks to: thread commands, turns and recovery."""

from __future__ import annotations

from panelot_host.engine.events import EventSink
from panelot_host.engine.threads import ThreadService
from panelot_host.errors import TurnActive
from panelot_host.store import turns
from panelot_host.store.db import Database
from panelot_host.store.seq import SeqAllocator


class Engine:
    """Owns the store of one profile while the host holds its writer lease."""

    def __init__(self, db: Database, seq: SeqAllocator, sink: EventSink) -> None:
        self.db = db
        self.seq = seq
        self.sink = sink
        self.threads = ThreadService(db, seq, sink, self.guard_branch_change)

    def guard_branch_change(self, thread_id: str, op: str) -> None:
        """Reject ops that would change a thread's branches while a Turn runs on it."""
        last = turns.last_turn(self.db.conn, thread_id)
        if last is not None and last.status in turns.ACTIVE_TURN_STATUSES:
            raise TurnActive(f"{op} is not possible while a Turn is running on this thread")

    async def aclose(self) -> None:
        """Stop admitting work and settle what runs; everything acknowledged is committed."""
