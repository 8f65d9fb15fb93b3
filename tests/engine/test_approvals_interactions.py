"""Seed section 6.1 (turn with approval), ask_user interactions, capability filters, titles."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import INIT, new_thread, run_turn, wait_for
from tests.support.tools import ToolLog

from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.providers.types import ImagePart, ToolResultMessage
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError

pytestmark = pytest.mark.anyio


@pytest.fixture
def log(client: DirectTransport) -> EventLog:
    events = EventLog()
    client.on_event(events)
    return events


async def _start(client: DirectTransport, thread_id: str, text: str, cid: str = "s1") -> str:
    result = await client.send(
        "turn.submit", {"commandId": cid, "threadId": thread_id, "text": text}
    )
    turn_id: str = result["turnId"]
    return turn_id


async def test_turn_with_approval_commits_the_decision_and_then_executes(
    client: DirectTransport,
    provider: ScriptedProvider,
    log: EventLog,
    tool_log: ToolLog,
    host: Host,
) -> None:
    provider.add([ToolCall("write_note", {"text": "milk"}, call_id="n1")], [Text("saved")])
    thread_id = await new_thread(client)
    turn_id = await _start(client, thread_id, "note milk")
    request = (await wait_for(log, "approval.request"))[0]
    assert request["tool"]["name"] == "write_note" and request["args"] == {"text": "milk"}
    assert tool_log.calls == []  # nothing runs before the decision
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert [a["requestId"] for a in snapshot["pendingApprovals"]] == [request["requestId"]]
    assert snapshot["run"]["state"] == "awaiting_approval"
    answer = {
        "commandId": "a1",
        "requestId": request["requestId"],
        "decision": "allow",
        "scope": "once",
    }
    assert await client.send("approval.response", answer) == {}
    assert await client.send("approval.response", answer) == {}  # replayed, nothing twice
    with pytest.raises(RemoteError) as conflict:
        await client.send("approval.response", {**answer, "decision": "deny"})
    assert conflict.value.kind == "conflict"
    done = await wait_for(log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "completed"
    assert tool_log.names() == ["write_note"]
    resolved = log.of("approval.resolved")
    assert [(r["decision"], r["scope"]) for r in resolved] == [("allow", "once")]
    profile = host.profile
    assert profile is not None
    rows = profile.db.conn.execute("SELECT state, decision FROM approval").fetchall()
    assert rows == [("decided", "allow")]
    # the decision stays in the thread's snapshot (the timeline marks the call after a reload)
    reopened = await client.send("thread.open", {"threadId": thread_id})
    [call] = [i for i in reopened["items"] if i["kind"] == "toolCall"]
    assert reopened["decidedApprovals"] == [
        {"toolCallId": call["id"], "decision": "allow", "scope": "once"}
    ]
    assert reopened["pendingApprovals"] == []


async def test_user_denial_is_a_result_for_the_model_not_a_failure(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    provider.add(
        [ToolCall("flaky", {})],
        [ToolCall("flaky", {})],
        [ToolCall("write_note", {"text": "x"})],
        [ToolCall("flaky", {})],
        [Text("ok")],
    )
    thread_id = await new_thread(client)
    turn_id = await _start(client, thread_id, "go")
    request = (await wait_for(log, "approval.request"))[0]
    await client.send(
        "approval.response",
        {
            "commandId": "d1",
            "requestId": request["requestId"],
            "decision": "deny",
            "scope": "once",
            "message": "not now",
        },
    )
    await wait_for(log, "turn.complete", turnId=turn_id)
    reopened = await client.send("thread.open", {"threadId": thread_id})
    assert [(a["toolCallId"], a["decision"]) for a in reopened["decidedApprovals"]] == [
        (request["toolCallId"], "deny")
    ]
    denial = [m for m in provider.requests[3].messages if isinstance(m, ToolResultMessage)][-1]
    assert denial.is_error and "not now" in denial.content[0].text  # type: ignore[union-attr]
    # flaky, flaky, (denial: neither counts nor resets), flaky -> streak 3 -> nudge
    from panelot_host.engine import prompts

    last = provider.requests[4].messages[-1]
    assert prompts.CHANGE_APPROACH.format(n=3) == last.content[0].text  # type: ignore[union-attr]
    assert "write_note" not in tool_log.names()


async def test_thread_scoped_approval_becomes_a_grant_that_allows_the_next_call(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    provider.add(
        [ToolCall("write_note", {"text": "a"})],
        [ToolCall("write_note", {"text": "b"})],
        [Text("both saved")],
    )
    thread_id = await new_thread(client)
    turn_id = await _start(client, thread_id, "two notes")
    request = (await wait_for(log, "approval.request"))[0]
    await client.send(
        "approval.response",
        {
            "commandId": "g1",
            "requestId": request["requestId"],
            "decision": "allow",
            "scope": "thread",
        },
    )
    await wait_for(log, "turn.complete", turnId=turn_id)
    assert tool_log.names() == ["write_note", "write_note"]
    assert len(log.of("approval.request")) == 1


class Shim:
    """Plays the extension: a tab whose origin can change between approval and dispatch."""

    def __init__(self) -> None:
        self.origins = ["https://shop.example"]
        self.invoked: list[dict[str, Any]] = []

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        origin = self.origins[0] if len(self.origins) == 1 else self.origins.pop(0)
        if method == "browser.resolveTarget":
            return {"tabId": 7, "url": origin + "/cart", "origin": origin, "title": "Cart"}
        self.invoked.append(params)
        return {"content": "clicked", "isError": False}


@pytest.fixture
async def shim_client(host: Host) -> AsyncIterator[tuple[DirectTransport, Shim]]:
    shim = Shim()
    async with DirectTransport.connect(host, shim=shim) as transport:
        params = {
            **INIT,
            "capabilities": {
                "browserTools": ["browser_click", "browser_snapshot", "browser_screenshot"]
            },
        }
        await transport.send("initialize", params)
        yield transport, shim


async def test_revalidation_asks_again_when_the_tab_changed_origin(
    shim_client: tuple[DirectTransport, Shim], provider: ScriptedProvider
) -> None:
    client, shim = shim_client
    log = EventLog()
    client.on_event(log)
    provider.add([ToolCall("browser_click", {"ref": "e1"})], [Text("clicked")])
    thread_id = await new_thread(client)
    turn_id = await _start(client, thread_id, "click buy")
    first = (await wait_for(log, "approval.request"))[0]
    assert first["target"]["origin"] == "https://shop.example"
    # the tab navigates elsewhere before dispatch
    shim.origins = ["https://evil.example", "https://evil.example"]
    await client.send(
        "approval.response",
        {"commandId": "a1", "requestId": first["requestId"], "decision": "allow", "scope": "once"},
    )
    second = (await wait_for(log, "approval.request", 2))[1]
    assert second["target"]["origin"] == "https://evil.example"
    assert shim.invoked == []
    await client.send(
        "approval.response",
        {"commandId": "a2", "requestId": second["requestId"], "decision": "allow", "scope": "once"},
    )
    await wait_for(log, "turn.complete", turnId=turn_id)
    assert len(shim.invoked) == 1 and shim.invoked[0]["tool"] == "browser_click"


async def test_ask_user_opens_an_interaction_claimed_once(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add(
        [ToolCall("ask_user", {"question": "Which size?", "options": ["S", "M"]})],
        [Text("ordering M")],
    )
    thread_id = await new_thread(client)
    turn_id = await _start(client, thread_id, "order a shirt")
    asked = (await wait_for(log, "interaction.request"))[0]
    assert asked["prompt"] == "Which size?"
    with pytest.raises(RemoteError) as invalid:
        await client.send(
            "interaction.response",
            {
                "commandId": "bad",
                "interactionId": asked["interactionId"],
                "values": {"answer": "XL"},
            },
        )
    assert invalid.value.code == -32602
    answer = {"commandId": "i1", "interactionId": asked["interactionId"], "values": {"answer": "M"}}
    await client.send("interaction.response", answer)
    with pytest.raises(RemoteError) as again:
        await client.send("interaction.response", {**answer, "commandId": "i2"})
    assert again.value.kind == "invalid_state"
    await wait_for(log, "turn.complete", turnId=turn_id)
    result = provider.requests[1].messages[-1]
    assert isinstance(result, ToolResultMessage) and "M" in result.content[0].text  # type: ignore[union-attr]


@pytest.fixture
def model_info():  # type: ignore[no-untyped-def]
    from panelot_host.providers.catalog import ModelInfo

    return ModelInfo(id="text-only", provider="scripted", tool_use=True, vision=False)


async def test_vision_false_rejects_image_history_before_the_provider_call(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await new_thread(client)
    image = {"type": "image", "mediaType": "image/png", "data": "iVBORw0KGgo="}
    done = await run_turn(client, log, thread_id, "what is this?", attachments=[image])
    assert done["status"] == "failed" and done["error"]["kind"] == "capability"
    assert provider.requests == []
    assert "image" in done["error"]["message"]


async def test_vision_false_removes_screenshot_from_a_new_runs_catalog(
    shim_client: tuple[DirectTransport, Shim], provider: ScriptedProvider
) -> None:
    client, _ = shim_client
    log = EventLog()
    client.on_event(log)
    provider.add([Text("hi")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "hello")
    names = {t.name for t in provider.requests[0].tools}
    assert "browser_snapshot" in names and "browser_screenshot" not in names
    assert not any(
        isinstance(p, ImagePart)
        for m in provider.requests[0].messages
        for p in getattr(m, "content", [])
    )


async def test_interrupt_withdraws_a_pending_approval_and_says_nothing_ran(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    provider.add([ToolCall("write_note", {"text": "x"})])
    thread_id = await new_thread(client)
    turn_id = await _start(client, thread_id, "write")
    request = (await wait_for(log, "approval.request"))[0]
    await client.send("turn.interrupt", {"threadId": thread_id})
    resolved = await wait_for(log, "approval.resolved")
    assert resolved[0]["requestId"] == request["requestId"] and resolved[0]["cancelled"] is True
    done = await wait_for(log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "interrupted"
    call = next(p["item"] for p in log.of("item.completed") if p["item"]["kind"] == "toolCall")
    assert call["status"] == "interrupted" and call["result"]["content"].startswith("Not run")
    assert tool_log.calls == []
    with pytest.raises(RemoteError) as late:
        await client.send(
            "approval.response",
            {
                "commandId": "late",
                "requestId": request["requestId"],
                "decision": "allow",
                "scope": "once",
            },
        )
    assert late.value.kind == "invalid_state"


async def test_tool_result_images_become_a_note_for_a_model_without_vision(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    from panelot_host.engine.context_window.history import IMAGE_OMITTED
    from panelot_host.providers.types import TextPart

    provider.add([ToolCall("photo", {})], [Text("I cannot see it, but it is a cat")])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "look")
    assert done["status"] == "completed"
    result = provider.requests[1].messages[-1]
    assert isinstance(result, ToolResultMessage)
    assert [p.text for p in result.content if isinstance(p, TextPart)] == [
        "a photo of a cat",
        IMAGE_OMITTED,
    ]


async def test_interrupt_withdraws_an_open_question_once_and_it_cannot_be_answered(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    provider.add([ToolCall("ask_user", {"question": "Which size?", "options": ["S", "M"]})])
    thread_id = await new_thread(client)
    turn_id = await _start(client, thread_id, "order a shirt")
    asked = (await wait_for(log, "interaction.request"))[0]
    await client.send("turn.interrupt", {"threadId": thread_id})
    done = await wait_for(log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "interrupted"
    resolved = log.of("interaction.resolved")
    assert [(r["interactionId"], r["action"]) for r in resolved] == [
        (asked["interactionId"], "cancel")
    ]
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["pendingInteractions"] == []
    with pytest.raises(RemoteError) as late:
        await client.send(
            "interaction.response",
            {
                "commandId": "late",
                "interactionId": asked["interactionId"],
                "values": {"answer": "M"},
            },
        )
    assert late.value.kind == "invalid_state"
