"""Thread listing: cursor pagination and ranked full-text search."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelot_host.errors import InvalidParams, NotFound
from panelot_host.store import items, threads
from panelot_host.store.db import Database
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord


def _db(tmp_path: Path) -> Database:
    return Database.open(tmp_path / "p.db")


def test_pages_cover_every_thread_once_newest_first(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with db.transaction() as conn:
        created = [threads.create(conn, title=f"thread {n}").id for n in range(25)]
    seen: list[str] = []
    cursor = None
    while True:
        page, cursor = threads.list_threads(db.conn, limit=7, cursor=cursor, query=None)
        seen.extend(t.id for t in page)
        if cursor is None:
            break
    assert sorted(seen) == sorted(created)
    assert len(seen) == len(set(seen))
    listed = [threads.get(db.conn, tid) for tid in seen]
    keys = [(t.updated_at, t.id) for t in listed]
    assert keys == sorted(keys, reverse=True)


def _message(db: Database, thread_id: str, text: str) -> None:
    with db.transaction() as conn:
        items.insert(
            conn,
            ItemRecord(
                id=new_id("itm"),
                thread_id=thread_id,
                parent_id=None,
                turn_id=None,
                kind="user",
                created_at=now_ms(),
                text=text,
            ),
        )


def test_search_matches_titles_and_message_text_ranked(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with db.transaction() as conn:
        title_hit = threads.create(conn, title="Kyoto itinerary")
        body_hit = threads.create(conn, title="Misc")
        other = threads.create(conn, title="Taxes")
    _message(db, body_hit.id, "we might visit kyoto in spring")
    _message(db, other.id, "receipts and forms")
    page, _ = threads.list_threads(db.conn, limit=10, cursor=None, query="Kyoto")
    assert [t.id for t in page] == [title_hit.id, body_hit.id]
    page, _ = threads.list_threads(db.conn, limit=10, cursor=None, query="kyo spr")
    assert [t.id for t in page] == [body_hit.id]


def test_search_snippets_mark_the_hits_in_utf16_units(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with db.transaction() as conn:
        titled = threads.create(conn, title="Kyoto itinerary")
        body = threads.create(conn, title="Misc")
    _message(db, body.id, "👋 we might visit kyoto in spring, then Kyoto again")
    found = threads.search_snippets(db.conn, "kyo", [titled.id, body.id])
    assert (found[0].thread_id, found[0].source) == (titled.id, "title")
    assert found[0].text == "Kyoto itinerary" and found[0].highlights == [(0, 5)]
    snippet = found[1]
    assert snippet.source.startswith("itm") and "\ue000" not in snippet.text
    utf16 = snippet.text.encode("utf-16-le")
    marked = [utf16[2 * a : 2 * b].decode("utf-16-le") for a, b in snippet.highlights]
    assert marked == ["kyoto", "Kyoto"]
    assert threads.search_snippets(db.conn, "((", [body.id]) == []


def test_search_survives_fts_syntax_in_the_query(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with db.transaction() as conn:
        threads.create(conn, title='weird "quotes" AND (parens) NEAR*')
    page, _ = threads.list_threads(db.conn, limit=10, cursor=None, query='"quotes" AND (')
    assert len(page) == 1
    page, _ = threads.list_threads(db.conn, limit=10, cursor=None, query="*** ((( ")
    assert page == []  # no searchable term: nothing matches it (not every thread)


def test_deleted_and_renamed_threads_leave_search(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with db.transaction() as conn:
        gone = threads.create(conn, title="alpha")
        renamed = threads.create(conn, title="alpha two")
        threads.delete(conn, gone.id)
        threads.rename(conn, renamed.id, "beta", "user")
    assert threads.list_threads(db.conn, limit=10, cursor=None, query="alpha")[0] == []
    assert [t.id for t in threads.list_threads(db.conn, limit=10, cursor=None, query="beta")[0]]
    found, _ = threads.list_threads(db.conn, limit=10, cursor=None, query="beta")
    assert [t.id for t in found] == [renamed.id]
    assert threads.list_threads(db.conn, limit=10, cursor=None, query="two")[0] == []  # old title
    with pytest.raises(NotFound):
        threads.get(db.conn, gone.id)


def test_search_pages_with_cursor(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with db.transaction() as conn:
        for n in range(5):
            threads.create(conn, title=f"report {n}")
    first, cursor = threads.list_threads(db.conn, limit=3, cursor=None, query="report")
    second, end = threads.list_threads(db.conn, limit=3, cursor=cursor, query="report")
    assert len(first) == 3 and len(second) == 2 and end is None
    assert not {t.id for t in first} & {t.id for t in second}


def test_foreign_cursor_is_invalid_params(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with pytest.raises(InvalidParams):
        threads.list_threads(db.conn, limit=3, cursor="not-a-cursor!", query=None)


_WORDS = ["invoice", "invoices", "kyoto", "spring", "tax", "receipt", "Kyōto", "inv"]


def _best_snippet_one_thread_at_a_time(
    db: Database, query: str, thread_id: str
) -> tuple[str, str] | None:
    """The reference: each thread's best-ranked snippet, one query per thread."""
    row = db.conn.execute(
        "SELECT source, snippet(search_text, 0, ?, ?, '…', ?) FROM search_text "
        "WHERE search_text MATCH ? AND thread_id = ? "
        "ORDER BY CASE source WHEN 'title' THEN rank * 2.0 ELSE rank END, rowid LIMIT 1",
        (
            threads._HIT_OPEN,
            threads._HIT_CLOSE,
            threads._SNIPPET_TOKENS,
            threads._match_expression(query),
            thread_id,
        ),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    texts=st.lists(
        st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6), max_size=4),
        min_size=1,
        max_size=8,
    ),
    query=st.sampled_from(["invoice", "inv", "kyoto spring", "tax", "receipt kyo", "zzz"]),
)
def test_snippets_of_many_threads_are_each_threads_best_one(
    tmp_path_factory: pytest.TempPathFactory, texts: list[list[list[str]]], query: str
) -> None:
    """One query for all listed threads gives what a query per thread gives."""
    db = _db(tmp_path_factory.mktemp("snippets"))
    try:
        ids = []
        for number, messages in enumerate(texts):
            with db.transaction() as conn:
                first_word = messages[0][0] if messages else ""
                made = threads.create(conn, title=f"thread {number} {first_word}")
            for words in messages:
                _message(db, made.id, " ".join(words))
            ids.append(made.id)
        found = threads.search_snippets(db.conn, query, ids)
        expected = []
        for thread_id in ids:
            best = _best_snippet_one_thread_at_a_time(db, query, thread_id)
            if best is not None:
                text, spans = threads._split_marks(best[1])
                expected.append(threads.SearchSnippet(thread_id, best[0], text, spans))
        assert found == expected
    finally:
        db.close()
