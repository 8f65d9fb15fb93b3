"""An MCP server that repeats the secrets it was given (issue 25): its ``credentialRef``
token and the literal secrets of its ``env`` are masked in everything it says, wherever
that goes: ``settings.get``'s ``mcpStatus``, the events, what the model reads, the
database file and the log. The real host (in process, logging configured as ``serve``
does) and real stdio servers (the official SDK, and a bare JSON-RPC one that refuses to
start)."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread
from tests.mcp.conftest import FAST, Harness, free_port
from tests.support.fixed_models import FixedModels

from panelot_host.cli.logs import LOG_FILE, configure_logging
from panelot_host.credentials.store import CredentialStore
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.secret_mask import REDACTED, SecretMask
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport
from panelot_host.tools.mcp import McpConfigStore, McpManager, McpServerConfig, parse_servers
from panelot_host.tools.mcp.masking import secrets_of
from panelot_host.tools.registry import ToolRegistry

pytestmark = pytest.mark.anyio

TOKEN = "quokka orbit 5521 lantern"  # the stored credential (no key shape)
LITERAL = "velvet-marmot-8830-walrus"  # a literal env value named like a secret
URL_PASSWORD = "Hunter2Pumice"  # the password of a literal URL
PLAIN = "eu-west-1"  # a literal env value that is no secret: it stays readable
SECRETS = (TOKEN, LITERAL, URL_PASSWORD)

SERVER = """
import json, os, sys, warnings

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import ToolAnnotations
from pydantic import BaseModel

warnings.simplefilter("ignore")  # ctx.info (SEP-2577 deprecates log notifications)
TOKEN = os.environ["TOKEN"]
ALL = f"token={TOKEN} key={os.environ['SERVICE_API_KEY']} url={os.environ['DATA_URL']}"
ALL += f" region={os.environ['REGION']} kv=key-value-store"
print(f"starting with {ALL}", file=sys.stderr, flush=True)

if os.environ.get("REFUSE"):  # answers initialize with an error naming the token
    request = json.loads(sys.stdin.readline())
    error = {"code": -32001, "message": f"{ALL} is revoked"}
    print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "error": error}), flush=True)
    sys.stdin.read()
    sys.exit(0)

server = MCPServer(f"echo {TOKEN}", version="1")
SAFE = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class Answer(BaseModel):
    answer: str


@server.tool(annotations=SAFE, description=f"Says {ALL}")
async def leak(ctx: Context) -> str:
    await ctx.report_progress(1, 2, f"progress {ALL}")
    await ctx.info(f"log notification {ALL}")
    return f"result {ALL}"


@server.tool(annotations=SAFE)
def leak_error() -> str:
    raise ToolError(f"tool error {ALL}")


@server.tool(annotations=SAFE)
def leak_refusal() -> str:
    raise MCPError(code=-32002, message=f"JSON-RPC error {ALL}")


@server.tool(annotations=SAFE)
async def leak_question(ctx: Context) -> str:
    answer = await ctx.elicit(f"question {ALL}", Answer)
    return f"answered ({answer.action}) {ALL}"


server.run("stdio")
"""


@pytest.fixture
def logged(home: Path) -> Iterator[SecretMask]:
    """The log as ``panelot-host serve`` has it: a file under ``home/logs`` through the
    mask the host is given (the handlers are removed afterwards)."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    mask = SecretMask()
    configure_logging(home, mask=mask)
    yield mask
    for handler in [h for h in root.handlers if h not in before]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


@pytest.fixture
async def host(
    home: Path,
    provider: ScriptedProvider,
    model_info: ModelInfo,
    registry: ToolRegistry,
    logged: SecretMask,
) -> AsyncIterator[Host]:
    models = FixedModels(provider, model_info)
    config = HostConfig(home=home, lease_wait_s=0.5, key_dir=home.parent / "keys")
    async with Host(
        config, models=lambda _db: models, registry=registry, secret_mask=logged
    ) as host:
        yield host


def server_entry(script: Path, **extra_env: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(script)],
        "env": {
            "TOKEN": {"credentialRef": "echo-token"},
            "SERVICE_API_KEY": LITERAL,
            "DATA_URL": f"postgres://bob:{URL_PASSWORD}@db.local/app",
            "REGION": PLAIN,
            **extra_env,
        },
        "timeout": 20,
    }


async def until(condition: Callable[[], Any], within_s: float = 20.0) -> Any:
    with anyio.fail_after(within_s):
        while not (found := condition()):  # noqa: ASYNC110 - events land in a list, polled
            await anyio.sleep(0.02)
        return found


async def mcp_status(client: DirectTransport) -> dict[str, dict[str, Any]]:
    settings = await client.send("settings.get", {})
    return {s["name"]: s for s in settings["settings"]["mcpStatus"]}


def assert_masked(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} in {where}"
    assert REDACTED in text, f"nothing was masked in {where}: did the server echo?"


async def test_secrets_an_mcp_server_echoes_are_masked_everywhere(
    client: DirectTransport, provider: ScriptedProvider, home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "echo_server.py"
    script.write_text(SERVER, "utf-8")
    stored = await client.send(
        "credentials.set", {"commandId": "k", "ref": "echo-token", "secret": TOKEN}
    )
    assert "fingerprint" in stored
    servers = {"echo": server_entry(script), "refuser": server_entry(script, REFUSE="1")}
    await client.send("settings.update", {"commandId": "s", "mcpServers": servers})

    # (c) the startup failure reason: settings.get's mcpStatus
    with anyio.fail_after(20):
        while True:
            statuses = await mcp_status(client)
            echo, refuser = statuses["echo"], statuses["refuser"]
            if echo["state"] == "connected" and refuser.get("reason"):
                break
            await anyio.sleep(0.05)
    assert refuser["state"] in ("reconnecting", "failed")
    assert "is revoked" in refuser["reason"] and PLAIN in refuser["reason"]
    assert_masked("the refusing server's status reason", refuser["reason"])
    assert echo["toolCount"] == 4
    assert_masked("the server's name", echo["serverName"])

    # (a) a tool result, (b) tool errors (an isError result, a JSON-RPC error), progress,
    # an elicitation; and the mcp_not_ready notice naming the refusing server
    log = EventLog()
    client.on_event(log)
    calls = ["leak", "leak_error", "leak_refusal", "leak_question"]
    provider.add(
        [ToolCall(f"mcp__echo__{name}", {}, call_id=name) for name in calls], [Text("done")]
    )
    thread_id = await new_thread(client)
    turn = await client.send(
        "turn.submit", {"commandId": "t", "threadId": thread_id, "text": "leak it all"}
    )
    asked = (await until(lambda: log.of("interaction.request"), within_s=30))[0]
    assert_masked("the elicitation", asked["prompt"])
    await client.send(
        "interaction.response",
        {"commandId": "i", "interactionId": asked["interactionId"], "values": {"answer": "no"}},
    )
    await until(lambda: [p for p in log.of("turn.complete") if p["turnId"] == turn["turnId"]])

    results = {
        e["item"]["callId"]: e["item"]
        for e in log.of("item.completed")
        if e["item"]["kind"] == "toolCall"
    }
    assert set(results) == set(calls)
    for name in calls:
        assert_masked(f"the result of {name}", json.dumps(results[name]["result"]))
    leaked = json.dumps(results["leak"]["result"])
    assert PLAIN in leaked  # a plain value is not masked, nor is a key *shape* in output
    assert "kv=key-value-store" in leaked
    assert results["leak_error"]["status"] == results["leak_refusal"]["status"] == "failed"
    notices = [e["item"]["text"] for e in log.of("item.completed") if e["item"]["kind"] == "notice"]
    assert_masked("the mcp_not_ready notice", " ".join(n for n in notices if "refuser" in n))
    events = json.dumps(log.events)
    assert_masked("the events", events)
    assert "progress token=[redacted]" in events  # the progress delta
    seen_by_model = repr(provider.requests)
    assert_masked("what the model read", seen_by_model)
    assert "Says token=[redacted]" in seen_by_model  # the tool's description
    assert_masked("settings.get", json.dumps(await mcp_status(client)))

    database = sorted((home / "profiles").glob("*/panelot.db*"))
    assert any(p.name.endswith("-wal") for p in database)
    stored_bytes = b"".join(p.read_bytes() for p in database)
    for secret in SECRETS:
        assert secret.encode() not in stored_bytes, f"{secret!r} in {database}"
    assert REDACTED.encode() in stored_bytes

    log_text = (home / "logs" / LOG_FILE).read_text("utf-8")
    assert "starting with token=" in log_text and "log notification" in log_text
    assert_masked("the log", log_text)


def test_which_literal_values_are_secrets() -> None:
    raw = {
        "s": {
            "command": "x",
            "env": {
                "GITHUB_TOKEN": "ghp-value",
                "DB_PASSWORD": "pw-value",
                "OPENAI": "sk-abcdefgh12",
                "DATABASE_URL": "postgres://bob:pw-in-url@db/x",
                "ROOT": "/home/me/notes",
                "DEBUG": "0",
                "REF": {"credentialRef": "stored"},
            },
        },
        "h": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer abc123"}},
    }
    servers: dict[str, McpServerConfig] = parse_servers(raw)
    assert sorted(secrets_of(servers["s"], {"REF": "resolved-x"})) == [
        "ghp-value",
        "pw-in-url",
        "pw-value",
        "resolved-x",
        "sk-abcdefgh12",
    ]
    assert secrets_of(servers["h"], {}) == ["Bearer abc123", "abc123"]


HTTP_SERVER = """
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("whoami")


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def whoami(ctx: Context) -> str:
    header = ctx.request_context.request.headers["authorization"]
    return "you are " + header.removeprefix("Bearer ")


server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
"""


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """A Streamable HTTP server (the official SDK) whose tool says the bearer token it was
    sent; its URL."""
    script = tmp_path / "whoami_server.py"
    script.write_text(HTTP_SERVER, "utf-8")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(script), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            assert process.poll() is None, "the HTTP server exited at start"
            assert time.monotonic() < deadline, "the HTTP server did not start listening"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(timeout=5)


async def test_a_bearer_token_an_http_server_echoes_is_masked(
    http_server: str, tmp_path: Path
) -> None:
    credentials = CredentialStore(
        tmp_path / "home", key_dir=tmp_path / "keys", keyring_backend=None
    )
    credentials.set("whoami-token", f"Bearer {TOKEN}")
    store = McpConfigStore(tmp_path / "home")
    auth = {"Authorization": {"credentialRef": "whoami-token"}}
    store.write({"whoami": {"url": http_server, "headers": auth}})
    registry = ToolRegistry()
    async with anyio.create_task_group() as tg:
        manager = McpManager(
            registry, store, credentials, tg.start_soon, timing=FAST, secrets=SecretMask()
        )
        harness = Harness(tmp_path, registry, store, manager)
        await manager.start()
        try:
            await harness.wait_connected("whoami", "whoami")
            result = await harness.call("mcp__whoami__whoami", {})
        finally:
            await manager.aclose()
            tg.cancel_scope.cancel()
    assert not result.is_error
    assert isinstance(result.content, str) and "you are " in result.content
    assert_masked("the result", result.content)
