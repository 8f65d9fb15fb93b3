"""A Turn's budgets (`docs/protocol.md`, "Semantics clients rely on": token budget, budget
in money): tokens, and US dollars while the Turn's cost is known. Checked at each
model-call boundary; a budget-paused run gets more of each on ``run.resume``."""

from __future__ import annotations

import msgspec

from panelot_host.engine.cursor import RunCursor
from panelot_host.errors import CapabilityError
from panelot_host.store.records import TurnRecord
from panelot_host.vocabulary import BudgetKind


def budget_reached(cursor: RunCursor, turn: TurnRecord) -> BudgetKind | None:
    """Which budget the Turn has reached, if any: its tokens, or its cost in USD (judged
    only while the cost is known: a call without a price leaves the token budget alone)."""
    if cursor.budget is not None and turn.usage.total >= cursor.budget:
        return "tokens"
    cost = turn.usage.cost_usd
    if cursor.cost_budget is not None and cost is not None and cost >= cursor.cost_budget:
        return "cost"
    return None


def with_more_budget(
    cursor: RunCursor, turn: TurnRecord, tokens: int | None, usd: float | None
) -> RunCursor:
    """The cursor of a budget-paused run resumed with ``tokens`` and/or ``usd`` more than
    the Turn has used. A budget given none gets, when it is the one reached, its original
    amount again; one not reached stays as it is (so either amount lets the Turn go on).

    Raises ``CapabilityError`` when ``usd`` is given but the Turn's cost is unknown.
    """
    cost = turn.usage.cost_usd
    if usd is not None and cost is None:
        raise CapabilityError(
            "this turn's cost is unknown (its model has no known price), so it cannot be "
            "given a budget in money: resume it with tokenBudget, or without a budget"
        )
    reached = budget_reached(cursor, turn)
    token_limit = cursor.budget
    if tokens is not None:
        token_limit = turn.usage.total + tokens
    elif token_limit is not None and reached == "tokens":
        token_limit = turn.usage.total + (turn.context.get("tokenBudget") or token_limit)
    cost_limit = cursor.cost_budget
    if usd is not None and cost is not None:
        cost_limit = cost + usd
    elif cost_limit is not None and cost is not None and reached == "cost":
        cost_limit = cost + (turn.context.get("costBudgetUsd") or cost_limit)
    return msgspec.structs.replace(cursor, budget=token_limit, cost_budget=cost_limit)
