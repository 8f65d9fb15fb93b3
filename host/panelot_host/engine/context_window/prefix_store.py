"""The durable tier of the session prefix: a thread's prefix and the elision pass over it
in the store (``store.context_prefix``), encoded with msgpack, in parts (a new Turn
appends the messages it added).

A stored prefix or pass is read back only when it was written in ``PREFIX_FORMAT`` and
decodes; anything else reads as nothing, and the caller rebuilds and stores it again.
"""

from __future__ import annotations

import msgspec

from panelot_host.engine.context_window.elision import PrefixPass
from panelot_host.engine.history_cache import HeldPrefix, PrefixKey
from panelot_host.providers.types import Message
from panelot_host.store import context_prefix
from panelot_host.store.db import Database

PREFIX_FORMAT = "context-prefix/2"
"""The stored prefix's format. Bump it by hand whenever what a stored prefix or pass holds
changes: the msgpack encoding of the provider messages, ``elision.PrefixPass``, or the
code that decides them (``history``, ``session_context``, ``elision`` and the traits it
reads, ``tokens.message_tokens``); a prefix of another format is rebuilt, never trusted.
(1: the format was the encoding's number and a digest of those modules' source.)"""

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(list[Message]).decode


class StoredPass(msgspec.Struct, frozen=True):
    """An elision pass over a stored prefix, led by the summary of ``boundary`` (an item
    id; None: no summary)."""

    boundary: str | None
    passed: PrefixPass


_decode_pass = msgspec.msgpack.Decoder(StoredPass).decode


class PrefixStore:
    """Load and save a thread's stored prefix and its elision pass (``PREFIX_FORMAT``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def load(self, thread_id: str) -> HeldPrefix | None:
        """The prefix the store holds for the thread, if it is of ``PREFIX_FORMAT`` and
        decodes (a damaged or foreign one reads as None)."""
        stored = context_prefix.load(self.db.conn, thread_id)
        if stored is None or stored.format != PREFIX_FORMAT:
            return None
        messages: list[Message] = []
        try:
            for part in stored.parts:
                messages += _decode(part)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        return HeldPrefix(PrefixKey(stored.start_item_id, stored.end_item_id), messages)

    def holds(self, thread_id: str, key: PrefixKey) -> bool:
        """Whether the store still holds the prefix ``key`` (the triggers drop it when an
        item it covers changes); an empty one always holds."""
        if key.end is None:
            return True
        return context_prefix.holds(self.db.conn, thread_id, key.start, key.end, PREFIX_FORMAT)

    def save(self, thread_id: str, prefix: HeldPrefix, extended: HeldPrefix | None) -> None:
        """Store ``prefix``: the part it adds to ``extended`` (the prefix it continues,
        when that is the one stored), else all of it. An empty prefix is not stored."""
        start, end = prefix.key.start, prefix.key.end
        if end is None:
            return
        with self.db.joining() as conn:
            if extended is not None and extended.key.end is not None:
                added = _encode(prefix.messages[len(extended.messages) :])
                if context_prefix.extend(
                    conn, thread_id, start, extended.key.end, end, PREFIX_FORMAT, added
                ):
                    return
            context_prefix.save(
                conn, thread_id, start, end, PREFIX_FORMAT, _encode(prefix.messages)
            )

    def load_pass(self, thread_id: str, key: PrefixKey) -> StoredPass | None:
        """The elision pass stored with the prefix ``key``; None when there is none or it
        does not decode."""
        if key.end is None:
            return None
        blob = context_prefix.load_elision(
            self.db.conn, thread_id, key.start, key.end, PREFIX_FORMAT
        )
        try:
            return _decode_pass(blob) if blob is not None else None
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None

    def save_pass(self, thread_id: str, key: PrefixKey, stored: StoredPass) -> None:
        """Store the elision pass with the prefix ``key`` (when that is the one stored)."""
        if key.end is None:
            return
        blob = _encode(stored)
        with self.db.joining() as conn:
            context_prefix.save_elision(conn, thread_id, key.start, key.end, PREFIX_FORMAT, blob)
