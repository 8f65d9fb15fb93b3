"""What a client needs to show threads: each thread's status in lists and events, every
Turn's usage, tool-call times and the sibling branches of a snapshot (protocol extensions
for the side panel, `docs/protocol.md`)."""

from __future__ import annotations

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn, wait_for

from panelot_host.providers.scripted import ScriptedProvider, Stop, Text, ToolCall
from panelot_host.providers.types import Usage
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio


async def _listed_status(client: DirectTransport, thread_id: str) -> str:
    listed = await client.send("thread.list", {})
    status: str = next(t["status"] for t in listed["threads"] if t["id"] == thread_id)
    return status


async def test_thread_status_follows_the_wait_for_approval_and_the_end(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([ToolCall("write_note", {"text": "milk"}, call_id="n1")], [Text("saved")])
    thread_id = await new_thread(client)
    assert await _listed_status(client, thread_id) == "idle"
    submitted = await client.send(
        "turn.submit", {"commandId": "s1", "threadId": thread_id, "text": "note milk"}
    )
    request = (await wait_for(log, "approval.request"))[0]
    assert await _listed_status(client, thread_id) == "awaiting_approval"
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["thread"]["status"] == "awaiting_approval"
    answer = {"commandId": "a1", "requestId": request["requestId"], "decision": "allow"}
    await client.send("approval.response", {**answer, "scope": "once"})
    await wait_for(log, "turn.complete", turnId=submitted["turnId"])
    statuses = [e["thread"]["status"] for e in log.of("thread.updated")]
    assert statuses[0] == "running" and statuses[-1] == "idle"
    assert "awaiting_approval" in statuses
    waiting = statuses.index("awaiting_approval")
    assert "running" in statuses[waiting:]  # back to running once allowed
    assert await _listed_status(client, thread_id) == "idle"


async def test_snapshot_carries_every_turn_with_its_usage_and_unknown_cost_as_null(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("one"), Stop(usage=Usage(10, 5))], [Text("two"), Stop(usage=Usage(7, 3))])
    thread_id = await new_thread(client)
    first = await run_turn(client, log, thread_id, "first")
    second = await run_turn(client, log, thread_id, "second")
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    turns = snapshot["turns"]
    assert [t["id"] for t in turns] == [first["turnId"], second["turnId"]]
    assert [t["usage"]["inputTokens"] for t in turns] == [10, 7]
    assert [t["usage"]["outputTokens"] for t in turns] == [5, 3]
    assert all("costUsd" in t for t in turns)  # null when the price is unknown, never left out
    assert turns[0]["costUsd"] == first["costUsd"]


async def test_tool_calls_keep_when_they_started_and_ended(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([ToolCall("lookup", {"key": "a"}, call_id="e1")], [Text("done")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "look a up")
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    (call,) = [i for i in snapshot["items"] if i["kind"] == "toolCall"]
    assert call["status"] == "succeeded"
    assert call["startedAt"] <= call["endedAt"]  # ISO 8601 UTC strings sort by time


async def test_snapshot_names_sibling_branches_and_the_head_each_selects(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("A1")], [Text("B1")], [Text("B2")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "a")
    await run_turn(client, log, thread_id, "b")
    first = await client.send("thread.open", {"threadId": thread_id})
    assert first["branches"] == []
    answer_a, user_b, answer_b = (i["id"] for i in first["items"][1:])
    await client.send(
        "thread.selectBranch", {"commandId": "sel1", "threadId": thread_id, "itemId": answer_a}
    )
    await run_turn(client, log, thread_id, "b again")
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    user_b2, answer_b2 = (i["id"] for i in snapshot["items"][2:])
    assert snapshot["branches"] == [
        {
            "itemId": user_b2,
            "choices": [
                {"itemId": user_b, "headItemId": answer_b},
                {"itemId": user_b2, "headItemId": answer_b2},
            ],
        }
    ]
    back = await client.send(
        "thread.selectBranch", {"commandId": "sel2", "threadId": thread_id, "itemId": answer_b}
    )
    assert [i["id"] for i in back["items"]][-2:] == [user_b, answer_b]
    assert back["branches"][0]["itemId"] == user_b
