"""A whole thread's rows, read for an export and written for an import (issue 30).

Reading: every item of every branch in stored order (each after its parent), the
thread's approval requests and its model calls' usage. Writing: a thread, its Turns,
Runs, approvals and usage rows exactly as given (timestamps and totals kept, nothing
added up again), in the caller's transaction; items go through ``items.insert`` and the
title through the search index, so an imported thread is found by its words.
"""

from __future__ import annotations

import sqlite3

import msgspec

from panelot_host.store import approvals, items, threads, turns
from panelot_host.store.records import (
    ApprovalRecord,
    ItemRecord,
    RunRecord,
    ThreadRecord,
    TurnRecord,
    UsageRecord,
)

_encode = msgspec.json.Encoder().encode


def all_items(conn: sqlite3.Connection, thread_id: str) -> list[ItemRecord]:
    """Every item of the thread, every branch, in the order stored (parents first)."""
    ids = [row[0] for row in items.links_of(conn, thread_id)]
    return items.of_thread(conn, thread_id, ids)


def approvals_of(conn: sqlite3.Connection, thread_id: str) -> list[ApprovalRecord]:
    """The thread's approval requests, oldest first, whatever their state."""
    return approvals.approvals_of_thread(conn, thread_id)


def usage_of(conn: sqlite3.Connection, thread_id: str) -> list[UsageRecord]:
    """The thread's model calls' usage, in the order they were made."""
    rows = conn.execute(
        "SELECT thread_id, turn_id, run_id, model, input_tokens, output_tokens, "
        "cache_read_tokens, cache_write_tokens, cost_usd, created_at, reasoning_tokens "
        "FROM usage WHERE thread_id = ? ORDER BY id",
        (thread_id,),
    ).fetchall()
    return [UsageRecord(*row) for row in rows]


def insert_thread(conn: sqlite3.Connection, record: ThreadRecord) -> None:
    """Store ``record`` as a new thread (its stats and timestamps as given); its title is
    searchable."""
    stats = record.stats
    conn.execute(
        "INSERT INTO thread (id, title, title_source, parent_thread_id, forked_from_item_id, "
        "head_item_id, created_at, updated_at, turns, input_tokens, output_tokens, "
        "cache_read_tokens, cache_write_tokens, cost_usd, cost_known, reasoning_tokens) "
        "VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            record.id,
            record.title,
            record.title_source,
            record.parent_thread_id,
            record.forked_from_item_id,
            record.created_at,
            record.updated_at,
            stats.turns,
            stats.input_tokens,
            stats.output_tokens,
            stats.cache_read_tokens,
            stats.cache_write_tokens,
            stats.cost_usd,
            stats.cost_usd is not None,
            stats.reasoning_tokens,
        ),
    )
    threads.index_title(conn, record.id, record.title)


def set_head(conn: sqlite3.Connection, thread_id: str, head_item_id: str | None) -> None:
    """Select the branch ending at ``head_item_id``, leaving ``updated_at`` as stored."""
    conn.execute("UPDATE thread SET head_item_id = ? WHERE id = ?", (head_item_id, thread_id))


def insert_turn(conn: sqlite3.Connection, record: TurnRecord) -> None:
    usage = record.usage
    conn.execute(
        "INSERT INTO turn (id, thread_id, status, stop_reason, error, user_item_id, context, "
        "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, "
        "cost_known, started_at, ended_at, reasoning_tokens) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            record.id,
            record.thread_id,
            record.status,
            record.stop_reason,
            _encode(record.error).decode() if record.error else None,
            record.user_item_id,
            _encode(record.context).decode(),
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            usage.cost_usd,
            usage.cost_usd is not None,
            record.started_at,
            record.ended_at,
            usage.reasoning_tokens,
        ),
    )


def insert_run(conn: sqlite3.Connection, record: RunRecord) -> None:
    """Store an imported Turn's Run, which has ended (``turns.insert_ended_run``)."""
    turns.insert_ended_run(conn, record)


def insert_approval(conn: sqlite3.Connection, record: ApprovalRecord) -> None:
    conn.execute(
        "INSERT INTO approval (id, thread_id, turn_id, tool_call_item_id, request, state, "
        "decision, scope, message, created_at, decided_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            record.id,
            record.thread_id,
            record.turn_id,
            record.tool_call_item_id,
            _encode(record.request).decode(),
            record.state,
            record.decision,
            record.scope,
            record.message,
            record.created_at,
            record.decided_at,
        ),
    )


def insert_usage(conn: sqlite3.Connection, record: UsageRecord) -> None:
    """One model call's usage row; the Turn's totals are stored with the Turn."""
    conn.execute(
        "INSERT INTO usage (thread_id, turn_id, run_id, model, input_tokens, output_tokens, "
        "cache_read_tokens, cache_write_tokens, cost_usd, created_at, reasoning_tokens) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            record.thread_id,
            record.turn_id,
            record.run_id,
            record.model,
            record.input_tokens,
            record.output_tokens,
            record.cache_read_tokens,
            record.cache_write_tokens,
            record.cost_usd,
            record.created_at,
            record.reasoning_tokens,
        ),
    )


def insert_item(conn: sqlite3.Connection, record: ItemRecord) -> None:
    """An item as given (its text searchable)."""
    items.insert(conn, record)
