"""``thread.list``: a page of threads, and with a query the matching text.

A query alone, in its own module: the host's prelude answers the first ``thread.list``
with it before the rest of the engine is loaded (``server.prelude``);
``ThreadService.list`` is this same function.
"""

from __future__ import annotations

from panelot_host.engine import views
from panelot_host.protocol.ops import threads as ops
from panelot_host.store import threads
from panelot_host.store.db import Database


def list_threads(
    db: Database, limit: int, cursor: str | None = None, query: str | None = None
) -> ops.ThreadListResult:
    """A page of threads, most recently updated first; with ``query``, the matches."""
    records, next_cursor = threads.list_threads(db.conn, limit=limit, cursor=cursor, query=query)
    matches = None
    if query:
        found = threads.search_snippets(db.conn, query, [r.id for r in records])
        matches = [_match_view(s) for s in found]
    return ops.ThreadListResult(
        threads=[views.thread_view(r) for r in records],
        next_cursor=next_cursor,
        matches=matches,
    )


def _match_view(found: threads.SearchSnippet) -> ops.ThreadMatch:
    spans = [ops.MatchSpan(start=start, end=end) for start, end in found.highlights]
    if found.source == "title":
        return ops.ThreadMatch(
            thread_id=found.thread_id, source="title", text=found.text, highlights=spans
        )
    return ops.ThreadMatch(
        thread_id=found.thread_id,
        source="message",
        text=found.text,
        highlights=spans,
        item_id=found.source,
    )
