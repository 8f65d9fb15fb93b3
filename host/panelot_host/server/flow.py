"""Serving one connection's requests concurrently, in order where order matters, and
not faster than the client reads.

``Lanes``: one connection carries every side panel and the shim's answers, so a slow op
(``turn.interrupt`` waits for the Turn to end, ``settings.update`` for MCP reloads) must
not stall the others. Each request runs in a lane: requests of one lane run one after the
other in arrival order (a thread's ops; the configuration ops), and every lane, and every
request without one, runs concurrently with the rest. Answers therefore go out by id,
possibly out of order.

``Backpressure``: what the host has queued for the client (answers, events) and the
number of requests in flight are bounded; past either bound the connection stops reading
new requests until the client has drained enough. Nothing is dropped or reordered.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Coroutine, Hashable
from typing import Any

import anyio
from anyio.abc import TaskGroup

Job = Callable[[], Coroutine[Any, Any, None]]

OUTBOX_HIGH_BYTES = 4 * 1024 * 1024
"""Stop reading requests while more than this is queued for the client."""
OUTBOX_LOW_BYTES = 1024 * 1024
"""Read again once the queue is down to this."""
MAX_IN_FLIGHT = 64
"""Requests being served at once; the next waits (unread) for one to finish."""


class Lanes:
    """Runs jobs in ``tasks``: in order within a lane, concurrently across lanes."""

    def __init__(self, tasks: TaskGroup) -> None:
        self._tasks = tasks
        self._queues: dict[Hashable, deque[Job]] = {}

    def submit(self, lane: Hashable | None, job: Job) -> None:
        """Run ``job`` after the jobs already in ``lane`` (None: at once, in no lane)."""
        if lane is None:
            self._tasks.start_soon(job)
            return
        queue = self._queues.get(lane)
        if queue is not None:
            queue.append(job)
            return
        self._queues[lane] = deque([job])
        self._tasks.start_soon(self._drain, lane)

    async def _drain(self, lane: Hashable) -> None:
        queue = self._queues[lane]
        try:
            while queue:
                await queue[0]()
                queue.popleft()
        finally:
            del self._queues[lane]


class Backpressure:
    """Counts bytes queued for the client and requests in flight; ``wait_for_room``
    returns once both are under their bounds."""

    def __init__(
        self,
        high_bytes: int = OUTBOX_HIGH_BYTES,
        low_bytes: int = OUTBOX_LOW_BYTES,
        max_in_flight: int = MAX_IN_FLIGHT,
    ) -> None:
        self._high = high_bytes
        self._low = low_bytes
        self._max_in_flight = max_in_flight
        self.queued_bytes = 0
        self.in_flight = 0
        self._draining = False  # over the high mark: wait until the low mark
        self._changed = anyio.Event()

    def queued(self, size: int) -> None:
        self.queued_bytes += size
        if self.queued_bytes > self._high:
            self._draining = True

    def written(self, size: int) -> None:
        self.queued_bytes -= size
        if self._draining and self.queued_bytes <= self._low:
            self._draining = False
        self._notify()

    def started(self) -> None:
        self.in_flight += 1

    def finished(self) -> None:
        self.in_flight -= 1
        self._notify()

    @property
    def has_room(self) -> bool:
        return not self._draining and self.in_flight < self._max_in_flight

    async def wait_for_room(self) -> None:
        while not self.has_room:
            await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()
