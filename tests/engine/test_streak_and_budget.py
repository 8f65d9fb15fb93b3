"""Seed section 1: the failure streak and the token budget."""

from __future__ import annotations

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn, wait_for

from panelot_host.engine import prompts
from panelot_host.providers.scripted import ScriptedProvider, Stop, Text, ToolCall
from panelot_host.providers.types import TextPart, Usage, UserMessage
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio


@pytest.fixture
def log(client: DirectTransport) -> EventLog:
    events = EventLog()
    client.on_event(events)
    return events


def _nudge(request: object) -> str | None:
    last = request.messages[-1]  # type: ignore[attr-defined]
    if isinstance(last, UserMessage) and isinstance(last.content[0], TextPart):
        return last.content[0].text
    return None


async def test_after_three_consecutive_failures_the_model_is_asked_to_change_approach(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add(*[[ToolCall("flaky", {})] for _ in range(3)], [Text("ok, another way")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "go")
    nudges = [_nudge(r) for r in provider.requests]
    assert nudges[:3] == ["go", None, None]
    assert nudges[3] == prompts.CHANGE_APPROACH.format(n=3)
    notices = [p["item"] for p in log.of("item.completed") if p["item"]["kind"] == "notice"]
    assert [n["code"] for n in notices] == ["change_approach"]
    # the user is told what happened in their words; the model's instruction stays the model's
    assert notices[0]["userText"] == prompts.CHANGE_APPROACH_SHOWN.format(n=3)
    assert "3 actions in a row failed" in notices[0]["userText"]
    assert "Do not repeat" not in notices[0]["userText"]
    stored = await client.send("thread.open", {"threadId": thread_id})
    [kept] = [i for i in stored["items"] if i["kind"] == "notice"]
    assert kept["userText"] == notices[0]["userText"] and kept["text"] == nudges[3]


async def test_after_five_failures_tools_are_disabled_and_one_final_response_is_asked(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add(*[[ToolCall("flaky", {})] for _ in range(5)], [Text("I could not do it")])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "go")
    final = provider.requests[5]
    assert final.tools == []
    assert _nudge(final) == prompts.TOOLS_DISABLED.format(n=5)
    assert done["status"] == "completed"
    assert len(provider.requests) == 6
    assert all(r.tools for r in provider.requests[:5])


async def test_a_success_resets_the_failure_count(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add(
        [ToolCall("flaky", {})],
        [ToolCall("flaky", {})],
        [ToolCall("lookup", {"key": "k"})],
        [ToolCall("flaky", {})],
        [ToolCall("flaky", {})],
        [Text("done")],
    )
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "go")
    assert all(_nudge(r) != prompts.CHANGE_APPROACH.format(n=3) for r in provider.requests)


async def test_token_budget_pauses_the_turn_and_resume_with_more_budget_continues(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add(
        [ToolCall("lookup", {"key": "a"}), Stop("tool_use", usage=Usage(60, 10))],
        [ToolCall("lookup", {"key": "b"}), Stop("tool_use", usage=Usage(60, 10))],
        [Text("done"), Stop("end_turn", usage=Usage(60, 10))],
    )
    thread_id = await new_thread(client)
    turn = await client.send(
        "turn.submit",
        {"commandId": "b1", "threadId": thread_id, "text": "go", "tokenBudget": 100},
    )
    paused = await wait_for(log, "turn.paused", turnId=turn["turnId"])
    assert paused[0]["reason"] == "budget"
    assert len(provider.requests) == 2  # 70 < 100 after one call, 140 >= 100 after two
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["run"]["state"] == "budget_paused" and snapshot["turn"]["status"] == "paused"
    with pytest.raises(Exception) as busy:
        await client.send("turn.submit", {"commandId": "b2", "threadId": thread_id, "text": "x"})
    assert getattr(busy.value, "kind", None) == "turn_active"
    await client.send(
        "run.resume",
        {
            "commandId": "r1",
            "threadId": thread_id,
            "runId": paused[0]["runId"],
            "tokenBudget": 1000,
        },
    )
    done = await wait_for(log, "turn.complete", turnId=turn["turnId"])
    assert done[0]["status"] == "completed"
    assert done[0]["usage"]["inputTokens"] == 180


async def test_budget_is_not_a_step_counter(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add(
        *[
            [ToolCall("lookup", {"key": str(n)}), Stop("tool_use", usage=Usage(1, 1))]
            for n in range(12)
        ],
        [Text("done"), Stop("end_turn", usage=Usage(1, 1))],
    )
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "many small steps", tokenBudget=1000)
    assert done["status"] == "completed"
    assert len(provider.requests) == 13
