"""The durable cache of a thread's session prefix: encoded provider messages of the
finished turns before a run's Turn, in parts (see migration 0008), and the engine's
elision pass over them.

A prefix is its parts in order: the first starts where the prefix starts, each later one
where the one before it ends, so a new Turn appends the messages it added instead of
rewriting the whole prefix. The store keeps bytes and what they were built from; the
engine encodes, decodes and decides whether a prefix matches. Triggers drop the parts that
may cover an item when it changes (the parts before them stay a valid, shorter prefix).
"""

from __future__ import annotations

import sqlite3
import zlib

import msgspec

MAX_PARTS = 32
"""Past this many parts a prefix is stored again as one (reading many small parts back
costs more than one rewrite now and then)."""


class CachedPrefix(msgspec.Struct, frozen=True):
    """A stored prefix: the items it runs from (exclusive; None: the root) and to, the
    format it was encoded in, and its parts' encoded messages, in order."""

    start_item_id: str | None
    end_item_id: str
    format: str
    parts: list[bytes]


def load(conn: sqlite3.Connection, thread_id: str) -> CachedPrefix | None:
    """The thread's cached prefix; None when there is none, or when a part is damaged, of
    another format or does not start where the part before it ends."""
    rows = conn.execute(
        "SELECT part, start_item_id, end_item_id, format, checksum, messages FROM "
        "context_prefix WHERE thread_id = ? ORDER BY part",
        (thread_id,),
    ).fetchall()
    if not rows:
        return None
    parts: list[bytes] = []
    end: str | None = None
    for number, (part, start, part_end, format, checksum, messages) in enumerate(rows):
        if part != number or format != rows[0][3] or (number and start != end):
            return None
        if not isinstance(messages, bytes) or zlib.crc32(messages) != checksum:
            return None
        parts.append(messages)
        end = part_end
    assert end is not None
    return CachedPrefix(rows[0][1], end, rows[0][3], parts)


def holds(
    conn: sqlite3.Connection, thread_id: str, start_item_id: str | None, end_item_id: str,
    format: str,
) -> bool:  # fmt: skip
    """Whether the thread's stored prefix still runs from ``start_item_id`` to
    ``end_item_id`` in ``format`` (no item it covers changed since it was stored)."""
    return _stored_key(conn, thread_id) == (start_item_id, end_item_id, format)


def save(
    conn: sqlite3.Connection, thread_id: str, start_item_id: str | None, end_item_id: str,
    format: str, messages: bytes,
) -> None:  # fmt: skip
    """Store the prefix from ``start_item_id`` to ``end_item_id`` (its encoded
    ``messages``) as the thread's cached prefix, in one part, replacing the previous one
    and its elision pass; nothing when its end item is gone."""
    conn.execute("DELETE FROM context_prefix WHERE thread_id = ?", (thread_id,))  # + pass
    _insert(conn, thread_id, 0, start_item_id, end_item_id, format, messages)


def extend(
    conn: sqlite3.Connection, thread_id: str, start_item_id: str | None, from_item_id: str,
    to_item_id: str, format: str, messages: bytes,
) -> bool:  # fmt: skip
    """Append the part from ``from_item_id`` to ``to_item_id`` (its encoded ``messages``)
    to the stored prefix that runs from ``start_item_id`` to ``from_item_id`` in
    ``format``; the elision pass over the shorter prefix goes. False (nothing written)
    when that is not the stored prefix, or it has ``MAX_PARTS`` parts already."""
    row = conn.execute(
        "SELECT count(*), max(part) FROM context_prefix WHERE thread_id = ?", (thread_id,)
    ).fetchone()
    count, last = int(row[0]), row[1]
    if count == 0 or count >= MAX_PARTS or count != int(last) + 1:
        return False
    if _stored_key(conn, thread_id) != (start_item_id, from_item_id, format):
        return False
    conn.execute("DELETE FROM context_elision WHERE thread_id = ?", (thread_id,))
    _insert(conn, thread_id, count, from_item_id, to_item_id, format, messages)
    return True


def _insert(
    conn: sqlite3.Connection, thread_id: str, part: int, start_item_id: str | None,
    end_item_id: str, format: str, messages: bytes,
) -> None:  # fmt: skip
    conn.execute(
        "INSERT INTO context_prefix (thread_id, part, start_item_id, end_item_id, end_ord, "
        "format, checksum, messages) SELECT ?, ?, ?, ?, ord, ?, ?, ? FROM item WHERE id = ?",
        (thread_id, part, start_item_id, end_item_id, format, zlib.crc32(messages), messages,
         end_item_id),
    )  # fmt: skip


def _stored_key(conn: sqlite3.Connection, thread_id: str) -> tuple[str | None, str, str] | None:
    """(start, end, format) of the stored prefix: its first part's start and its last
    part's end (both of one format); None when nothing is stored."""
    row = conn.execute(
        "SELECT f.start_item_id, l.end_item_id, f.format, l.format FROM context_prefix f "
        "JOIN context_prefix l ON l.thread_id = f.thread_id WHERE f.thread_id = ? "
        "AND f.part = 0 AND l.part = (SELECT max(part) FROM context_prefix WHERE thread_id = ?)",
        (thread_id, thread_id),
    ).fetchone()
    if row is None or row[2] != row[3]:
        return None
    return row[0], row[1], row[2]


def load_elision(
    conn: sqlite3.Connection, thread_id: str, start_item_id: str | None, end_item_id: str,
    format: str,
) -> bytes | None:  # fmt: skip
    """The elision pass stored with the thread's prefix from ``start_item_id`` to
    ``end_item_id`` in ``format``; None when there is none or it is damaged."""
    if _stored_key(conn, thread_id) != (start_item_id, end_item_id, format):
        return None
    row = conn.execute(
        "SELECT elision, checksum FROM context_elision WHERE thread_id = ? AND part = "
        "(SELECT max(part) FROM context_prefix WHERE thread_id = ?)",
        (thread_id, thread_id),
    ).fetchone()
    if row is None or not isinstance(row[0], bytes) or zlib.crc32(row[0]) != row[1]:
        return None
    return row[0]


def save_elision(
    conn: sqlite3.Connection, thread_id: str, start_item_id: str | None, end_item_id: str,
    format: str, elision: bytes,
) -> None:  # fmt: skip
    """Store the elision pass with the thread's prefix (when that prefix is the one stored)."""
    if _stored_key(conn, thread_id) != (start_item_id, end_item_id, format):
        return
    conn.execute(
        "INSERT OR REPLACE INTO context_elision (thread_id, part, checksum, elision) "
        "SELECT ?, max(part), ?, ? FROM context_prefix WHERE thread_id = ?",
        (thread_id, zlib.crc32(elision), elision, thread_id),
    )
