"""MCP servers' tools (``docs/mcp.md``): ``mcp.json``, one session task per server,
descriptors bound to the session that listed them, and results mapped to ``ToolResult``.

The host builds ``McpManager(registry, McpConfigStore(home), credentials, host.spawn)``,
awaits ``start()`` once it serves, ``reload()`` after ``settings.update`` changed
``mcpServers``, shows ``status()`` in ``settings.get`` and awaits ``aclose()`` on exit.

Module map: ``config`` (``mcp.json``), ``manager`` (all servers), ``connection`` (one
server's session task), ``transport`` (stdio, Streamable HTTP, SSE), ``tools``
(descriptors and results), ``calls`` (one call in flight), ``status`` (what clients see),
``masking`` (the host's secrets masked out of everything a server says).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from panelot_host.tools.lazy import lazy_getattr

# Submodules load on first use (PEP 562), as in ``panelot_host.tools``: reading
# ``mcp.json`` (``settings.get``) does not pay for the MCP SDK.
_WHERE: dict[str, str] = {
    "MASK": "panelot_host.tools.mcp.config",
    "Backoff": "panelot_host.tools.mcp.status",
    "CredentialRef": "panelot_host.tools.mcp.config",
    "McpConfigStore": "panelot_host.tools.mcp.config",
    "McpConnection": "panelot_host.tools.mcp.connection",
    "McpManager": "panelot_host.tools.mcp.manager",
    "McpServerConfig": "panelot_host.tools.mcp.config",
    "Sampler": "panelot_host.tools.mcp.connection",
    "ServerState": "panelot_host.tools.mcp.status",
    "ServerStatus": "panelot_host.tools.mcp.status",
    "Spawn": "panelot_host.tools.mcp.manager",
    "Timing": "panelot_host.tools.mcp.status",
    "effects_of": "panelot_host.tools.mcp.tools",
    "map_result": "panelot_host.tools.mcp.tools",
    "parse_servers": "panelot_host.tools.mcp.config",
    "public_view": "panelot_host.tools.mcp.config",
    "tool_name": "panelot_host.tools.mcp.tools",
}

if TYPE_CHECKING:
    from panelot_host.tools.mcp.config import (
        MASK,
        CredentialRef,
        McpConfigStore,
        McpServerConfig,
        parse_servers,
        public_view,
    )
    from panelot_host.tools.mcp.connection import McpConnection, Sampler
    from panelot_host.tools.mcp.manager import McpManager, Spawn
    from panelot_host.tools.mcp.status import Backoff, ServerState, ServerStatus, Timing
    from panelot_host.tools.mcp.tools import effects_of, map_result, tool_name

__all__ = [
    "MASK",
    "Backoff",
    "CredentialRef",
    "McpConfigStore",
    "McpConnection",
    "McpManager",
    "McpServerConfig",
    "Sampler",
    "ServerState",
    "ServerStatus",
    "Spawn",
    "Timing",
    "effects_of",
    "map_result",
    "parse_servers",
    "public_view",
    "tool_name",
]

__getattr__ = lazy_getattr(__name__, _WHERE)
