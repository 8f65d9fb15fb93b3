"""A turn's frames (``frame``): the screenshots captured around browser actions, with the
tool call they belong to, kept within the profile's size budget (oldest first)."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(dict[str, Any]).decode


class FrameRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A stored frame. ``meta``: ``title``, ``viewport``, ``mark``, ``typed``, ``blurred``
    as the protocol's ``CapturedFrame`` names them (camelCase JSON)."""

    id: str
    thread_id: str
    turn_id: str
    item_id: str
    seq: int
    phase: str
    mime: str
    width: int
    height: int
    url: str
    captured_at: int
    meta: dict[str, Any]
    image: bytes


_COLUMNS = (
    "id, thread_id, turn_id, item_id, seq, phase, mime, width, height, url, captured_at, "
    "meta, image"
)
_LISTED = _COLUMNS.replace(", image", ", x'' AS image")


def _record(row: Any) -> FrameRecord:
    return FrameRecord(
        id=row[0],
        thread_id=row[1],
        turn_id=row[2],
        item_id=row[3],
        seq=row[4],
        phase=row[5],
        mime=row[6],
        width=row[7],
        height=row[8],
        url=row[9],
        captured_at=row[10],
        meta=_decode(row[11]),
        image=bytes(row[12]),
    )


def insert(conn: sqlite3.Connection, record: FrameRecord) -> None:
    """Store a frame; its item's cached wire JSON (``item_wire``), which lists the item's
    frames, is dropped."""
    conn.execute("DELETE FROM item_wire WHERE id = ?", (record.item_id,))
    conn.execute(
        f"INSERT INTO frame ({_COLUMNS}, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            record.id,
            record.thread_id,
            record.turn_id,
            record.item_id,
            record.seq,
            record.phase,
            record.mime,
            record.width,
            record.height,
            record.url,
            record.captured_at,
            _encode(record.meta).decode(),
            record.image,
            len(record.image),
        ),
    )


def get(conn: sqlite3.Connection, frame_id: str) -> FrameRecord | None:
    """The frame with its image; None when there is none (removed, or never stored)."""
    row = conn.execute(f"SELECT {_COLUMNS} FROM frame WHERE id = ?", (frame_id,)).fetchone()
    return _record(row) if row else None


def of_items(conn: sqlite3.Connection, item_ids: list[str]) -> dict[str, list[FrameRecord]]:
    """The frames of each of ``item_ids`` that has any, in order, without their images."""
    if not item_ids:
        return {}
    found: dict[str, list[FrameRecord]] = {}
    for start in range(0, len(item_ids), 500):
        chunk = item_ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT {_LISTED} FROM frame WHERE item_id IN ({marks}) ORDER BY item_id, seq",
            chunk,
        ).fetchall()
        for row in rows:
            record = _record(row)
            found.setdefault(record.item_id, []).append(record)
    return found


def of_thread(
    conn: sqlite3.Connection, thread_id: str, turn_id: str | None = None
) -> list[FrameRecord]:
    """The thread's frames (or one Turn's), with their images, in the order captured."""
    if turn_id is None:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM frame WHERE thread_id = ? ORDER BY captured_at, item_id, seq",
            (thread_id,),
        ).fetchall()
    else:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM frame WHERE thread_id = ? AND turn_id = ? "
            "ORDER BY captured_at, item_id, seq",
            (thread_id, turn_id),
        ).fetchall()
    return [_record(row) for row in rows]


def total_size(conn: sqlite3.Connection) -> int:
    """The bytes the profile's frames take (their images)."""
    row = conn.execute("SELECT COALESCE(SUM(size), 0) FROM frame").fetchone()
    return int(row[0])


def trim_to(conn: sqlite3.Connection, budget_bytes: int) -> list[str]:
    """Remove the oldest frames until their images take at most ``budget_bytes``; the ids
    removed. The cached wire JSON of their items (which lists them) is dropped."""
    over = total_size(conn) - budget_bytes
    removed: list[str] = []
    if over <= 0:
        return removed
    rows = conn.execute("SELECT id, size, item_id FROM frame ORDER BY captured_at, id")
    items: set[str] = set()
    for frame_id, size, item_id in rows:
        if over <= 0:
            break
        removed.append(frame_id)
        items.add(item_id)
        over -= size
    for start in range(0, len(removed), 500):
        chunk = removed[start : start + 500]
        conn.execute(f"DELETE FROM frame WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
    stale = sorted(items)
    for start in range(0, len(stale), 500):
        chunk = stale[start : start + 500]
        conn.execute(f"DELETE FROM item_wire WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
    return removed
