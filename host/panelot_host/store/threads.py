"""Threads: create, read, list (paginated, searchable), rename, delete, stats, branch head;
each record read carries its latest Turn's status and Run state (the list shows them)."""

from __future__ import annotations

import base64
import re
import sqlite3
from typing import Any

import msgspec

from panelot_host.errors import InvalidParams, NotFound
from panelot_host.protocol.tabs import ThreadTabs
from panelot_host.store import tabs
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ThreadRecord, ThreadStats
from panelot_host.vocabulary import RunState, TitleSource, TurnStatus

_COLUMNS = (
    "id, title, title_source, parent_thread_id, forked_from_item_id, head_item_id, "
    "created_at, updated_at, turns, input_tokens, output_tokens, cache_read_tokens, "
    "cache_write_tokens, cost_usd, cost_known, reasoning_tokens"
)
_TERM = re.compile(r"\w+", re.UNICODE)


class ListCursor(msgspec.Struct, array_like=True, frozen=True):
    """Opaque to clients: (updated_at, id) of the last row, or the offset of a ranked search."""

    updated_at: int = 0
    thread_id: str = ""
    offset: int = 0


_cursor_decoder = msgspec.json.Decoder(ListCursor)


def _row(row: Any) -> ThreadRecord:
    (tid, title, source, parent, forked, head, created, updated, turns, inp, out, cr, cw, cost,
     known, reasoning) = row  # fmt: skip
    stats = ThreadStats(
        turns=int(turns),
        input_tokens=int(inp),
        output_tokens=int(out),
        cache_read_tokens=int(cr),
        cache_write_tokens=int(cw),
        cost_usd=float(cost) if known and cost is not None else None,
        reasoning_tokens=int(reasoning),
    )
    return ThreadRecord(
        id=str(tid),
        title=str(title),
        title_source=source,
        parent_thread_id=parent if isinstance(parent, str) else None,
        forked_from_item_id=forked if isinstance(forked, str) else None,
        head_item_id=head if isinstance(head, str) else None,
        created_at=int(created),
        updated_at=int(updated),
        stats=stats,
    )


def create(
    conn: sqlite3.Connection,
    *,
    title: str,
    title_source: TitleSource = "fallback",
    parent_thread_id: str | None = None,
    forked_from_item_id: str | None = None,
) -> ThreadRecord:
    now = now_ms()
    tid = new_id("thr")
    conn.execute(
        "INSERT INTO thread (id, title, title_source, parent_thread_id, forked_from_item_id, "
        "created_at, updated_at, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, 0.0)",
        (tid, title, title_source, parent_thread_id, forked_from_item_id, now, now),
    )
    index_title(conn, tid, title)
    return get(conn, tid)


def titles_starting_with(conn: sqlite3.Connection, prefix: str) -> set[str]:
    """The titles of the threads whose title starts with ``prefix`` (exactly, case and all)."""
    rows = conn.execute(
        "SELECT title FROM thread WHERE substr(title, 1, ?) = ?", (len(prefix), prefix)
    ).fetchall()
    return {row[0] for row in rows}


def get(conn: sqlite3.Connection, thread_id: str) -> ThreadRecord:
    """The live thread; raises ``NotFound`` for an unknown or deleted one."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM thread WHERE id = ? AND deleted = 0", (thread_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no thread {thread_id!r}")
    return _with_activity(conn, [_row(row)])[0]


_ACTIVITY = (
    "SELECT thread.id, turn.status, (SELECT run.state FROM run WHERE run.turn_id = turn.id "
    "ORDER BY run.rowid DESC LIMIT 1) FROM thread JOIN turn ON turn.rowid = (SELECT rowid "
    "FROM turn WHERE turn.thread_id = thread.id ORDER BY started_at DESC, rowid DESC LIMIT 1) "
    "WHERE thread.id IN ({marks})"
)


def _with_activity(conn: sqlite3.Connection, records: list[ThreadRecord]) -> list[ThreadRecord]:
    """The records with their latest Turn's status and its Run's state (one query), and
    their tabs (``store.tabs``)."""
    if not records:
        return records
    marks = ", ".join("?" * len(records))
    rows = conn.execute(_ACTIVITY.format(marks=marks), [r.id for r in records]).fetchall()
    found: dict[str, tuple[TurnStatus, RunState | None]] = {
        tid: (status, state) for tid, status, state in rows
    }
    groups = tabs.get_many(conn, [r.id for r in records])
    return [_active(record, found.get(record.id), groups.get(record.id)) for record in records]


def _active(
    record: ThreadRecord,
    activity: tuple[TurnStatus, RunState | None] | None,
    tab_group: ThreadTabs | None,
) -> ThreadRecord:
    if tab_group is not None:
        record = msgspec.structs.replace(record, tab_group=tab_group)
    if activity is None:
        return record
    status, state = activity
    return msgspec.structs.replace(record, last_turn_status=status, last_run_state=state)


def exists(conn: sqlite3.Connection, thread_id: str) -> bool:
    row = conn.execute("SELECT 1 FROM thread WHERE id = ? AND deleted = 0", (thread_id,)).fetchone()
    return row is not None


def rename(conn: sqlite3.Connection, thread_id: str, title: str, source: str) -> ThreadRecord:
    get(conn, thread_id)
    conn.execute(
        "UPDATE thread SET title = ?, title_source = ?, updated_at = ? WHERE id = ?",
        (title, source, now_ms(), thread_id),
    )
    conn.execute("DELETE FROM search_text WHERE thread_id = ? AND source = 'title'", (thread_id,))
    index_title(conn, thread_id, title)
    return get(conn, thread_id)


def delete(conn: sqlite3.Connection, thread_id: str) -> None:
    """Mark deleted, drop it from search and remove its frames (the thread row stays, so
    ``frame``'s ON DELETE CASCADE does not run); raises ``NotFound`` if it is not live."""
    get(conn, thread_id)
    conn.execute(
        "UPDATE thread SET deleted = 1, updated_at = ? WHERE id = ?", (now_ms(), thread_id)
    )
    conn.execute("DELETE FROM search_text WHERE thread_id = ?", (thread_id,))
    conn.execute("DELETE FROM frame WHERE thread_id = ?", (thread_id,))


def set_head(conn: sqlite3.Connection, thread_id: str, item_id: str | None) -> None:
    conn.execute(
        "UPDATE thread SET head_item_id = ?, updated_at = ? WHERE id = ?",
        (item_id, now_ms(), thread_id),
    )


def add_usage(
    conn: sqlite3.Connection,
    thread_id: str,
    *,
    head_item_id: str,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int,
    cache_write_tokens: int,
    cost_usd: float | None,
    reasoning_tokens: int = 0,
) -> ThreadRecord:
    """Add one model call's usage and move the head to what it stored, in one statement;
    the updated thread. An unknown cost makes the thread's cost unknown."""
    row = conn.execute(
        "UPDATE thread SET head_item_id = ?, input_tokens = input_tokens + ?, "
        "output_tokens = output_tokens + ?, cache_read_tokens = cache_read_tokens + ?, "
        "cache_write_tokens = cache_write_tokens + ?, reasoning_tokens = reasoning_tokens + ?, "
        "cost_usd = cost_usd + ?, "
        f"cost_known = cost_known AND ?, updated_at = ? WHERE id = ? RETURNING {_COLUMNS}",
        (
            head_item_id,
            input_tokens,
            output_tokens,
            cache_read_tokens,
            cache_write_tokens,
            reasoning_tokens,
            cost_usd or 0.0,
            cost_usd is not None,
            now_ms(),
            thread_id,
        ),
    ).fetchone()
    if row is None:
        raise NotFound(f"no thread {thread_id!r}")
    return _with_activity(conn, [_row(row)])[0]


def count_turn(conn: sqlite3.Connection, thread_id: str) -> None:
    conn.execute(
        "UPDATE thread SET turns = turns + 1, updated_at = ? WHERE id = ?", (now_ms(), thread_id)
    )


def list_threads(
    conn: sqlite3.Connection, *, limit: int, cursor: str | None, query: str | None
) -> tuple[list[ThreadRecord], str | None]:
    """One page of live threads and the cursor of the next page (None at the end).

    Without ``query``: most recently updated first. With ``query``: threads whose title or
    message text match every term (prefix match), best bm25 rank first; title hits weigh more;
    a query with no searchable term (only punctuation) matches nothing.
    Raises ``InvalidParams`` for a cursor this store did not issue.
    """
    position = _decode_cursor(cursor)
    if query:
        expression = _match_expression(query)
        if not expression:  # only punctuation: nothing can match it
            return [], None
        return _search_page(conn, expression, limit, position.offset)
    if position.thread_id:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM thread WHERE deleted = 0 AND (updated_at < ? OR "
            "(updated_at = ? AND id < ?)) ORDER BY updated_at DESC, id DESC LIMIT ?",
            (position.updated_at, position.updated_at, position.thread_id, limit + 1),
        ).fetchall()
    else:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM thread WHERE deleted = 0 "
            "ORDER BY updated_at DESC, id DESC LIMIT ?",
            (limit + 1,),
        ).fetchall()
    threads = _with_activity(conn, [_row(r) for r in rows[:limit]])
    if len(rows) <= limit:
        return threads, None
    last = threads[-1]
    return threads, _encode_cursor(ListCursor(last.updated_at, last.id))


def _search_page(
    conn: sqlite3.Connection, match: str, limit: int, offset: int
) -> tuple[list[ThreadRecord], str | None]:
    columns = ", ".join(f"t.{c.strip()}" for c in _COLUMNS.split(","))
    rows = conn.execute(
        f"SELECT {columns} FROM (SELECT thread_id, min(CASE source WHEN 'title' "
        "THEN rank * 2.0 ELSE rank END) AS score FROM search_text WHERE search_text MATCH ? "
        "GROUP BY thread_id) AS hits JOIN thread AS t ON t.id = hits.thread_id "
        "WHERE t.deleted = 0 ORDER BY hits.score, t.updated_at DESC LIMIT ? OFFSET ?",
        (match, limit + 1, offset),
    ).fetchall()
    threads = _with_activity(conn, [_row(r) for r in rows[:limit]])
    if len(rows) <= limit:
        return threads, None
    return threads, _encode_cursor(ListCursor(offset=offset + limit))


class SearchSnippet(msgspec.Struct, frozen=True):
    """A thread's best-ranked matching text cut around the hits, with the hits' spans
    (offsets in UTF-16 code units, as clients index strings)."""

    thread_id: str
    source: str  # 'title' or an item id
    text: str
    highlights: list[tuple[int, int]]


_HIT_OPEN, _HIT_CLOSE = "\ue000", "\ue001"
_SNIPPET_TOKENS = 16


def search_snippets(
    conn: sqlite3.Connection, query: str, thread_ids: list[str]
) -> list[SearchSnippet]:
    """One snippet per thread of ``thread_ids`` that matches ``query`` (same terms as
    ``list_threads``), in the order of ``thread_ids``."""
    match = _match_expression(query)
    if not match or not thread_ids:
        return []
    # One full-text query for every listed thread (a query per thread ran the MATCH over
    # the whole index each time: 50 x 7 ms for a word most threads contain); each thread's
    # best row is picked here (``snippet`` cannot run under a window function).
    marks = ", ".join("?" * len(thread_ids))
    rows = conn.execute(
        "SELECT thread_id, CASE source WHEN 'title' THEN rank * 2.0 ELSE rank END, rowid, "
        "source, snippet(search_text, 0, ?, ?, '…', ?) FROM search_text "
        f"WHERE search_text MATCH ? AND thread_id IN ({marks})",
        (_HIT_OPEN, _HIT_CLOSE, _SNIPPET_TOKENS, match, *thread_ids),
    ).fetchall()
    best: dict[str, tuple[str, str]] = {}
    for thread_id, _score, _rowid, source, marked in sorted(rows, key=lambda r: (r[1], r[2])):
        best.setdefault(str(thread_id), (str(source), str(marked)))
    found = []
    for thread_id in thread_ids:
        if thread_id in best:
            source, marked = best[thread_id]
            text, spans = _split_marks(marked)
            found.append(SearchSnippet(thread_id, source, text, spans))
    return found


def _split_marks(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """Remove the hit markers; return the plain text and the marked spans in UTF-16 units."""
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    units = 0
    start = -1
    for char in marked:
        if char == _HIT_OPEN:
            start = units
        elif char == _HIT_CLOSE:
            if start >= 0 and units > start:
                spans.append((start, units))
            start = -1
        else:
            text.append(char)
            units += 2 if ord(char) > 0xFFFF else 1
    return "".join(text), spans


def _match_expression(query: str) -> str:
    """Turn free text into a safe FTS5 expression: every term, each as a quoted prefix."""
    terms = _TERM.findall(query)
    return " ".join(f'"{term}"*' for term in terms[:16])


def _encode_cursor(cursor: ListCursor) -> str:
    return base64.urlsafe_b64encode(msgspec.json.encode(cursor)).decode().rstrip("=")


def _decode_cursor(cursor: str | None) -> ListCursor:
    if not cursor:
        return ListCursor()
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return _cursor_decoder.decode(base64.urlsafe_b64decode(padded))
    except (ValueError, msgspec.DecodeError) as exc:
        raise InvalidParams(
            "invalid cursor", [{"path": "$.cursor", "message": "not a cursor this host issued"}]
        ) from exc


def index_title(conn: sqlite3.Connection, thread_id: str, title: str) -> None:
    """Make a thread's title searchable."""
    conn.execute(
        "INSERT INTO search_text (body, thread_id, source) VALUES (?, ?, 'title')",
        (title, thread_id),
    )


def index_text(conn: sqlite3.Connection, thread_id: str, item_id: str, text: str) -> None:
    """Make a message's text searchable (call when the text is final)."""
    if text:
        conn.execute(
            "INSERT INTO search_text (body, thread_id, source) VALUES (?, ?, ?)",
            (text, thread_id, item_id),
        )
