"""Seed section 3: steering, queueing and interrupt."""

from __future__ import annotations

import anyio
import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, wait_for, wait_until
from tests.support.tools import ToolLog

from panelot_host.providers.scripted import Hang, Pause, ScriptedProvider, Text, ToolCall
from panelot_host.providers.types import AssistantMessage, TextPart, ToolResultMessage, UserMessage
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError

pytestmark = pytest.mark.anyio


@pytest.fixture
def log(client: DirectTransport) -> EventLog:
    events = EventLog()
    client.on_event(events)
    return events


async def _submit(client: DirectTransport, thread_id: str, text: str, command_id: str) -> str:
    result = await client.send(
        "turn.submit", {"commandId": command_id, "threadId": thread_id, "text": text}
    )
    turn_id: str = result["turnId"]
    return turn_id


def _texts(request: object) -> list[str]:
    out = []
    for message in request.messages:  # type: ignore[attr-defined]
        if isinstance(message, UserMessage):
            out.extend(p.text for p in message.content if isinstance(p, TextPart))
    return out


async def test_steering_acknowledgement_means_durable(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    provider.add([Text("working"), Pause(0.3)], [Text("done")])
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, "start", "s1")
    ack = await client.send(
        "turn.steer",
        {"commandId": "st1", "threadId": thread_id, "expectedTurnId": turn_id, "text": "also X"},
    )
    profile = host.profile
    assert profile is not None
    row = profile.db.conn.execute(
        "SELECT text, state FROM steering WHERE id = ?", (ack["itemId"],)
    ).fetchone()
    assert row == ("also X", "pending")
    await wait_for(log, "turn.complete", turnId=turn_id)


async def test_steer_rejects_a_stale_or_ended_turn(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("one")])
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, "start", "s1")
    await wait_for(log, "turn.complete", turnId=turn_id)
    with pytest.raises(RemoteError) as ended:
        await client.send(
            "turn.steer",
            {"commandId": "x", "threadId": thread_id, "expectedTurnId": turn_id, "text": "late"},
        )
    assert ended.value.kind == "stale_turn"
    provider.add([Text("two"), Pause(0.2)])
    await _submit(client, thread_id, "again", "s2")
    with pytest.raises(RemoteError) as stale:
        await client.send(
            "turn.steer",
            {"commandId": "y", "threadId": thread_id, "expectedTurnId": turn_id, "text": "old"},
        )
    assert stale.value.kind == "stale_turn"


async def test_steering_after_cutoff_waits_for_next_call_and_never_splits_a_batch(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    provider.add(
        [ToolCall("slow", {}, call_id="s1"), ToolCall("lookup", {"key": "k"}, call_id="s2")]
    )
    provider.add([Text("finished")])
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, "start", "t1")
    await wait_until(lambda: tool_log.names() == ["slow"])
    # the first model call has been made: this message is after its cutoff
    await client.send(
        "turn.steer",
        {"commandId": "st", "threadId": thread_id, "expectedTurnId": turn_id, "text": "hurry"},
    )
    assert "hurry" not in _texts(provider.requests[0])
    tool_log.release.set()
    await wait_for(log, "turn.complete", turnId=turn_id)
    second = provider.requests[1]
    kinds = [type(m).__name__ for m in second.messages]
    assert kinds == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "UserMessage",
    ]
    assert _texts(second)[-1] == "hurry"


async def test_final_response_with_acknowledged_steering_makes_another_request(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("first answer", chunks=5), Pause(0.3)], [Text("answer with the steer")])
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, "start", "t1")
    await wait_for(log, "item.delta")
    await client.send(
        "turn.steer",
        {"commandId": "st", "threadId": thread_id, "expectedTurnId": turn_id, "text": "and Y"},
    )
    done = await wait_for(log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "completed"
    assert len(provider.requests) == 2
    second = provider.requests[1]
    assert isinstance(second.messages[-2], AssistantMessage)
    assert _texts(second)[-1] == "and Y"  # after the response that did not see it


async def test_enqueue_starts_at_once_when_idle_and_after_the_current_turn(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("one"), Pause(0.2)], [Text("two")], [Text("three")])
    thread_id = await new_thread(client)
    first = await client.send(
        "turn.enqueue", {"commandId": "q1", "threadId": thread_id, "text": "a"}
    )
    assert first["position"] == 0
    await wait_for(log, "turn.started")
    queued = await client.send(
        "turn.enqueue", {"commandId": "q2", "threadId": thread_id, "text": "b"}
    )
    await client.send("turn.enqueue", {"commandId": "q3", "threadId": thread_id, "text": "c"})
    assert queued["position"] == 0
    completes = await wait_for(log, "turn.complete", 3)
    assert [c["status"] for c in completes] == ["completed"] * 3
    assert [_texts(r)[-1] for r in provider.requests] == ["a", "b", "c"]
    assert log.of("queue.updated")[-1]["queue"] == []


async def test_queue_holds_at_most_eight_entries_and_can_be_edited(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("busy"), Hang()])
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, "start", "t1")
    entries = []
    for n in range(8):
        entries.append(
            await client.send(
                "turn.enqueue", {"commandId": f"q{n}", "threadId": thread_id, "text": f"m{n}"}
            )
        )
    with pytest.raises(RemoteError) as full:
        await client.send("turn.enqueue", {"commandId": "q9", "threadId": thread_id, "text": "x"})
    assert full.value.kind == "queue_full"
    updated = await client.send(
        "queue.update",
        {"commandId": "u1", "threadId": thread_id, "entryId": entries[3]["entryId"], "text": "M3"},
    )
    assert updated["queue"][3]["text"] == "M3"
    removed = await client.send(
        "queue.remove",
        {"commandId": "r1", "threadId": thread_id, "entryId": entries[0]["entryId"]},
    )
    assert [e["text"] for e in removed["queue"]][:3] == ["m1", "m2", "M3"]
    assert [e["position"] for e in removed["queue"]] == list(range(7))
    await client.send("turn.interrupt", {"threadId": thread_id, "turnId": turn_id})


async def test_interrupt_aborts_the_fetch_keeps_stored_items_and_ends_interrupted(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("partial text", chunks=2), Hang()])
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, "start", "t1")
    await wait_for(log, "item.delta")
    await client.send("turn.interrupt", {"threadId": thread_id})
    done = await wait_for(log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "interrupted"
    assert provider.cancelled == 1  # the stream (and its HTTP response) was closed
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assistant = snapshot["items"][-1]
    assert assistant["kind"] == "assistant" and assistant["interrupted"] is True
    assert assistant["text"] == "partial text"
    assert snapshot["turn"]["status"] == "interrupted"
    # idempotent, always allowed
    assert await client.send("turn.interrupt", {"threadId": thread_id}) == {}


async def test_interrupt_gives_unfinished_tool_calls_a_synthetic_result(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    provider.add(
        [ToolCall("slow", {}, call_id="w1"), ToolCall("lookup", {"key": "k"}, call_id="w2")]
    )
    provider.add([Text("next turn reply")])
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, "start", "t1")
    await wait_until(lambda: bool(tool_log.calls))
    await client.send("turn.interrupt", {"threadId": thread_id, "turnId": turn_id})
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    calls = [i for i in snapshot["items"] if i["kind"] == "toolCall"]
    assert [c["status"] for c in calls] == ["interrupted", "interrupted"]
    assert all(c["result"]["isError"] for c in calls)
    assert tool_log.names() == ["slow"]  # the second call never ran
    # the next request carries exactly one result per call
    second = await _submit(client, thread_id, "continue", "t2")
    await wait_for(log, "turn.complete", turnId=second)
    results = [m for m in provider.requests[-1].messages if isinstance(m, ToolResultMessage)]
    assert [r.call_id for r in results] == ["w1", "w2"]


async def test_different_threads_run_concurrently(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    # each model call streams, then waits until it is interrupted: the second thread's
    # call can only start if the first thread's Turn does not hold it back
    provider.add([Text("a"), Hang()], [Text("b"), Hang()])
    first = await new_thread(client, "c1")
    second = await new_thread(client, "c2")
    t1 = await _submit(client, first, "one", "s1")
    t2 = await _submit(client, second, "two", "s2")
    await wait_until(lambda: len(provider.requests) == 2)
    assert [_texts(r)[-1] for r in provider.requests] == ["one", "two"]
    await client.send("turn.interrupt", {"threadId": first})
    await client.send("turn.interrupt", {"threadId": second})
    done = {p["turnId"]: p["status"] for p in log.of("turn.complete")}
    assert done == {t1: "interrupted", t2: "interrupted"}


async def test_interrupt_cancels_the_browser_call_and_detaches_l2_tools(
    host: Host, provider: ScriptedProvider
) -> None:
    release = anyio.Event()
    invoked: list[dict] = []  # type: ignore[type-arg]

    async def shim(method: str, params: dict) -> object:  # type: ignore[type-arg]
        if method == "browser.resolveTarget":
            return {"tabId": 3, "url": "https://site.example/", "origin": "https://site.example"}
        invoked.append(params)
        await release.wait()  # the screenshot takes long; the cancel releases it
        return {"content": "too late", "isError": True}

    async with DirectTransport.connect(host, shim=shim) as client:
        log = EventLog()
        client.on_event(log)
        client.on_event(lambda m, p: release.set() if m == "$/cancelRequest" else None)
        init = {"protocolVersion": 1, "client": {"name": "shim", "version": "0"}}
        init["capabilities"] = {"browserTools": ["browser_screenshot"]}
        await client.send("initialize", init)
        await client.send(
            "settings.update",
            {
                "commandId": "p",
                "policyRules": [{"tool": "browser_screenshot", "decision": "allow"}],
            },
        )
        provider.add([ToolCall("browser_screenshot", {"fullPage": True}, call_id="shot")])
        thread_id = await new_thread(client)
        turn_id = await _submit(client, thread_id, "full page please", "s1")
        await wait_until(lambda: bool(invoked))
        await client.send("turn.interrupt", {"threadId": thread_id})
        done = await wait_for(log, "turn.complete", turnId=turn_id)
        assert done[0]["status"] == "interrupted"
        assert [p["turnId"] for p in log.of("browser.detach")] == [turn_id]
        assert log.of("$/cancelRequest")


async def test_branch_changes_are_rejected_while_a_turn_runs(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("busy"), Hang()])
    thread_id = await new_thread(client)
    turn_id = await _submit(client, thread_id, "start", "t1")
    await wait_for(log, "item.delta")
    user_item = (await client.send("thread.open", {"threadId": thread_id}))["items"][0]["id"]
    changes = {
        "thread.fork": {"atItemId": user_item},
        "thread.selectBranch": {"itemId": user_item},
        "thread.delete": {},
    }
    for method, params in changes.items():
        with pytest.raises(RemoteError) as active:
            await client.send(method, {"commandId": method, "threadId": thread_id, **params})
        assert active.value.kind == "turn_active", method
    listed = await client.send("thread.list", {})
    assert [t["id"] for t in listed["threads"]] == [thread_id]  # no fork, not deleted
    await client.send("turn.interrupt", {"threadId": thread_id, "turnId": turn_id})
    forked = await client.send(
        "thread.fork", {"commandId": "after", "threadId": thread_id, "atItemId": user_item}
    )
    assert forked["thread"]["parentThreadId"] == thread_id
