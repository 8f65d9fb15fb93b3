"""The session context of a run's model calls: the selected branch as provider messages,
from its latest ``compaction`` item on (whose summary stands for what it covers).

The part before the running Turn comes from a cache keyed by where it starts (the thread's
root or a compaction's last covered item) and by its last item (items are never rewritten),
and the Turn's part is extended by the items stored since the last model call, so a model
call costs what was added, not the thread or the Turn so far. The cache is in memory
(``engine.history_cache``, the ``HistoryCache`` the engine holds) and in the store
(``prefix_store.PrefixStore``, in parts: a new Turn appends the messages it added): a
fresh host process reads the prefix back instead of rebuilding the branch, and extends it
when the thread went on. A stored prefix is used only when it starts and ends where the
branch's does, is of ``prefix_store.PREFIX_FORMAT`` and decodes; the store drops it when
an item it covers changes. Otherwise the prefix is rebuilt from the items and stored
again. The elision pass over the prefix (``elision.PrefixPass``) is stored with it the
same way, keyed by the marks it was made with and the compaction whose summary leads the
list.
"""

from __future__ import annotations

import functools

import msgspec

from panelot_host.engine.context import EngineContext
from panelot_host.engine.context_window.elision import Elided, Elider, Marks, PrefixPass, Size
from panelot_host.engine.context_window.history import TurnHistory, build_messages
from panelot_host.engine.context_window.prefix_store import PrefixStore, StoredPass
from panelot_host.engine.history_cache import HeldPrefix, PrefixKey
from panelot_host.providers.types import Message, TextPart, UserMessage
from panelot_host.store import items, threads, turns
from panelot_host.store.records import ItemRecord

SUMMARY_INTRO = (
    "[Summary of the earlier part of this conversation. It grew too long for the context "
    "window, so this summary stands for it; the turns after it follow verbatim.]"
)


class Boundary(msgspec.Struct, frozen=True):
    """The latest compaction on the branch: its summary replaces the items up to
    ``through_item_id``."""

    item_id: str
    through_item_id: str
    through_turn_id: str | None
    message: UserMessage


def boundary_of(record: ItemRecord, through_turn_id: str | None) -> Boundary:
    text = f"{SUMMARY_INTRO}\n\n{record.text or ''}"
    return Boundary(
        item_id=record.id,
        through_item_id=str(record.extra["throughItemId"]),
        through_turn_id=through_turn_id,
        message=UserMessage(content=[TextPart(text)]),
    )


class SummaryPrefix(msgspec.Struct, frozen=True):
    """The summary of ``boundary`` followed by ``prefix``, as one list (``messages``)."""

    boundary: Boundary
    prefix: list[Message]
    messages: list[Message]


class OwnPrefix(msgspec.Struct, frozen=True):
    """The part before this Turn as ``messages`` last returned it: its key, and the
    compaction whose summary leads it (None: no summary)."""

    messages: list[Message]
    key: PrefixKey
    boundary: str | None


class SessionContext:
    """A running Turn's view of its branch; the driver asks it once per model call."""

    def __init__(self, ctx: EngineContext, thread_id: str, turn_id: str) -> None:
        self.ctx = ctx
        self.thread_id = thread_id
        self.turn_id = turn_id
        self._turn_history = TurnHistory()
        self._boundary: Boundary | None = None
        self._boundary_loaded = False
        self._store = PrefixStore(ctx.db)
        self._summary_prefix: SummaryPrefix | None = None
        self._own: OwnPrefix | None = None  # see ``elided``
        self._inherited: dict[str | None, PrefixPass] = {}  # passes over a shorter prefix

    @property
    def boundary(self) -> Boundary | None:
        """The latest compaction on the branch (read once per run: the branch cannot be
        switched while a Turn runs, and only this run adds compactions to it)."""
        if not self._boundary_loaded:
            found = items.latest_compaction(
                self.ctx.db.conn,
                self.thread_id,
                threads.get(self.ctx.db.conn, self.thread_id).head_item_id,
            )
            self._start_from(found)
        return self._boundary

    def compacted(self, record: ItemRecord) -> None:
        """This run stored ``record`` (a compaction): later calls start from it."""
        self._start_from(record)

    def _start_from(self, record: ItemRecord | None) -> None:
        """Build from the compaction ``record`` on (None: from the root): this Turn's part
        starts after the last covered item when that item is in this Turn."""
        self._boundary_loaded = True
        self._turn_history = TurnHistory()
        if record is None:
            self._boundary = None
            return
        through = items.get(self.ctx.db.conn, str(record.extra["throughItemId"]))
        self._boundary = boundary_of(record, through.turn_id)
        if through.turn_id == self.turn_id:
            self._turn_history.last_item_id = through.id

    def messages(self) -> tuple[list[Message], list[Message]]:
        """(the part before this Turn, with the summary first; this Turn's part)."""
        boundary = self.boundary
        added = items.of_turn(
            self.ctx.db.conn, self.thread_id, self.turn_id, after=self._turn_history.last_item_id
        )
        current = self._turn_history.messages(added)
        if boundary is not None and boundary.through_turn_id == self.turn_id:
            return [boundary.message], current
        start = boundary.through_item_id if boundary is not None else None
        key = PrefixKey(start, self._prefix_end)
        prefix = self._prefix(key)
        if boundary is not None:
            prefix = self._with_summary(boundary, prefix)
        self._own = OwnPrefix(prefix, key, boundary.item_id if boundary is not None else None)
        return prefix, current

    def elided(
        self,
        elider: Elider,
        prefix: list[Message],
        current: list[Message],
        marks: Marks,
        size: Size,
    ) -> Elided:
        """``elider.elide`` of a request. When ``prefix`` is the list ``messages`` returned
        as the part before this Turn, the pass over it is read from the store when it was
        made with the same marks, and stored once made; ``size`` must be the raw estimate
        (``tokens.message_tokens``, which ``TokenEstimator.of`` counts)."""
        own = self._own
        made = False
        if own is not None and own.messages is prefix and not elider.has_pass(prefix, marks):
            stored = self._stored_pass(own.key, own.boundary)
            if stored is None or stored.length != len(prefix):
                stored = self._inherited.get(own.boundary)
            made = stored is None or stored.marks != marks or stored.length != len(prefix)
            if stored is not None and stored.marks == marks and stored.length <= len(prefix):
                elider.resume(prefix, stored, size)
        result = elider.elide(prefix, current, marks, size)
        passed = elider.passed()
        if made and own is not None and passed is not None:
            self._store.save_pass(self.thread_id, own.key, StoredPass(own.boundary, passed))
        return result

    def _inherit_pass(self, key: PrefixKey, length: int) -> None:
        """Keep the stored passes over the prefix ``key`` (``length`` messages), which the
        new prefix extends, before its row is replaced: the new pass resumes from them. The
        summary (if any) leads both lists, so the pass covers one more message."""
        stored = self._store.load_pass(self.thread_id, key)
        expected = length + (stored.boundary is not None) if stored is not None else 0
        if stored is not None and stored.passed.length == expected:
            self._inherited = {stored.boundary: stored.passed}

    def _stored_pass(self, key: PrefixKey, boundary: str | None) -> PrefixPass | None:
        stored = self._store.load_pass(self.thread_id, key)
        return stored.passed if stored is not None and stored.boundary == boundary else None

    @functools.cached_property
    def _prefix_end(self) -> str | None:
        """The item before this Turn's user message: the end of the cached prefix."""
        conn = self.ctx.db.conn
        user_item_id = turns.get_turn(conn, self.turn_id).user_item_id
        return items.get(conn, user_item_id).parent_id if user_item_id else None

    def _with_summary(self, boundary: Boundary, prefix: list[Message]) -> list[Message]:
        """The summary and the prefix, as one list object while neither changes (the
        driver fits a prefix to the model once per list object)."""
        cached = self._summary_prefix
        if cached is None or cached.boundary is not boundary or cached.prefix is not prefix:
            summary = [boundary.message, *prefix]
            cached = self._summary_prefix = SummaryPrefix(boundary, prefix, summary)
        return cached.messages

    def _prefix(self, key: PrefixKey) -> list[Message]:
        cache = self.ctx.history
        cached = cache.get(self.thread_id)
        if cached is not None and not self._store.holds(self.thread_id, cached.key):
            cache.drop(self.thread_id)
            cached = None  # an item it covers changed since: read the branch again
        if cached is None or cached.key != key:
            cached = self._store.load(self.thread_id) if cached is None else cached
            if cached is None or cached.key != key:
                previous = cached
                cached = HeldPrefix(key, self._prefix_messages(key, cached))
                if (
                    previous is not None
                    and cached.messages[: len(previous.messages)] == previous.messages
                ):
                    self._inherit_pass(previous.key, len(previous.messages))
                else:
                    previous = None  # rebuilt: stored whole
                self._store.save(self.thread_id, cached, previous)
            cache.put(self.thread_id, cached)
        return cached.messages

    def _prefix_messages(self, key: PrefixKey, cached: HeldPrefix | None) -> list[Message]:
        """Extend the cached prefix by the items stored after it when they continue it
        (the previous Turn); else rebuild it from its start."""
        conn = self.ctx.db.conn
        start, end = key.start, key.end
        if cached is not None and cached.key.start == start and cached.key.end is not None and end:
            delta = items.continuation(conn, self.thread_id, cached.key.end, end)
            if delta is not None:
                return [*cached.messages, *build_messages(delta)]
        if start is None:
            return build_messages(items.iter_branch(conn, end))
        if end is None:
            return []
        return build_messages(items.continuation(conn, self.thread_id, start, end) or [])
