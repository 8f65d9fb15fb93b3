"""A run's first model call and the MCP servers of ``mcp.json`` (engine.tool_warmup), in
process: the real host and engine, the scripted model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn

from panelot_host.providers.scripted import ScriptedProvider, Text
from panelot_host.server.transport import DirectTransport

from .conftest import PY_SERVER

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """``mcp.json`` is in place before the host starts: one working server, one that
    fails at once (its credential was never stored)."""
    home = tmp_path / "panelot-home"
    home.mkdir()
    servers = {
        "calc": {"command": sys.executable, "args": [str(PY_SERVER)]},
        "locked": {
            "command": sys.executable,
            "args": [str(PY_SERVER)],
            "env": {"TOKEN": {"credentialRef": "never-stored"}},
        },
    }
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}), "utf-8")
    return home


def notices(log: EventLog, turn_id: str) -> dict[str, str]:
    return {
        e["item"]["code"]: e["item"]["text"]
        for e in log.of("item.completed")
        if e["turnId"] == turn_id and e["item"]["kind"] == "notice"
    }


async def test_a_failed_server_is_reported_once_and_connected_tools_are_offered(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    log = EventLog()
    client.on_event(log)
    provider.add([Text("one")], [Text("two")])
    thread_id = await new_thread(client)
    first = await run_turn(client, log, thread_id, "first")
    said = notices(log, first["turnId"])
    assert "locked (failed" in said["mcp_not_ready"] and "never-stored" in said["mcp_not_ready"]
    assert "calc" not in said["mcp_not_ready"]
    assert "mcp__calc__add" in {t.name for t in provider.requests[0].tools}

    second = await run_turn(client, log, thread_id, "second")
    assert notices(log, second["turnId"]) == {}  # nothing new to say, nothing to wait for
    assert "mcp__calc__add" in {t.name for t in provider.requests[1].tools}
    opened = await client.send("thread.open", {"threadId": thread_id})
    kinds = [i["kind"] for i in opened["items"]]
    assert kinds.count("notice") == len(said)  # the notices are stored in the thread
