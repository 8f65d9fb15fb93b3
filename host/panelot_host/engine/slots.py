"""How many Turns run at the same time (issue 26, "Limits and fairness"): the engine's
slots, at most ``maxParallelTurns`` of them (default 3).

A run holds a slot while it works (model calls, tool calls) and none while it waits for
the user (an approval, an answer), is paused or has ended. A run that finds no free slot
is ``queued``, its clients told why (``waitReason``), and continues where it was as soon
as it has one. ``anyio.CapacityLimiter`` hands free slots out first come, first served,
and never lets a newcomer pass a run that waits, so no thread starves another.

``TurnSlots`` is the engine's limiter (held by its context, resized when the setting
changes); ``RunSlot`` is one run's claim on it, which writes and announces the ``queued``
state while it waits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio

from panelot_host.engine.publish import Publisher
from panelot_host.protocol.ops.config import DEFAULT_MAX_PARALLEL_TURNS
from panelot_host.store import turns
from panelot_host.store.db import Database
from panelot_host.store.records import RunRef
from panelot_host.vocabulary import RunState


def max_parallel_turns(settings: Mapping[str, Any]) -> int:
    """The ``maxParallelTurns`` setting in effect (stored settings, camelCase keys)."""
    value = settings.get("maxParallelTurns")
    return value if isinstance(value, int) and value >= 1 else DEFAULT_MAX_PARALLEL_TURNS


def wait_reason(limit: int) -> str:
    """Why a run is ``queued``, in words for the user."""
    if limit == 1:
        return "1 task is already running; this one starts when it finishes"
    return f"{limit} tasks are already running; this one starts when one of them finishes"


class TurnSlots:
    """The engine's slots: at most ``total`` runs work at the same time, first come first."""

    def __init__(self, total: int = DEFAULT_MAX_PARALLEL_TURNS) -> None:
        self._limiter = anyio.CapacityLimiter(total)

    @property
    def total(self) -> int:
        return int(self._limiter.total_tokens)

    @property
    def running(self) -> int:
        """Runs holding a slot (more than ``total`` for a while after it was lowered)."""
        return self._limiter.borrowed_tokens

    @property
    def waiting(self) -> int:
        return self._limiter.statistics().tasks_waiting

    def resize(self, total: int) -> None:
        """Raising the limit starts waiting runs at once (in the order they came); lowering
        it stops no run: the next ones wait until fewer than ``total`` run."""
        self._limiter.total_tokens = total

    def holds(self, holder: object) -> bool:
        return holder in self._limiter.statistics().borrowers

    def try_take(self, holder: object) -> bool:
        """Take a slot for ``holder`` if one is free and no run waits for one."""
        try:
            self._limiter.acquire_on_behalf_of_nowait(holder)
        except anyio.WouldBlock:
            return False
        return True

    async def take(self, holder: object) -> None:
        """Wait for a slot for ``holder``. Cancelled, it holds none (a slot handed over
        meanwhile goes on to the next run that waits)."""
        await self._limiter.acquire_on_behalf_of(holder)

    def give_back(self, holder: object) -> None:
        """Free ``holder``'s slot, if it holds one (the next run that waits gets it)."""
        if self.holds(holder):
            self._limiter.release_on_behalf_of(holder)


class RunSlot:
    """One run's claim on a slot: taken before it works, given back while it waits for the
    user and when it pauses or ends (both idempotent)."""

    def __init__(self, slots: TurnSlots, db: Database, publish: Publisher, run: RunRef) -> None:
        self._slots = slots
        self._db = db
        self._publish = publish
        self._run = run

    @property
    def held(self) -> bool:
        return self._slots.holds(self)

    async def take(self, resume: RunState | None = None) -> None:
        """Hold a slot. When none is free the run is ``queued`` (stored, and its clients told
        why) until one is, then ``resume`` (default: the state it was in). Cancellation
        while queued leaves the run ``queued`` for its stop to settle, and holds nothing."""
        if self.held or self._slots.try_take(self):
            return
        before = turns.get_run(self._db.conn, self._run.run_id).state
        self._move("queued", wait_reason(self._slots.total))
        await self._slots.take(self)
        self._move(resume or before)

    def give_back(self) -> None:
        self._slots.give_back(self)

    def _move(self, state: RunState, reason: str | None = None) -> None:
        with self._db.transaction() as conn:
            turns.update_run(conn, self._run.run_id, state=state)
        self._publish.run_updated(self._run, state, wait_reason=reason)
