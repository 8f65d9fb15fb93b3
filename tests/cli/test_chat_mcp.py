"""The first turn after start sees the MCP servers of ``mcp.json``: its first model call
waits (bounded) for their first connection, says so, and names the servers that were
not ready. A real chat process, the Python MCP test server and a fake model server."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.fake_openai import CHAT, SSEServer, host_env, requests_of, text_reply, tool_reply
from tests.support.wire_client import HostProcess, initialize_params

from panelot_host.engine.tool_warmup import MCP_WAIT_S

PY_SERVER = Path(__file__).parents[1] / "mcp" / "servers" / "py_server.py"
NEVER_ANSWERS = "import time; time.sleep(120)"  # a server that never finishes initialize


def write_mcp_json(home: Path, servers: dict[str, object]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}), "utf-8")


def chat(home: Path, server: SSEServer, prompt: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CHAT, "--model", "local-model", prompt],
        env=host_env(home, server),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )


def offered(request: dict[str, object]) -> set[str]:
    tools = request.get("tools") or []
    assert isinstance(tools, list)
    return {tool["function"]["name"] for tool in tools}


def test_the_first_turn_offers_the_mcp_tools_and_names_the_servers_not_ready(
    tmp_path: Path, model_server: SSEServer
) -> None:
    home = tmp_path / "home"
    write_mcp_json(
        home,
        {
            "calc": {"command": sys.executable, "args": [str(PY_SERVER)]},
            "stuck": {"command": sys.executable, "args": ["-c", NEVER_ANSWERS]},
            "locked": {
                "command": sys.executable,
                "args": [str(PY_SERVER)],
                "env": {"TOKEN": {"credentialRef": "never-stored"}},
            },
        },
    )
    model_server.add(tool_reply("mcp__calc__add", {"a": 2, "b": 3}), text_reply("It is 5."))
    done = chat(home, model_server, "please add 2 and 3")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It is 5.\n"
    first = requests_of(model_server)[0]
    assert "mcp__calc__add" in offered(first)  # bound after the servers had their chance
    assert "ask_user" in offered(first)
    waiting = [line for line in done.stderr.splitlines() if "Waiting up to" in line]
    assert len(waiting) == 1 and f"up to {MCP_WAIT_S:.0f} s for MCP servers" in waiting[0]
    assert "calc" in waiting[0] and "stuck" in waiting[0]
    not_ready = [line for line in done.stderr.splitlines() if "not ready" in line]
    assert len(not_ready) == 1, done.stderr
    assert "stuck (connecting)" in not_ready[0]
    assert "locked (failed" in not_ready[0] and "never-stored" in not_ready[0]
    assert "calc" not in not_ready[0]
    assert "- mcp__calc__add" in done.stderr and "succeeded: sum=5" in done.stderr


def test_without_mcp_servers_nothing_waits_or_is_announced(
    tmp_path: Path, model_server: SSEServer
) -> None:
    model_server.add(text_reply("Hi."))
    done = chat(tmp_path / "home", model_server, "hello")
    assert done.returncode == 0, done.stderr
    assert "MCP" not in done.stderr
    assert offered(requests_of(model_server)[0]) == {"ask_user"}


def test_the_side_panels_first_turn_waits_the_same_way(
    tmp_path: Path, model_server: SSEServer
) -> None:
    """``panelot-host serve`` over native-messaging frames, as Chrome runs it: a Turn
    submitted right after ``initialize`` still offers the MCP server's tools."""
    home = tmp_path / "home"
    write_mcp_json(home, {"calc": {"command": sys.executable, "args": [str(PY_SERVER)]}})
    model_server.add(text_reply("Ready."))
    env = host_env(home, model_server, PANELOT_MODEL="local-model")
    host = HostProcess(home, "serve", env=env)
    try:
        assert "result" in host.call("initialize", initialize_params())
        created = host.call("thread.create", {"commandId": "c1"})
        thread_id = created["result"]["thread"]["id"]
        params = {"commandId": "c2", "threadId": thread_id, "text": "add things"}
        assert "result" in host.call("turn.submit", params)
        deadline = time.monotonic() + 30
        while not any(e.get("method") == "turn.complete" for e in host.events):
            assert time.monotonic() < deadline, host.events
            host.events.append(host.next_message(timeout=30))
    finally:
        host.kill()
    notices = [
        e["params"]["item"]
        for e in host.events
        if e.get("method") == "item.completed" and e["params"]["item"]["kind"] == "notice"
    ]
    assert [n["code"] for n in notices] in (["mcp_waiting"], [])  # [] if it was quicker
    assert "mcp__calc__add" in offered(requests_of(model_server)[0])
