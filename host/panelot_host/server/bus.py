"""Event fan-out: stored per-thread ``seq`` and delivery to the connections subscribed."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from panelot_host.store.seq import SeqAllocator

Deliver = Callable[[str, msgspec.Struct], None]


class EventBus:
    """Implements the engine's ``EventSink``.

    A connection subscribes to a thread by naming it in an op; thread-scoped events get the
    thread's next ``seq``. Subscribing and reading ``lastSeq`` for a snapshot happen without
    an ``await`` in between, so every event after a snapshot has a greater ``seq``.
    """

    def __init__(self, seq: SeqAllocator) -> None:
        self._seq = seq
        self._subscribers: dict[str, dict[int, Deliver]] = {}
        self._connections: dict[int, Deliver] = {}

    def attach(self, connection_id: int, deliver: Deliver) -> None:
        """Deliver connection-level events (``thread_id`` None) to this connection."""
        self._connections[connection_id] = deliver

    def subscribe(self, connection_id: int, thread_id: str, deliver: Deliver) -> None:
        self._subscribers.setdefault(thread_id, {})[connection_id] = deliver

    def unsubscribe_connection(self, connection_id: int) -> None:
        self._connections.pop(connection_id, None)
        for subscribers in self._subscribers.values():
            subscribers.pop(connection_id, None)

    def publish(self, thread_id: str | None, method: str, params: msgspec.Struct) -> None:
        if thread_id is not None and hasattr(params, "seq"):
            params = msgspec.structs.replace(params, seq=self._seq.next(thread_id))
        targets = (
            self._subscribers.get(thread_id, {}) if thread_id is not None else self._connections
        )
        for deliver in list(targets.values()):
            deliver(method, params)
