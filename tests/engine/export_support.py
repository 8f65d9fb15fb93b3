"""Threads to export in tests: one made by the scripted model (tool calls, an approval
allowed and one denied, usage, two branches), and documents compared modulo ids."""

from __future__ import annotations

from typing import Any

from tests.conftest import EventLog
from tests.engine.helpers import answer_approval, new_thread, run_turn, wait_for

from panelot_host.providers.scripted import ScriptedProvider, Stop, Text, ToolCall
from panelot_host.providers.types import Usage
from panelot_host.server.transport import DirectTransport

ID_KEYS = frozenset(
    {
        "id",
        "threadId",
        "turnId",
        "itemId",
        "parentId",
        "userItemId",
        "headItemId",
        "requestId",
        "toolCallId",
        "throughItemId",
        "runId",
        "parentThreadId",
        "forkedFromItemId",
    }
)


async def scripted_thread(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> str:
    """A thread of three Turns on two branches: a lookup, a note allowed and one denied,
    with usage; the second branch is selected."""
    provider.add(
        [ToolCall("lookup", {"key": "weather"}, call_id="c1")],
        [Text("It is sunny."), Stop(usage=Usage(120, 30))],
        [ToolCall("write_note", {"text": "buy milk"}, call_id="c2")],
        [ToolCall("write_note", {"text": "buy cake"}, call_id="c3")],
        [Text("Saved one note; the other was refused."), Stop(usage=Usage(200, 40))],
        [Text("Cloudy later."), Stop(usage=Usage(90, 12))],
    )
    thread_id = await new_thread(client)
    await client.send(
        "thread.rename", {"commandId": "r", "threadId": thread_id, "title": "Weather notes"}
    )
    await run_turn(client, log, thread_id, "what is the weather?")
    first = await client.send("thread.open", {"threadId": thread_id})
    answer = first["items"][-1]["id"]
    submitted = await client.send(
        "turn.submit", {"commandId": "s2", "threadId": thread_id, "text": "note two things"}
    )
    allow, deny = None, None
    allow = (await wait_for(log, "approval.request", 1))[0]
    await answer_approval(client, allow, "allow", "once")
    deny = (await wait_for(log, "approval.request", 2))[1]
    await answer_approval(client, deny, "deny", "once")
    await wait_for(log, "turn.complete", turnId=submitted["turnId"])
    await client.send(
        "thread.selectBranch", {"commandId": "b", "threadId": thread_id, "itemId": answer}
    )
    await run_turn(client, log, thread_id, "and later?")
    return thread_id


def without_ids(value: Any, names: dict[str, str] | None = None) -> Any:
    """``value`` (JSON) with every id replaced by its order of first appearance, so two
    copies with fresh ids compare equal."""
    names = {} if names is None else names
    if isinstance(value, dict):
        return {
            k: (_name(v, names) if k in ID_KEYS and isinstance(v, str) else without_ids(v, names))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [without_ids(v, names) for v in value]
    return value


def _name(value: str, names: dict[str, str]) -> str:
    return names.setdefault(value, f"id{len(names)}")
