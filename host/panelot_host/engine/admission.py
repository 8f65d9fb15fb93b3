"""Turn admission (`docs/engine.md`, "Agent loop"): one transaction stores the turn
context, the user message and the streaming run state, with the command's receipt."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

import msgspec

from panelot_host.engine.context import EngineContext
from panelot_host.engine.cursor import RunCursor, dump_cursor
from panelot_host.engine.environment import snapshot
from panelot_host.engine.models import ResolvedModel
from panelot_host.engine.prompts import fallback_title
from panelot_host.engine.workflow_run import workflow_model
from panelot_host.errors import CapabilityError, TurnActive
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
    cost_budget_usd: float | None = None
    workflow: dict[str, Any] | None = None  # a workflow run's Turn context (``workflow_run``)


def active_turn_id(conn: sqlite3.Connection, thread_id: str) -> str | None:
    last = turns.last_turn(conn, thread_id)
    if last is not None and last.status in turns.ACTIVE_TURN_STATUSES:
        return last.id
    return None


def admit(
    ctx: EngineContext, conn: sqlite3.Connection, thread_id: str, request: TurnRequest
) -> Admission:
    """Store a new turn in the caller's transaction; raises ``TurnActive`` if one runs.

    Raises ``ProviderConfigError`` (kind ``provider``) when no model is configured, and
    ``CapabilityError`` when a budget in money is asked of a model whose price is unknown,
    before anything is written.
    """
    thread = threads.get(conn, thread_id)
    if active_turn_id(conn, thread_id) is not None:
        raise TurnActive("a Turn is running on this thread: steer it, or use turn.enqueue")
    model = _model_of(ctx, request)
    catalog = new_run_catalog(ctx.registry.current, model.capabilities, ctx.browser_tools)
    settings = ctx.policy.settings()
    budget = request.token_budget or settings.get("defaultTokenBudget")
    money = money_budget(model, request.cost_budget_usd, settings)
    turn_id, run_id = new_id("trn"), new_id("run")
    user_item = _user_item(thread, turn_id, request)
    items.insert(conn, user_item)
    turns.insert_turn(
        conn,
        turn_id=turn_id,
        thread_id=thread_id,
        user_item_id=user_item.id,
        context={**_turn_context(model, budget, money, catalog), **(request.workflow or {})},
    )
    cursor = RunCursor(
        model=model.model,
        budget=budget,
        cost_budget=money.usd,
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


def _model_of(ctx: EngineContext, request: TurnRequest) -> ResolvedModel:
    """The Turn's model; a workflow run's is its player (no model needs to be configured)."""
    if request.workflow is None:
        return ctx.models.resolve(request.model)
    return workflow_model(ctx, request.workflow, turn_id="")  # only its facts are used here


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


class MoneyBudget(msgspec.Struct, frozen=True):
    """The Turn's budget in USD (``usd``), or the default one its model's unknown price
    left unapplied (``unpriced``: the run says so in a notice)."""

    usd: float | None = None
    unpriced: float | None = None


def money_budget(
    model: ResolvedModel, asked: float | None, settings: Mapping[str, Any]
) -> MoneyBudget:
    """A budget in money needs a price to judge it: asked for explicitly with an unknown
    price it is refused (``CapabilityError``); the default setting is then set aside (the
    token budget, if any, still holds)."""
    priced = model.info.price is not None
    if asked is not None:
        if not priced:
            raise CapabilityError(
                f"the price of {model.model} is unknown, so a budget in money cannot be "
                "judged: give a tokenBudget instead"
            )
        return MoneyBudget(usd=asked)
    default = settings.get("defaultCostBudgetUsd")
    if default is None:
        return MoneyBudget()
    return MoneyBudget(usd=default) if priced else MoneyBudget(unpriced=default)


def _turn_context(
    model: ResolvedModel, budget: int | None, money: MoneyBudget, catalog: RunCatalog
) -> dict[str, Any]:
    context: dict[str, Any] = {"model": model.model, "catalogDigest": catalog.digest}
    if budget is not None:
        context["tokenBudget"] = budget
    if money.usd is not None:
        context["costBudgetUsd"] = money.usd
    if money.unpriced is not None:
        context["costBudgetUnpriced"] = money.unpriced
    return context
