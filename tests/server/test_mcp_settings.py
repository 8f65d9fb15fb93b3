"""MCP servers configured through settings.update, used by a turn end to end."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn

from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.providers.types import ToolResultMessage
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).parents[1] / "mcp" / "servers" / "py_server.py"


async def _status(client: DirectTransport) -> list[dict]:  # type: ignore[type-arg]
    settings = await client.send("settings.get", {})
    return list(settings["settings"]["mcpStatus"])


async def test_an_mcp_server_added_in_settings_serves_a_turn(
    client: DirectTransport, provider: ScriptedProvider, home: Path
) -> None:
    updated = await client.send(
        "settings.update",
        {
            "commandId": "m1",
            "mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}},
        },
    )
    assert updated["settings"]["mcpServers"]["calc"]["command"] == sys.executable
    assert (home / "mcp.json").exists()
    statuses: list[dict] = []  # type: ignore[type-arg]
    with anyio.fail_after(15):
        while not (statuses and statuses[0]["state"] == "connected"):
            await anyio.sleep(0.025)  # the server starts in its own task
            statuses = await _status(client)
    assert statuses[0]["state"] == "connected", statuses
    assert statuses[0]["toolCount"] >= 3
    log = EventLog()
    client.on_event(log)
    provider.add([ToolCall("mcp__calc__add", {"a": 2, "b": 40})], [Text("42")])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "add 2 and 40")
    assert done["status"] == "completed"
    result = next(m for m in provider.requests[1].messages if isinstance(m, ToolResultMessage))
    assert "42" in result.content[0].text  # type: ignore[union-attr]
    assert "mcp__calc__add" in {t.name for t in provider.requests[0].tools}
    removed = await client.send("settings.update", {"commandId": "m2", "mcpServers": {}})
    assert removed["settings"]["mcpServers"] == {}


async def _until(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(15):
        while not condition():  # noqa: ASYNC110 - events land in a list, polled
            await anyio.sleep(0.01)


async def _connect_calc(client: DirectTransport) -> None:
    await client.send(
        "settings.update",
        {
            "commandId": "m1",
            "mcpServers": {"calc": {"command": sys.executable, "args": [str(SERVER)]}},
        },
    )
    statuses: list[dict] = []  # type: ignore[type-arg]
    with anyio.fail_after(15):
        while not (statuses and statuses[0]["state"] == "connected"):
            await anyio.sleep(0.025)
            statuses = await _status(client)


async def test_an_mcp_elicitation_is_answered_through_the_protocol(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    await _connect_calc(client)
    log = EventLog()
    client.on_event(log)
    provider.add([ToolCall("mcp__calc__ask_name", {})], [Text("greeted")])
    thread_id = await new_thread(client)
    turn = await client.send("turn.submit", {"commandId": "s", "threadId": thread_id, "text": "hi"})
    await _until(lambda: bool(log.of("approval.request")))  # no annotations: a write, asked
    request = log.of("approval.request")[0]
    assert request["tool"]["name"] == "mcp__calc__ask_name"
    await client.send(
        "approval.response",
        {"commandId": "a", "requestId": request["requestId"], "decision": "allow", "scope": "once"},
    )
    await _until(lambda: bool(log.of("interaction.request")))
    asked = log.of("interaction.request")[0]
    assert asked["prompt"].endswith("What is your name?") and "calc" in asked["prompt"]
    assert "name" in asked["schema"]["properties"]
    await client.send(
        "interaction.response",
        {"commandId": "i", "interactionId": asked["interactionId"], "values": {"name": "Ada"}},
    )
    await _until(lambda: any(p["turnId"] == turn["turnId"] for p in log.of("turn.complete")))
    result = next(m for m in provider.requests[1].messages if isinstance(m, ToolResultMessage))
    assert "hello Ada" in result.content[0].text  # type: ignore[union-attr]


async def test_an_invalid_mcp_entry_is_refused_and_nothing_is_written(
    client: DirectTransport, home: Path
) -> None:
    from panelot_host.server.transport import RemoteError

    with pytest.raises(RemoteError) as refused:
        await client.send(
            "settings.update",
            {"commandId": "m1", "mcpServers": {"bad": {"url": "ftp://nowhere"}}},
        )
    assert refused.value.code == -32602
    assert not (home / "mcp.json").exists()
