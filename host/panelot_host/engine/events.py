"""The engine's outlet for events; the server implements it (seq, fan-out, subscriptions)."""

from __future__ import annotations

from typing import Protocol

import msgspec

PENDING_SEQ = 0
"""Placeholder ``seq`` of an event under construction; the sink replaces it."""


class EventSink(Protocol):
    def publish(self, thread_id: str | None, method: str, params: msgspec.Struct) -> None:
        """Send an event. For a thread-scoped event (``thread_id`` set) the sink assigns the
        next stored ``seq`` of that thread before delivering it to the thread's subscribers.
        Called only after the state the event reports has committed."""
        ...
