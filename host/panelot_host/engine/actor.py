"""ThreadActor: one per thread; it serialises the thread's run loop and its wake-ups.

Ops on a thread are short synchronous transactions on the event loop thread, so they are
atomic with respect to each other and to the loop's own steps; the actor owns the one task
that drives the thread's current run, lets ops wake it (an approval was decided, a
question answered) and stops it (interrupt, shutdown).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from enum import Enum
from typing import Any

import anyio

Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


class StopCause(Enum):
    NONE = "none"
    INTERRUPT = "interrupt"  # the user's turn.interrupt: the Turn ends interrupted
    SHUTDOWN = "shutdown"  # stdin EOF: settle for recovery; the Turn stays resumable


def _nothing() -> None:
    return None


class _Drive:
    def __init__(self, on_release: Callable[[], None]) -> None:
        self.scope: anyio.CancelScope | None = None
        self.finished = anyio.Event()
        self.stop_cause = StopCause.NONE
        self.on_release = on_release


class ThreadActor:
    """The driver task of one thread's run, its wake-ups and its stop."""

    def __init__(self, thread_id: str, spawn: Spawn) -> None:
        self.thread_id = thread_id
        self._spawn = spawn
        self._current: _Drive | None = None
        self._wakeup = anyio.Event()

    @property
    def driving(self) -> bool:
        """A run loop is running (or about to) for this thread."""
        return self._current is not None

    @property
    def stop_cause(self) -> StopCause:
        return self._current.stop_cause if self._current else StopCause.NONE

    def drive(
        self, driver: Callable[[], Awaitable[None]], on_release: Callable[[], None] = _nothing
    ) -> bool:
        """Start ``driver`` as the thread's loop unless one runs; True if it was started.
        ``on_release`` is called when the loop releases the thread (it gives the run's slot
        back: a paused or ended run holds none), or at the latest when its task ends."""
        if self._current is not None:
            return False
        drive = self._current = _Drive(on_release)

        async def run() -> None:
            try:
                with anyio.CancelScope() as scope:
                    drive.scope = scope
                    if drive.stop_cause is not StopCause.NONE:
                        scope.cancel()  # stopped before it began
                    await driver()
            finally:
                self._release(drive)

        self._spawn(run)
        return True

    def release(self) -> None:
        """The loop has committed its last write: the thread is idle for new work now,
        even though the loop's task is still returning (called before ``turn.complete``)."""
        if self._current is not None:
            self._release(self._current)

    def _release(self, drive: _Drive) -> None:
        drive.on_release()
        drive.finished.set()
        if self._current is drive:
            self._current = None

    def wake(self) -> None:
        """Tell the loop that something it may wait for changed (it re-reads the store)."""
        self._wakeup.set()

    async def wait_for_change(self) -> None:
        """Wait until ``wake``; the caller re-checks the store afterwards."""
        await self._wakeup.wait()
        self._wakeup = anyio.Event()

    async def stop(self, cause: StopCause, *, wait_s: float = 5.0) -> None:
        """Cancel the loop and wait (bounded) until its cleanup has committed."""
        drive = self._current
        if drive is None:
            return
        drive.stop_cause = cause
        if drive.scope is not None:
            drive.scope.cancel()
        with anyio.move_on_after(wait_s):
            await drive.finished.wait()


class ThreadActors:
    """The actor of each thread, made on first use and kept for the engine's life."""

    def __init__(self, spawn: Spawn) -> None:
        self._spawn = spawn
        self._actors: dict[str, ThreadActor] = {}

    def of(self, thread_id: str) -> ThreadActor:
        actor = self._actors.get(thread_id)
        if actor is None:
            actor = self._actors[thread_id] = ThreadActor(thread_id, self._spawn)
        return actor

    def all(self) -> list[ThreadActor]:
        return list(self._actors.values())
