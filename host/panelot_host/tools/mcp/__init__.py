"""MCP servers' tools (``docs/mcp.md``): ``mcp.json``, one session task per server,
descriptors bound to the session that listed them, and results mapped to ``ToolResult``.

The host builds ``McpManager(registry, McpConfigStore(home), credentials, host.spawn)``,
awaits ``start()`` once it serves, ``reload()`` after ``settings.update`` changed
``mcpServers``, shows ``status()`` in ``settings.get`` and awaits ``aclose()`` on exit.
"""

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
