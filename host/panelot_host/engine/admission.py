"""Turn admission (`docs/engine.md`, "Agent loop"): one transaction stores the turn
context, the user message and the streaming run state, with the command's receipt."""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from panelot_host.engine.context import EngineContext
from panelot_host.engine.cursor import RunCursor, dump_cursor
from panelot_host.engine.environment import snapshot
from panelot_host.engine.models import ResolvedModel
from panelot_host.engine.prompts import fallback_title
from panelot_host.errors import TurnActive
from panelot_host.store import items, threads, turns
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord, ThreadRecord
from panelot_host.tools.catalog import RunCatalog, new_run_catalog


class Admission(msgspec.Struct, frozen=True):
    """What an admitted turn is: ids for the events that follow the commit."""

    thread_id: str
    turn_id: str
    run_id: str
    user_item: ItemRecord
    first_turn: bool
    title_changed: bool


class TurnRequest(msgspec.Struct, frozen=True):
    text: str
    attachments: list[dict[str, Any]] = []
    model: str | None = None
    token_budget: int | None = None


def active_turn_id(conn: sqlite3.Connection, thread_id: str) -> str | None:
    last = turns.last_turn(conn, thread_id)
    if last is not None and last.status in turns.ACTIVE_TURN_STATUSES:
        return last.id
    return None


def admit(
    ctx: EngineContext, conn: sqlite3.Connection, thread_id: str, request: TurnRequest
) -> Admission:
    """Store a new turn in the caller's transaction; raises ``TurnActive`` if one runs.

    Raises ``ProviderConfigError`` (kind ``provider``) when no model is configured, before
    anything is written.
    """
    thread = threads.get(conn, thread_id)
    if active_turn_id(conn, thread_id) is not None:
        raise TurnActive("a Turn is running on this thread: steer it, or use turn.enqueue")
    model = ctx.models.resolve(request.model)
    catalog = new_run_catalog(ctx.registry.current, model.capabilities, ctx.browser_tools)
    budget = request.token_budget or ctx.policy.settings().get("defaultTokenBudget")
    turn_id, run_id = new_id("trn"), new_id("run")
    user_item = _user_item(thread, turn_id, request)
    items.insert(conn, user_item)
    turns.insert_turn(
        conn,
        turn_id=turn_id,
        thread_id=thread_id,
        user_item_id=user_item.id,
        context=_turn_context(model, budget, catalog),
    )
    cursor = RunCursor(
        model=model.model,
        budget=budget,
        catalog=catalog.digests(),
        browser_tools=sorted(ctx.browser_tools),
    )
    turns.insert_run(
        conn,
        run_id=run_id,
        turn_id=turn_id,
        thread_id=thread_id,
        state="streaming",
        cursor=dump_cursor(cursor),
    )
    turns.set_environment(conn, run_id, *snapshot(ctx, model, catalog))
    threads.set_head(conn, thread_id, user_item.id)
    threads.count_turn(conn, thread_id)
    first = thread.stats.turns == 0
    title_changed = first and thread.title_source == "fallback"
    if title_changed:
        threads.rename(conn, thread_id, fallback_title(request.text), "fallback")
    return Admission(thread_id, turn_id, run_id, user_item, first, title_changed)


def _user_item(thread: ThreadRecord, turn_id: str, request: TurnRequest) -> ItemRecord:
    extra: dict[str, Any] = {"attachments": request.attachments} if request.attachments else {}
    return ItemRecord(
        id=new_id("itm"),
        thread_id=thread.id,
        parent_id=thread.head_item_id,
        turn_id=turn_id,
        kind="user",
        created_at=now_ms(),
        text=request.text,
        extra=extra,
    )


def _turn_context(model: ResolvedModel, budget: int | None, catalog: RunCatalog) -> dict[str, Any]:
    context: dict[str, Any] = {"model": model.model, "catalogDigest": catalog.digest}
    if budget is not None:
        context["tokenBudget"] = budget
    return context
