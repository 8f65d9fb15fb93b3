"""Fixtures for MCP tests: a manager on a temporary home, a scripted ToolContext, and
the servers (the Python test server, and server-everything over stdio and HTTP)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from panelot_host.errors import ToolError
from panelot_host.tools import (
    ModelCapabilities,
    ToolRegistry,
    ToolResult,
    new_run_catalog,
)
from panelot_host.tools.mcp import Backoff, McpConfigStore, McpManager, Timing
from panelot_host.tools.target import Target

HERE = Path(__file__).parent
PY_SERVER = HERE / "servers" / "py_server.py"
NODE_DIR = HERE / "node"
EVERYTHING = NODE_DIR / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = shutil.which("node")
FAST = Timing(
    connect_s=20.0,
    keepalive_s=0.5,
    ping_timeout_s=2.0,
    backoff=Backoff(initial_s=0.05, factor=2.0, max_s=0.5, max_attempts=5),
)

PATIENT = Timing(
    connect_s=20.0,
    keepalive_s=0.3,
    ping_timeout_s=2.0,
    backoff=Backoff(initial_s=0.05, factor=2.0, max_s=0.3, max_attempts=60),
)

needs_node = pytest.mark.skipif(
    NODE is None or not EVERYTHING.exists(),
    reason="node or server-everything missing: run tests/mcp/install_node_deps.sh",
)

Answer = dict[str, Any] | str  # values, or "decline"


@dataclass
class ScriptedContext:
    """A real ToolContext: answers ``ask_user`` from a script, records what it saw."""

    answers: list[Answer] = field(default_factory=list)
    asked: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    progress: list[str] = field(default_factory=list)
    call_id: str = "call-1"
    thread_id: str = "thread-1"
    turn_id: str = "turn-1"
    turn_started_ms: int = 1_780_000_000_000
    capture_frames: bool = True
    target: Target | None = None
    browser: None = None

    def report_progress(self, progress: str) -> None:
        self.progress.append(progress)

    async def ask_user(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        self.asked.append((prompt, schema))
        answer = self.answers.pop(0)
        if answer == "decline":
            raise ToolError("the user declined to answer")
        assert isinstance(answer, dict)
        return answer


@dataclass
class Harness:
    """A registry, the manager over ``home/mcp.json``, and helpers to call tools."""

    home: Path
    registry: ToolRegistry
    store: McpConfigStore
    manager: McpManager

    def tools(self, server: str) -> list[str]:
        prefix = f"mcp__{server}__"
        return sorted(t.name for t in self.registry.current if t.name.startswith(prefix))

    async def wait_for(self, check: Callable[[], bool], within_s: float = 20.0) -> None:
        with anyio.fail_after(within_s):
            while not check():  # noqa: ASYNC110 - polls state another process drives
                await anyio.sleep(0.05)

    async def wait_connected(self, server: str, tool: str | None = None) -> None:
        def ready() -> bool:
            states = {s.name: s for s in self.manager.status()}
            connected = states[server].state == "connected"
            return connected and (tool is None or f"mcp__{server}__{tool}" in self.tools(server))

        await self.wait_for(ready)

    def catalog(self) -> Any:
        return new_run_catalog(self.registry.current, ModelCapabilities(True, True), [])

    async def call(
        self, name: str, args: dict[str, Any], context: ScriptedContext | None = None
    ) -> ToolResult:
        return await call_in(self.catalog(), name, args, context)


async def call_in(
    catalog: Any, name: str, args: dict[str, Any], context: ScriptedContext | None = None
) -> ToolResult:
    bound = catalog.bind(name, args)
    if isinstance(bound, ToolResult):
        return bound
    result: ToolResult = await bound.execute(context or ScriptedContext())
    return result


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Callable[[dict[str, Any]], Any]]:
    """``await start(servers)`` -> a started ``Harness`` (stopped after the test)."""
    async with anyio.create_task_group() as tg:
        managers: list[McpManager] = []

        async def start(servers: dict[str, Any], timing: Timing = FAST) -> Harness:
            store = McpConfigStore(tmp_path)
            store.write(servers)
            registry = ToolRegistry()
            manager = McpManager(registry, store, None, tg.start_soon, timing=timing)
            managers.append(manager)
            await manager.start()
            return Harness(tmp_path, registry, store, manager)

        yield start
        for manager in managers:
            await manager.aclose()
        tg.cancel_scope.cancel()


def py_server(pid_file: Path | None = None) -> dict[str, Any]:
    """The mcp.json entry of the Python test server."""
    env = {"PANELOT_TEST_PID_FILE": str(pid_file)} if pid_file else {}
    return {"command": sys.executable, "args": [str(PY_SERVER)], "env": env, "timeout": 10}


def everything_stdio() -> dict[str, Any]:
    return {"command": NODE or "node", "args": [str(EVERYTHING), "stdio"]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class HttpEverything:
    """server-everything's Streamable HTTP transport on 127.0.0.1 (killable, restartable)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._process = subprocess.Popen(
            [NODE or "node", str(NODE_DIR / "serve-http.mjs")],
            cwd=NODE_DIR,
            env={**os.environ, "PORT": str(self.port)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_listening(self.port, self._process)

    def kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(timeout=5)


@pytest.fixture
def everything_http() -> Iterator[HttpEverything]:
    """A started ``HttpEverything`` (killed after the test)."""
    if NODE is None or not EVERYTHING.exists():
        pytest.skip("node or server-everything missing: run tests/mcp/install_node_deps.sh")
    server = HttpEverything()
    server.start()
    try:
        yield server
    finally:
        server.kill()


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    import time

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("server-everything (HTTP) exited at start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("server-everything (HTTP) did not start listening")
