"""The tabs each thread owns and its tab group (``thread_tab``, ``thread_tab_group``)."""

from __future__ import annotations

import sqlite3
from typing import cast

from panelot_host.protocol.tabs import TabGroupColor, TabSource, ThreadTab, ThreadTabs


def get(conn: sqlite3.Connection, thread_id: str) -> ThreadTabs | None:
    """The thread's tabs, current first; None when it never had a group."""
    return get_many(conn, [thread_id]).get(thread_id)


def get_many(conn: sqlite3.Connection, thread_ids: list[str]) -> dict[str, ThreadTabs]:
    """The tabs of those of ``thread_ids`` that have a group (two queries in all)."""
    if not thread_ids:
        return {}
    marks = ", ".join("?" * len(thread_ids))
    groups = conn.execute(
        f"SELECT thread_id, group_id, title, color FROM thread_tab_group "
        f"WHERE thread_id IN ({marks})",
        thread_ids,
    ).fetchall()
    tabs: dict[str, list[ThreadTab]] = {row[0]: [] for row in groups}
    rows = conn.execute(
        f"SELECT thread_id, tab_id, url, title, source, grouped FROM thread_tab "
        f"WHERE thread_id IN ({marks}) ORDER BY thread_id, rank",
        thread_ids,
    ).fetchall()
    for row in rows:
        tabs.setdefault(row[0], []).append(
            ThreadTab(
                tab_id=row[1],
                url=row[2],
                title=row[3],
                source=cast(TabSource, row[4]),
                grouped=bool(row[5]),
            )
        )
    return {
        thread_id: ThreadTabs(
            thread_id=thread_id,
            group_id=group_id,
            title=title,
            color=cast(TabGroupColor, color),
            tabs=tabs.get(thread_id, []),
        )
        for thread_id, group_id, title, color in groups
    }


def put(conn: sqlite3.Connection, tabs: ThreadTabs) -> None:
    """Store ``tabs`` as the thread's whole set, in the caller's transaction."""
    conn.execute(
        "INSERT INTO thread_tab_group (thread_id, group_id, title, color) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (thread_id) DO UPDATE SET group_id = excluded.group_id, "
        "title = excluded.title, color = excluded.color",
        (tabs.thread_id, tabs.group_id, tabs.title, tabs.color),
    )
    conn.execute("DELETE FROM thread_tab WHERE thread_id = ?", (tabs.thread_id,))
    conn.executemany(
        "INSERT INTO thread_tab (thread_id, tab_id, url, title, source, grouped, rank) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (tabs.thread_id, tab.tab_id, tab.url, tab.title, tab.source, tab.grouped, rank)
            for rank, tab in enumerate(_unique(tabs.tabs))
        ],
    )


def owner_of(conn: sqlite3.Connection, tab_id: int) -> str | None:
    """The thread that owns the tab ``tab_id`` (the latest to take it), or None."""
    row = conn.execute(
        "SELECT thread_id FROM thread_tab WHERE tab_id = ? ORDER BY rowid DESC LIMIT 1",
        (tab_id,),
    ).fetchone()
    return None if row is None else str(row[0])


def _unique(tabs: list[ThreadTab]) -> list[ThreadTab]:
    seen: set[int] = set()
    kept = []
    for tab in tabs:
        if tab.tab_id not in seen:
            seen.add(tab.tab_id)
            kept.append(tab)
    return kept
