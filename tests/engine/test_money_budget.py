"""A budget in money (issue 32): a Turn pauses once its cost reaches ``costBudgetUsd`` (or
the ``defaultCostBudgetUsd`` setting), ``run.resume`` gives it more; a model whose price is
unknown cannot be held by one, and says so."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, wait_for

from panelot_host.providers.catalog import ModelInfo, Price
from panelot_host.providers.scripted import ScriptedProvider, Stop, Text, ToolCall
from panelot_host.providers.types import Usage
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio

# $1,000 per million tokens: each call below (60 in, 10 out) costs $0.07
PRICED = ModelInfo(
    id="scripted-model",
    provider="scripted",
    price=Price(input=1000.0, output=1000.0, cache_read=0.0, cache_write=0.0),
)
UNPRICED = ModelInfo(id="scripted-model", provider="scripted")


@pytest.fixture
def model_info(request: pytest.FixtureRequest) -> ModelInfo:
    info: ModelInfo = getattr(request, "param", PRICED)
    return info


def _steps(provider: ScriptedProvider, tool_calls: int) -> None:
    """``tool_calls`` model calls asking for a tool, then a final answer: $0.07 each."""
    provider.add(
        *[
            [ToolCall("lookup", {"key": str(n)}), Stop("tool_use", usage=Usage(60, 10))]
            for n in range(tool_calls)
        ],
        [Text("done"), Stop("end_turn", usage=Usage(60, 10))],
    )


async def _submit(client: DirectTransport, thread_id: str, **budget: Any) -> str:
    params = {"commandId": f"go-{thread_id}", "threadId": thread_id, "text": "go", **budget}
    turn_id: str = (await client.send("turn.submit", params))["turnId"]
    return turn_id


async def _resume(
    client: DirectTransport, thread_id: str, run_id: str, n: int, **more: Any
) -> None:
    params = {"commandId": f"resume-{n}", "threadId": thread_id, "runId": run_id, **more}
    await client.send("run.resume", params)


async def test_a_money_budget_pauses_the_turn_and_resume_with_more_money_continues(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _steps(provider, 2)
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, costBudgetUsd=0.10)
    paused = await wait_for(log, "turn.paused", turnId=turn_id)
    assert (paused[0]["reason"], paused[0]["budgetReached"]) == ("budget", "cost")
    assert paused[0]["costBudgetUsd"] == 0.10 and paused[0]["costUsd"] == pytest.approx(0.14)
    assert len(provider.requests) == 2  # $0.07 < $0.10 after one call, $0.14 after two
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["run"]["state"] == "budget_paused"
    turn = snapshot["turn"]
    assert (turn["status"], turn["pauseReason"], turn["budgetReached"]) == (
        "paused",
        "budget",
        "cost",
    )
    assert turn["costBudgetUsd"] == 0.10 and turn["costUsd"] == pytest.approx(0.14)
    await _resume(client, thread_id, paused[0]["runId"], 1, costBudgetUsd=0.05)
    done = await wait_for(log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "completed" and len(provider.requests) == 3
    assert done[0]["costUsd"] == pytest.approx(0.21)
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert "budgetReached" not in snapshot["turns"][-1]


async def test_resume_without_an_amount_gives_the_same_money_again(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _steps(provider, 4)
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, costBudgetUsd=0.10)
    paused = await wait_for(log, "turn.paused", turnId=turn_id)
    await _resume(client, thread_id, paused[0]["runId"], 1)
    # $0.14 spent + $0.10 again: $0.21 after the third call goes on, $0.28 after the fourth
    paused = await wait_for(log, "turn.paused", 2, turnId=turn_id)
    assert len(provider.requests) == 4 and paused[1]["budgetReached"] == "cost"


async def test_the_default_money_budget_setting_holds_every_turn(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    saved = await client.send("settings.update", {"commandId": "s1", "defaultCostBudgetUsd": 0.1})
    assert saved["settings"]["defaultCostBudgetUsd"] == 0.1
    _steps(provider, 2)
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id)
    paused = await wait_for(log, "turn.paused", turnId=turn_id)
    assert paused[0]["budgetReached"] == "cost" and len(provider.requests) == 2
    reset = await client.send("settings.update", {"commandId": "s2", "defaultCostBudgetUsd": None})
    assert reset["settings"]["defaultCostBudgetUsd"] is None


async def test_money_given_to_a_turn_paused_for_its_tokens_lets_it_go_on(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _steps(provider, 2)
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, tokenBudget=100, costBudgetUsd=5.0)
    paused = await wait_for(log, "turn.paused", turnId=turn_id)
    assert paused[0]["budgetReached"] == "tokens" and len(provider.requests) == 2
    # "Continue (+$0.25)": the token budget reached gets its original 100 tokens again
    await _resume(client, thread_id, paused[0]["runId"], 1, costBudgetUsd=0.25)
    done = await wait_for(log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "completed" and len(provider.requests) == 3


@pytest.mark.parametrize("amount", [0, -0.5, 1e9, "0.10"])
async def test_a_money_budget_that_is_not_a_positive_amount_is_refused(
    client: DirectTransport, amount: object
) -> None:
    thread_id = await new_thread(client)
    with pytest.raises(Exception) as refused:
        await _submit(client, thread_id, costBudgetUsd=amount)
    assert getattr(refused.value, "code", None) == -32602
    with pytest.raises(Exception) as bad_setting:
        await client.send("settings.update", {"commandId": "s", "defaultCostBudgetUsd": amount})
    assert getattr(bad_setting.value, "code", None) == -32602
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["turn"] is None


@pytest.mark.parametrize("model_info", [UNPRICED], indirect=True)
async def test_a_money_budget_for_a_model_without_a_price_is_refused_before_anything_is_stored(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await new_thread(client)
    with pytest.raises(Exception) as refused:
        await _submit(client, thread_id, costBudgetUsd=0.10)
    assert getattr(refused.value, "kind", None) == "capability"
    assert "price of scripted-model is unknown" in str(refused.value)
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["turn"] is None and snapshot["items"] == []
    assert provider.requests == []


@pytest.mark.parametrize("model_info", [UNPRICED], indirect=True)
async def test_the_default_money_budget_gives_way_to_the_token_budget_when_the_price_is_unknown(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    await client.send(
        "settings.update",
        {"commandId": "s1", "defaultCostBudgetUsd": 0.10, "defaultTokenBudget": 100},
    )
    _steps(provider, 2)
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id)
    paused = await wait_for(log, "turn.paused", turnId=turn_id)
    assert paused[0]["budgetReached"] == "tokens" and len(provider.requests) == 2
    notices = [p["item"] for p in log.of("item.completed") if p["item"]["kind"] == "notice"]
    assert [n["code"] for n in notices] == ["budget_unpriced"]
    assert notices[0]["text"] == (
        "The budget of $0.10 per turn does not apply: the price of scripted-model is "
        "unknown, so what this turn costs cannot be counted; its token budget (100 tokens) "
        "still holds."
    )
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert "costBudgetUsd" not in snapshot["turn"]
    with pytest.raises(Exception) as refused:
        await _resume(client, thread_id, paused[0]["runId"], 1, costBudgetUsd=0.25)
    assert getattr(refused.value, "kind", None) == "capability"
    await _resume(client, thread_id, paused[0]["runId"], 2, tokenBudget=1000)
    done = await wait_for(log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "completed" and done[0]["costUsd"] is None
