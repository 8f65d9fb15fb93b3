"""Fixtures for Gatekeeper tests: a catalog of tools at every level and effect."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from panelot_host.gatekeeper import Grant, GrantKind, GrantScope
from panelot_host.tools import (
    BROWSER_TOOL_NAMES,
    AgentTool,
    BoundCall,
    BrowserBinding,
    BuiltinBinding,
    Effect,
    Level,
    McpBinding,
    ModelCapabilities,
    RunCatalog,
    ToolRegistry,
    ToolResult,
    browser_tools,
    builtin_tools,
    new_run_catalog,
)

T0 = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _never(args: dict[str, Any], context: Any) -> ToolResult:
    raise AssertionError("the Gatekeeper never executes tools")


def _tool(name: str, level: Level, effects: set[Effect], binding: Any) -> AgentTool:
    return AgentTool(
        name=name,
        label=name,
        description=f"The {name} tool.",
        parameters={"type": "object", "properties": {"tabId": {"type": "integer"}}},
        level=level,
        effects=frozenset(effects),
        recovery="write",
        binding=binding,
        execute=_never,
    )


def extra_tools() -> list[AgentTool]:
    builtin = BuiltinBinding("tests.gatekeeper:tool")
    mcp = McpBinding(server="mail", endpoint="https://mcp.mail.example", remote_name="send")
    return [
        _tool("note_read", "L0", {"read"}, builtin),
        _tool("fetch_url", "L0", {"network"}, builtin),
        _tool("mail_send", "L0", {"external"}, mcp),
        _tool("page_edit", "L1", {"read", "write"}, BrowserBinding("page_edit")),
        _tool("trusted_click", "L2", {"write"}, BrowserBinding("trusted_click")),
    ]


def make_catalog() -> RunCatalog:
    registry = ToolRegistry()
    registry.update(add=[*builtin_tools(), *browser_tools(BROWSER_TOOL_NAMES), *extra_tools()])
    offered = [*BROWSER_TOOL_NAMES, "page_edit", "trusted_click"]
    return new_run_catalog(registry.current, ModelCapabilities(True, True), offered)


@pytest.fixture(scope="session")
def catalog() -> RunCatalog:
    return make_catalog()


def bind(catalog: RunCatalog, name: str, args: dict[str, Any] | None = None) -> BoundCall:
    call = catalog.bind(name, args or {})
    assert isinstance(call, BoundCall), call
    return call


def grant(
    scope: GrantScope,
    tool: str,
    decision: str = "allow",
    *,
    origin: str | None = None,
    thread: str | None = "t1",
    kind: GrantKind = "tool",
    revoked: bool = False,
    gid: str | None = None,
) -> Grant:
    return Grant(
        id=gid or f"{scope}-{tool}-{decision}-{origin}-{thread}-{kind}",
        scope=scope,
        tool=tool,
        decision=decision,  # type: ignore[arg-type]
        created_at=T0,
        origin=origin,
        thread_id=thread if scope == "thread" else None,
        kind=kind,
        revoked_at=T0 if revoked else None,
    )
