"""The durable cache of a thread's session prefix: encoded provider messages of the
finished turns before a run's Turn, one row per thread (see migration 0007), and the
engine's elision pass over them.

The store keeps bytes and what they were built from; the engine encodes, decodes and
decides whether a row matches. Triggers drop a row when an item it may cover changes.
"""

from __future__ import annotations

import sqlite3
import zlib

import msgspec


class CachedPrefix(msgspec.Struct, frozen=True):
    """A stored prefix: the items it runs from (exclusive; None: the root) and to, the
    format it was encoded in, and the encoded messages (checked against ``checksum``)."""

    start_item_id: str | None
    end_item_id: str
    format: str
    messages: bytes


def load(conn: sqlite3.Connection, thread_id: str) -> CachedPrefix | None:
    """The thread's cached prefix; None when there is none or its blob is damaged."""
    row = conn.execute(
        "SELECT start_item_id, end_item_id, format, checksum, messages FROM context_prefix "
        "WHERE thread_id = ?",
        (thread_id,),
    ).fetchone()
    if row is None or not isinstance(row[4], bytes) or zlib.crc32(row[4]) != row[3]:
        return None
    return CachedPrefix(row[0], row[1], row[2], row[4])


def holds(
    conn: sqlite3.Connection, thread_id: str, start_item_id: str | None, end_item_id: str,
    format: str,
) -> bool:  # fmt: skip
    """Whether the thread's stored prefix is still the one from ``start_item_id`` to
    ``end_item_id`` in ``format`` (no item it covers changed since it was stored)."""
    row = conn.execute(
        "SELECT 1 FROM context_prefix WHERE thread_id = ? AND start_item_id IS ? "
        "AND end_item_id = ? AND format = ?",
        (thread_id, start_item_id, end_item_id, format),
    ).fetchone()
    return row is not None


def save(conn: sqlite3.Connection, thread_id: str, prefix: CachedPrefix) -> None:
    """Store ``prefix`` as the thread's cached prefix (replacing the previous one and its
    elision pass); nothing when its end item is gone."""
    conn.execute("DELETE FROM context_elision WHERE thread_id = ?", (thread_id,))
    conn.execute("DELETE FROM context_prefix WHERE thread_id = ?", (thread_id,))
    conn.execute(
        "INSERT INTO context_prefix (thread_id, start_item_id, end_item_id, end_ord, "
        "format, checksum, messages) SELECT ?, ?, ?, ord, ?, ?, ? FROM item WHERE id = ?",
        (
            thread_id,
            prefix.start_item_id,
            prefix.end_item_id,
            prefix.format,
            zlib.crc32(prefix.messages),
            prefix.messages,
            prefix.end_item_id,
        ),
    )


def load_elision(
    conn: sqlite3.Connection, thread_id: str, start_item_id: str | None, end_item_id: str,
    format: str,
) -> bytes | None:  # fmt: skip
    """The elision pass stored with the thread's prefix from ``start_item_id`` to
    ``end_item_id`` in ``format``; None when there is none or it is damaged."""
    row = conn.execute(
        "SELECT e.elision, e.checksum FROM context_elision e JOIN context_prefix p "
        "ON p.thread_id = e.thread_id WHERE e.thread_id = ? AND p.start_item_id IS ? "
        "AND p.end_item_id = ? AND p.format = ?",
        (thread_id, start_item_id, end_item_id, format),
    ).fetchone()
    if row is None or not isinstance(row[0], bytes) or zlib.crc32(row[0]) != row[1]:
        return None
    return row[0]


def save_elision(
    conn: sqlite3.Connection, thread_id: str, start_item_id: str | None, end_item_id: str,
    format: str, elision: bytes,
) -> None:  # fmt: skip
    """Store the elision pass with the thread's prefix (when that prefix is the one stored)."""
    conn.execute(
        "INSERT OR REPLACE INTO context_elision (thread_id, checksum, elision) "
        "SELECT thread_id, ?, ? FROM context_prefix WHERE thread_id = ? "
        "AND start_item_id IS ? AND end_item_id = ? AND format = ?",
        (zlib.crc32(elision), elision, thread_id, start_item_id, end_item_id, format),
    )
