"""The in-memory tier of the session prefix: per thread, the part before a Turn that the
last run built (``context_window.session_context``), so the next run of the thread in
this process starts from it instead of the store.

It lives beside ``context_window`` rather than in it because ``EngineContext`` holds it
as a service and ``context_window`` builds on ``EngineContext``.
"""

from __future__ import annotations

import msgspec

from panelot_host.providers.types import Message


class PrefixKey(msgspec.Struct, frozen=True):
    """Where a session prefix starts (the last item a compaction covers; None: the root)
    and ends (the item before a Turn's user message; None: nothing before it). Items are
    never rewritten, so the two name its messages."""

    start: str | None
    end: str | None


class HeldPrefix(msgspec.Struct, frozen=True):
    """A session prefix: its key and its provider messages (never changed in place)."""

    key: PrefixKey
    messages: list[Message]


class HistoryCache:
    """The last session prefix built for each thread in this process."""

    def __init__(self) -> None:
        self._held: dict[str, HeldPrefix] = {}

    def get(self, thread_id: str) -> HeldPrefix | None:
        return self._held.get(thread_id)

    def put(self, thread_id: str, prefix: HeldPrefix) -> None:
        self._held[thread_id] = prefix

    def drop(self, thread_id: str) -> None:
        """Forget the thread's prefix (the next run reads the store)."""
        self._held.pop(thread_id, None)
