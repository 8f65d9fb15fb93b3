"""The session context of a run's model calls: the selected branch as provider messages,
from its latest ``compaction`` item on (whose summary stands for what it covers).

The part before the running Turn comes from a cache keyed by where it starts (the thread's
root or a compaction's last covered item) and by its last item (items are never rewritten),
and the Turn's part is extended by the items stored since the last model call, so a model
call costs what was added, not the thread or the Turn so far. The cache is in memory and in
the store (``store.context_prefix``, encoded with msgpack, in parts: a new Turn appends
the messages it added): a fresh host process reads the prefix back instead of rebuilding
the branch, and extends it when the thread went on. A
stored prefix is used only when it starts and ends where the branch's does, was encoded by
this code (``PREFIX_FORMAT``) and decodes; the store drops it when an item it covers
changes. Otherwise the prefix is rebuilt from the items and stored again. The elision
pass over the prefix (``elision.PrefixPass``) is stored with it the same way, keyed by
the marks it was made with and the compaction whose summary leads the list.
"""

from __future__ import annotations

import functools
import hashlib
import sys

import msgspec

from panelot_host.engine.context import EngineContext
from panelot_host.engine.context_window.elision import Elided, Elider, Marks, PrefixPass, Size
from panelot_host.engine.context_window.history import TurnHistory, build_messages
from panelot_host.providers.types import Message, TextPart, UserMessage
from panelot_host.store import context_prefix, items, threads, turns
from panelot_host.store.records import ItemRecord

SUMMARY_INTRO = (
    "[Summary of the earlier part of this conversation. It grew too long for the context "
    "window, so this summary stands for it; the turns after it follow verbatim.]"
)

PrefixKey = tuple[str | None, str | None]  # (last item covered by a compaction, prefix end)

PREFIX_ENCODING = 1  # bump when the stored prefix's encoding changes
# The modules whose code decides a stored prefix's messages: their source is part of the
# format, so a prefix stored by other code is rebuilt, never trusted.
_PREFIX_CODE = (
    "panelot_host.engine.context_window.elision",
    "panelot_host.engine.context_window.history",
    "panelot_host.engine.context_window.session_context",
    "panelot_host.engine.context_window.tokens",
    "panelot_host.providers.types",
    "panelot_host.store.items",
    "panelot_host.store.records",
)
_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(list[Message]).decode


class StoredPass(msgspec.Struct, frozen=True):
    """An elision pass over a stored prefix, led by the summary of ``boundary`` (an item
    id; None: no summary)."""

    boundary: str | None
    passed: PrefixPass


_decode_pass = msgspec.msgpack.Decoder(StoredPass).decode


@functools.cache
def prefix_format() -> str | None:
    """The stored prefix's format: the encoding's number and a digest of the code that
    builds the messages (read once per process); None (nothing is stored or read) when
    that code's source cannot be read."""
    digest = hashlib.sha256()
    for name in _PREFIX_CODE:
        get_source = getattr(sys.modules[name].__loader__, "get_source", None)
        source = get_source(name) if get_source is not None else None
        if not source:
            return None
        digest.update(source.encode())
    return f"{PREFIX_ENCODING}:{digest.hexdigest()[:32]}"


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


class SessionContext:
    """A running Turn's view of its branch; the driver asks it once per model call."""

    def __init__(self, ctx: EngineContext, thread_id: str, turn_id: str) -> None:
        self.ctx = ctx
        self.thread_id = thread_id
        self.turn_id = turn_id
        self._turn_history = TurnHistory()
        self._boundary: Boundary | None = None
        self._boundary_loaded = False
        self._summary_prefix: tuple[Boundary, list[Message], list[Message]] | None = None
        self._own: tuple[list[Message], PrefixKey, str | None] | None = None  # see ``elided``
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
        key = (start, self._prefix_end)
        prefix = self._prefix(key)
        if boundary is not None:
            prefix = self._with_summary(boundary, prefix)
        self._own = (prefix, key, boundary.item_id if boundary is not None else None)
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
        if own is not None and own[0] is prefix and not elider.has_pass(prefix, marks):
            stored = self._stored_pass(own[1], own[2])
            if stored is None or stored.length != len(prefix):
                stored = self._inherited.get(own[2])
            made = stored is None or stored.marks != marks or stored.length != len(prefix)
            if stored is not None and stored.marks == marks and stored.length <= len(prefix):
                elider.resume(prefix, stored, size)
        result = elider.elide(prefix, current, marks, size)
        passed = elider.passed()
        if made and own is not None and passed is not None:
            self._store_pass(own[1], StoredPass(own[2], passed))
        return result

    def _inherit_pass(self, key: PrefixKey, length: int) -> None:
        """Keep the stored passes over the prefix ``key`` (``length`` messages), which the
        new prefix extends, before its row is replaced: the new pass resumes from them. The
        summary (if any) leads both lists, so the pass covers one more message."""
        code, (start, end) = prefix_format(), key
        if code is None or end is None:
            return
        blob = context_prefix.load_elision(self.ctx.db.conn, self.thread_id, start, end, code)
        try:
            stored = _decode_pass(blob) if blob is not None else None
        except (msgspec.DecodeError, msgspec.ValidationError):
            return
        expected = length + (stored.boundary is not None) if stored is not None else 0
        if stored is not None and stored.passed.length == expected:
            self._inherited = {stored.boundary: stored.passed}

    def _stored_pass(self, key: PrefixKey, boundary: str | None) -> PrefixPass | None:
        code, (start, end) = prefix_format(), key
        if code is None or end is None:
            return None
        blob = context_prefix.load_elision(self.ctx.db.conn, self.thread_id, start, end, code)
        try:
            stored = _decode_pass(blob) if blob is not None else None
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        return stored.passed if stored is not None and stored.boundary == boundary else None

    def _store_pass(self, key: PrefixKey, stored: StoredPass) -> None:
        code, (start, end) = prefix_format(), key
        if code is None or end is None:
            return
        blob = _encode(stored)
        with self.ctx.db.joining() as conn:
            context_prefix.save_elision(conn, self.thread_id, start, end, code, blob)

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
        if cached is None or cached[0] is not boundary or cached[1] is not prefix:
            cached = self._summary_prefix = (boundary, prefix, [boundary.message, *prefix])
        return cached[2]

    def _prefix(self, key: PrefixKey) -> list[Message]:
        cached = self.ctx.history_cache.get(self.thread_id)
        if cached is not None and not self._still_stored(cached[0]):
            cached = None  # an item it covers changed since: read the branch again
        if cached is None or cached[0] != key:
            cached = self._stored_prefix() if cached is None else cached
            if cached is None or cached[0] != key:
                previous = cached
                cached = (key, self._prefix_messages(key, cached))
                if previous is not None and cached[1][: len(previous[1])] == previous[1]:
                    self._inherit_pass(previous[0], len(previous[1]))
                else:
                    previous = None  # rebuilt: stored whole
                self._store_prefix(*cached, previous)
            self.ctx.history_cache[self.thread_id] = cached
        return cached[1]

    def _still_stored(self, key: PrefixKey) -> bool:
        """Whether the store still holds the prefix ``key`` that the memory holds (the
        triggers drop it when an item it covers changes); an empty one always holds."""
        code, (start, end) = prefix_format(), key
        if code is None or end is None:
            return True
        return context_prefix.holds(self.ctx.db.conn, self.thread_id, start, end, code)

    def _stored_prefix(self) -> tuple[PrefixKey, list[Message]] | None:
        """The prefix the store holds for the thread, if it was encoded by this code and
        decodes (a damaged or foreign one is rebuilt)."""
        code = prefix_format()
        stored = context_prefix.load(self.ctx.db.conn, self.thread_id) if code else None
        if stored is None or stored.format != code:
            return None
        messages: list[Message] = []
        try:
            for part in stored.parts:
                messages += _decode(part)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        return (stored.start_item_id, stored.end_item_id), messages

    def _store_prefix(
        self,
        key: PrefixKey,
        messages: list[Message],
        extended: tuple[PrefixKey, list[Message]] | None,
    ) -> None:
        """Store the prefix ``key``: the part it adds to ``extended`` (the prefix it
        continues, when that is the one stored), else all of it."""
        start, end = key
        code = prefix_format()
        if end is None or code is None:
            return
        with self.ctx.db.joining() as conn:
            if extended is not None and extended[0][1] is not None:
                added = _encode(messages[len(extended[1]) :])
                if context_prefix.extend(
                    conn, self.thread_id, start, extended[0][1], end, code, added
                ):
                    return
            context_prefix.save(conn, self.thread_id, start, end, code, _encode(messages))

    def _prefix_messages(
        self, key: PrefixKey, cached: tuple[PrefixKey, list[Message]] | None
    ) -> list[Message]:
        """Extend the cached prefix by the items stored after it when they continue it
        (the previous Turn); else rebuild it from its start."""
        conn = self.ctx.db.conn
        start, end = key
        if cached is not None and cached[0][0] == start and cached[0][1] is not None and end:
            delta = items.continuation(conn, self.thread_id, cached[0][1], end)
            if delta is not None:
                return [*cached[1], *build_messages(delta)]
        if start is None:
            return build_messages(items.iter_branch(conn, end))
        if end is None:
            return []
        return build_messages(items.continuation(conn, self.thread_id, start, end) or [])
