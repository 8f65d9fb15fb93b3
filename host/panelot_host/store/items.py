"""Items: the nodes of a thread's tree. A branch is the path from a head item to the root.

Nothing is rewritten: editing or forking adds siblings. Tool calls hold their result on the
same row; ``batch_item_id``/``batch_index`` tie each call to the assistant message that made
it, so a parallel batch rebuilds as one message however its rows were interleaved on disk.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgspec

from panelot_host.errors import NotFound
from panelot_host.store import threads
from panelot_host.store.ids import now_ms
from panelot_host.store.records import CallEvidence, ItemRecord, ToolCallExtra
from panelot_host.vocabulary import ToolCallStatus, ToolLevel

_COLUMNS = (
    "id, thread_id, parent_id, turn_id, kind, created_at, text, thinking, extra, interrupted, "
    "call_id, name, args, descriptor_digest, batch_item_id, batch_index, status, result"
)
_SEARCHABLE = frozenset({"user", "steering", "assistant"})
_json_encode = msgspec.json.Encoder().encode
_dict_decode = msgspec.json.Decoder(dict[str, Any]).decode
_call_extra_decode = msgspec.json.Decoder(ToolCallExtra).decode
_NO_CALL_EXTRA = ToolCallExtra()


def _load(raw: str | None) -> dict[str, Any] | None:
    return None if raw is None else _dict_decode(raw)


def _dump(value: dict[str, Any] | None) -> str | None:
    return None if value is None else _json_encode(value).decode()


def _row(row: Any) -> ItemRecord:
    if row[4] == "toolCall":  # a tool call's extra is typed (keys unknown to it are ignored)
        call_extra = _call_extra_decode(row[8]) if row[8] else _NO_CALL_EXTRA
        extra: dict[str, Any] = {}
    else:
        call_extra, extra = _NO_CALL_EXTRA, _load(row[8]) or {}
    return ItemRecord(
        id=row[0],
        thread_id=row[1],
        parent_id=row[2],
        turn_id=row[3],
        kind=row[4],
        created_at=row[5],
        text=row[6],
        thinking=row[7],
        extra=extra,
        interrupted=bool(row[9]),
        call_id=row[10],
        name=row[11],
        args=_load(row[12]),
        descriptor_digest=row[13],
        batch_item_id=row[14],
        batch_index=row[15],
        status=row[16],
        result=_load(row[17]),
        call_extra=call_extra,
    )


def _dump_extra(item: ItemRecord) -> str | None:
    if item.kind == "toolCall":
        if item.extra:
            raise ValueError("a tool call's extra data is its call_extra (ToolCallExtra)")
        return _json_encode(item.call_extra).decode() if item.call_extra != _NO_CALL_EXTRA else None
    return _dump(item.extra) if item.extra else None


def insert(conn: sqlite3.Connection, item: ItemRecord, *, index_text: bool = True) -> None:
    """Store a new item; user, steering and final assistant text becomes searchable."""
    conn.execute(
        f"INSERT INTO item ({_COLUMNS}) VALUES ({', '.join('?' * 18)})",
        (
            item.id,
            item.thread_id,
            item.parent_id,
            item.turn_id,
            item.kind,
            item.created_at,
            item.text,
            item.thinking,
            _dump_extra(item),
            int(item.interrupted),
            item.call_id,
            item.name,
            _dump(item.args),
            item.descriptor_digest,
            item.batch_item_id,
            item.batch_index,
            item.status,
            _dump(item.result),
        ),
    )
    if index_text and item.kind in _SEARCHABLE and item.text:
        threads.index_text(conn, item.thread_id, item.id, item.text)


def get(conn: sqlite3.Connection, item_id: str) -> ItemRecord:
    row = conn.execute(f"SELECT {_COLUMNS} FROM item WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        raise NotFound(f"no item {item_id!r}")
    return _row(row)


def find_in_thread(conn: sqlite3.Connection, thread_id: str, item_id: str) -> ItemRecord:
    """The item, which must belong to ``thread_id``; raises ``NotFound`` otherwise."""
    item = get(conn, item_id)
    if item.thread_id != thread_id:
        raise NotFound(f"item {item_id!r} is not in thread {thread_id!r}")
    return item


def branch_ids(conn: sqlite3.Connection, thread_id: str, head_item_id: str | None) -> list[str]:
    """The ids from the root to ``head_item_id``, oldest first (empty for no head).

    Reads the thread's (id, parent) pairs in one pass and walks the parent links in
    Python: cheaper than a recursive query for long threads.
    """
    if head_item_id is None:
        return []
    return _walk(dict(links_of(conn, thread_id)), head_item_id)


BranchPoints = list[tuple[str, list[tuple[str, str]]]]
"""Per branch point: the item on the branch, and each sibling (itself included, oldest
first) with the newest item stored below it."""


def branch_with_points(
    conn: sqlite3.Connection, thread_id: str, head_item_id: str | None
) -> tuple[list[str], BranchPoints]:
    """``branch_ids``, and for each item of that branch that has siblings: the item and its
    siblings with itself, oldest first, each with the newest item stored below it (or
    itself), the head that selects its branch. One read of the thread's links."""
    links = links_of(conn, thread_id)
    parents = dict(links)
    path = _walk(parents, head_item_id) if head_item_id is not None else []
    children_count = Counter(parents.values())
    forked = [item_id for item_id in path if children_count[parents[item_id]] > 1]
    if not forked:
        return path, []
    children: dict[str | None, list[str]] = {}
    for item_id, parent_id in links:  # oldest first: siblings in the order they were stored
        children.setdefault(parent_id, []).append(item_id)
    order = {item_id: n for n, (item_id, _) in enumerate(links)}
    points = [
        (item_id, [(s, _newest_below(children, order, s)) for s in children[parents[item_id]]])
        for item_id in forked
    ]
    return path, points


def links_of(conn: sqlite3.Connection, thread_id: str) -> list[tuple[str, str | None]]:
    """The thread's (id, parent id) pairs, oldest first."""
    return conn.execute(
        "SELECT id, parent_id FROM item WHERE thread_id = ? ORDER BY ord", (thread_id,)
    ).fetchall()


def _walk(parents: dict[str, str | None], head_item_id: str) -> list[str]:
    path: list[str] = []
    current: str | None = head_item_id
    while current is not None and current in parents:
        path.append(current)
        current = parents[current]
    path.reverse()
    return path


def _newest_below(children: dict[str | None, list[str]], order: dict[str, int], top: str) -> str:
    newest, stack = top, [top]
    while stack:
        node = stack.pop()
        if order[node] > order[newest]:
            newest = node
        stack.extend(children.get(node, []))
    return newest


def branch(conn: sqlite3.Connection, head_item_id: str | None) -> list[ItemRecord]:
    """The items from the root to ``head_item_id``, oldest first (empty for no head)."""
    thread_id = _thread_of(conn, head_item_id)
    if thread_id is None:
        return []
    return of_thread(conn, thread_id, branch_ids(conn, thread_id, head_item_id))


def of_thread(conn: sqlite3.Connection, thread_id: str, item_ids: list[str]) -> list[ItemRecord]:
    """The items ``item_ids`` of ``thread_id``, in that order; one pass over the thread's
    rows, decoding only the ones asked for (other branches' rows are never decoded)."""
    wanted = set(item_ids)
    rows = conn.execute(f"SELECT {_COLUMNS} FROM item WHERE thread_id = ?", (thread_id,))
    by_id = {row[0]: row for row in rows if row[0] in wanted}
    return [_row(by_id[item_id]) for item_id in item_ids]


def iter_branch(
    conn: sqlite3.Connection, head_item_id: str | None, *, chunk: int = 500
) -> Iterator[ItemRecord]:
    """``branch`` as a stream, oldest first, holding ``chunk`` rows at a time (rebuilding
    a long thread's history for a model call without keeping every row in memory)."""
    thread_id = _thread_of(conn, head_item_id)
    if thread_id is None:
        return
    path = branch_ids(conn, thread_id, head_item_id)
    for start in range(0, len(path), chunk):
        ids = path[start : start + chunk]
        marks = ", ".join("?" * len(ids))
        rows = conn.execute(f"SELECT {_COLUMNS} FROM item WHERE id IN ({marks})", ids).fetchall()
        by_id = {row[0]: row for row in rows}
        for item_id in ids:
            yield _row(by_id[item_id])


def _thread_of(conn: sqlite3.Connection, item_id: str | None) -> str | None:
    if item_id is None:
        return None
    found = conn.execute("SELECT thread_id FROM item WHERE id = ?", (item_id,)).fetchone()
    return None if found is None else str(found[0])


def of_turn(
    conn: sqlite3.Connection,
    thread_id: str,
    turn_id: str,
    *,
    statuses: tuple[ToolCallStatus, ...] = (),
    after: str | None = None,
) -> list[ItemRecord]:
    """The items a Turn added to its thread, in the order they were stored (a running
    Turn's items are one chain, so this is their branch order); optionally only tool
    calls in ``statuses``, or only the items stored after the item ``after``."""
    query = f"SELECT {_COLUMNS} FROM item WHERE thread_id = ? AND turn_id = ?"
    args: tuple[str, ...] = (thread_id, turn_id)
    if statuses:
        query += f" AND kind = 'toolCall' AND status IN ({', '.join('?' * len(statuses))})"
        args += statuses
    if after is not None:
        query += " AND ord > (SELECT ord FROM item WHERE id = ?)"
        args += (after,)
    return [_row(r) for r in conn.execute(query + " ORDER BY ord", args).fetchall()]


def set_tool_status(
    conn: sqlite3.Connection,
    item_id: str,
    status: ToolCallStatus,
    result: dict[str, Any] | None = None,
) -> None:
    """Move a tool call to ``status``; ``result`` (once settled) is stored on the same row,
    with when (``extra.endedAt``)."""
    ended = None if result is None else now_ms()
    conn.execute(
        "UPDATE item SET status = ?, result = coalesce(?, result), extra = CASE WHEN ? IS NULL "
        "THEN extra ELSE json_set(coalesce(extra, '{}'), '$.endedAt', ?) END WHERE id = ?",
        (status, _dump(result), ended, ended, item_id),
    )


def settle_call(
    conn: sqlite3.Connection, item_id: str, status: ToolCallStatus, result: dict[str, Any]
) -> ItemRecord:
    """Store a tool call's final ``status`` and ``result`` (and when: ``extra.endedAt``);
    the settled item."""
    row = conn.execute(
        "UPDATE item SET status = ?, result = ?, extra = json_set(coalesce(extra, '{}'), "
        f"'$.endedAt', ?) WHERE id = ? RETURNING {_COLUMNS}",
        (status, _dump(result), now_ms(), item_id),
    ).fetchone()
    if row is None:
        raise NotFound(f"no item {item_id!r}")
    return _row(row)


def set_frame_skipped(conn: sqlite3.Connection, item_id: str, skipped: str) -> None:
    """Record why a tool call that acts on a page has no frame (``extra.frameSkipped``)."""
    conn.execute(
        "UPDATE item SET extra = json_set(coalesce(extra, '{}'), '$.frameSkipped', ?) WHERE id = ?",
        (skipped, item_id),
    )


def call_id_taken(conn: sqlite3.Connection, thread_id: str, call_id: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM item WHERE thread_id = ? AND call_id = ?", (thread_id, call_id)
    ).fetchone()
    return row is not None


def copy_branch(
    conn: sqlite3.Connection, source: list[ItemRecord], thread_id: str, new_id: Any
) -> str | None:
    """Copy a branch into ``thread_id`` with fresh item ids; return the new head's id.

    Provider call ids are kept (they stay unique within the new thread), and a compaction's
    ``throughItemId`` follows its item, so the fork's history rebuilds into the same
    provider requests as the original.
    """
    mapping: dict[str, str] = {}
    for item in source:
        fresh = new_id("itm")
        mapping[item.id] = fresh
        extra = item.extra
        if "throughItemId" in extra:  # a compaction names the last item it covers
            extra = {**extra, "throughItemId": mapping.get(extra["throughItemId"])}
        insert(
            conn,
            msgspec.structs.replace(
                item,
                id=fresh,
                thread_id=thread_id,
                parent_id=mapping.get(item.parent_id) if item.parent_id else None,
                batch_item_id=mapping.get(item.batch_item_id) if item.batch_item_id else None,
                extra=extra,
            ),
        )
    return mapping[source[-1].id] if source else None


def set_evidence(conn: sqlite3.Connection, item_id: str, evidence: CallEvidence) -> None:
    """Store the evidence of a tool call whose outcome is unknown (its other extra data
    is kept)."""
    conn.execute(
        "UPDATE item SET extra = json_set(coalesce(extra, '{}'), '$.evidence', json(?)) "
        "WHERE id = ?",
        (_json_encode(evidence).decode(), item_id),
    )


def continuation(
    conn: sqlite3.Connection, thread_id: str, start_id: str, end_id: str
) -> list[ItemRecord] | None:
    """The items after ``start_id`` up to ``end_id`` on ``end_id``'s branch, oldest first;
    None when ``start_id`` is not an ancestor of ``end_id``. Reads only the rows stored
    after ``start_id``, so extending a cached history costs what was added, not the thread.
    """
    start = conn.execute("SELECT ord FROM item WHERE id = ?", (start_id,)).fetchone()
    if start is None:
        return None
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM item WHERE thread_id = ? AND ord > ? ORDER BY ord",
        (thread_id, start[0]),
    ).fetchall()
    by_id = {row[0]: row for row in rows}
    path: list[str] = []
    current: str | None = end_id
    while current != start_id:
        if current is None or current not in by_id:
            return None
        path.append(current)
        current = by_id[current][2]  # parent_id
    return [_row(by_id[item_id]) for item_id in reversed(path)]


def start_call(conn: sqlite3.Connection, item_id: str, started: ToolCallExtra) -> None:
    """Mark a tool call ``running`` and record with it what recovery needs (its recovery
    class, its target: the fields set in ``started``) and when it started, in one statement."""
    conn.execute(
        "UPDATE item SET status = 'running', extra = json_patch(coalesce(extra, '{}'), ?) "
        "WHERE id = ?",
        (_json_encode(msgspec.structs.replace(started, started_at=now_ms())).decode(), item_id),
    )


def reset_call(conn: sqlite3.Connection, item_id: str) -> None:
    """Back to ``pending`` with no result (the user chose to retry an uncertain call)."""
    conn.execute(
        "UPDATE item SET status = 'pending', result = NULL, "
        "extra = json_remove(coalesce(extra, '{}'), '$.endedAt') WHERE id = ?",
        (item_id,),
    )


def with_status(conn: sqlite3.Connection, status: ToolCallStatus) -> list[ItemRecord]:
    """Every tool call in ``status``, whatever its thread (e.g. the uncertain ones)."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM item WHERE kind = 'toolCall' AND status = ? ORDER BY ord",
        (status,),
    ).fetchall()
    return [_row(r) for r in rows]


def has_notice(conn: sqlite3.Connection, thread_id: str, turn_id: str, code: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM item WHERE thread_id = ? AND turn_id = ? AND kind = 'notice' "
        "AND json_extract(extra, '$.code') = ? LIMIT 1",
        (thread_id, turn_id, code),
    ).fetchone()
    return row is not None


def turn_ran_level(conn: sqlite3.Connection, turn_id: str, level: ToolLevel) -> bool:
    """Whether a tool call of the Turn ran at ``level`` (L2: a debugger was attached)."""
    row = conn.execute(
        "SELECT 1 FROM item WHERE turn_id = ? AND kind = 'toolCall' "
        "AND json_extract(extra, '$.level') = ? LIMIT 1",
        (turn_id, level),
    ).fetchone()
    return row is not None


def latest_compaction(
    conn: sqlite3.Connection, thread_id: str, head_item_id: str | None
) -> ItemRecord | None:
    """The newest ``compaction`` item on the branch ending at ``head_item_id``, if any.

    One query when the thread has none (the common case); the branch is walked only
    when it has some."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM item WHERE thread_id = ? AND kind = 'compaction' "
        "ORDER BY ord DESC",
        (thread_id,),
    ).fetchall()
    if not rows:
        return None
    on_branch = set(branch_ids(conn, thread_id, head_item_id))
    return next((_row(row) for row in rows if row[0] in on_branch), None)
