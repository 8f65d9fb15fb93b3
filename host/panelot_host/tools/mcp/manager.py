"""``McpManager``: the configured MCP servers, one ``McpConnection`` task each."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

import anyio

from panelot_host.credentials import CredentialStore
from panelot_host.errors import InvalidParams
from panelot_host.secret_mask import SecretMask
from panelot_host.tools.descriptor import AgentTool, served_by
from panelot_host.tools.mcp.config import McpConfigStore, McpServers
from panelot_host.tools.mcp.connection import McpConnection, Sampler
from panelot_host.tools.mcp.status import ServerStatus, Timing
from panelot_host.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


class McpManager:
    """Starts, restarts and stops the servers of ``mcp.json``; publishes their tools.

    ``spawn`` starts a task in the host's task group (``Host.spawn``): each enabled
    server gets one long-lived task holding its session. ``credentials`` resolves
    ``{"credentialRef"}`` values (None: such servers fail with a clear reason).
    ``sampler`` answers sampling requests of servers with ``allowSampling`` (None:
    declined with a message saying so). ``secrets`` is the host's ``SecretMask`` (the
    log's; None: a new one): each server's secrets are added to it as it starts, and
    whatever the servers say is masked with it (``masking``).
    """

    def __init__(
        self,
        registry: ToolRegistry,
        config_store: McpConfigStore,
        credentials: CredentialStore | None,
        spawn: Spawn,
        *,
        timing: Timing | None = None,
        sampler: Sampler | None = None,
        secrets: SecretMask | None = None,
    ) -> None:
        self._registry = registry
        self._secrets = secrets if secrets is not None else SecretMask()
        self._store = config_store
        self._credentials = credentials
        self._spawn = spawn
        self._timing = timing or Timing()
        self._sampler = sampler
        self._configured: McpServers = {}
        self._connections: dict[str, McpConnection] = {}
        self._lock = anyio.Lock()
        self._config_problem: InvalidParams | None = None

    @property
    def config_problem(self) -> InvalidParams | None:
        """Why ``mcp.json`` could not be read at the last (re)load, or None."""
        return self._config_problem

    async def start(self) -> None:
        """Connect every enabled server (each in its own task; returns at once)."""
        await self.reload()

    async def reload(self) -> None:
        """Apply ``mcp.json`` again (after ``settings.update``, enable, disable, remove).

        Removed, disabled and changed servers are stopped (their tools leave the
        registry); new, changed and given-up servers are started. An unreadable file
        changes nothing; ``config_problem`` says why.
        """
        try:
            servers = self._store.read()
        except InvalidParams as exc:
            log.error("MCP: %s unusable: %s %s", self._store.path, exc.message, exc.errors)
            self._config_problem = exc
            return
        self._config_problem = None
        async with self._lock:
            await self._apply(servers)

    def connecting(self) -> list[str]:
        """The enabled servers whose first connection is still under way."""
        return sorted(name for name, c in self._connections.items() if not c.settled)

    async def wait_connected(self, names: list[str], timeout_s: float) -> list[ServerStatus]:
        """Wait, at most ``timeout_s``, until each of ``names`` has connected or given up;
        returns the statuses of those that are not connected."""
        with anyio.move_on_after(timeout_s):
            for name in names:
                connection = self._connections.get(name)
                if connection is not None:
                    await connection.wait_settled()
        wanted = set(names)
        return [s for s in self.status() if s.name in wanted and s.state != "connected"]

    def status(self) -> list[ServerStatus]:
        """Every configured server by name: disabled ones too."""
        statuses: list[ServerStatus] = []
        for name, config in sorted(self._configured.items()):
            connection = self._connections.get(name)
            if connection is None:
                statuses.append(
                    ServerStatus(name=name, transport=config.transport, state="disabled")
                )
            else:
                statuses.append(connection.status())
        return statuses

    async def aclose(self) -> None:
        """Stop every server (bounded waits) and remove their tools."""
        async with self._lock:
            await self._apply({})

    async def _apply(self, servers: McpServers) -> None:
        for name, connection in list(self._connections.items()):
            config = servers.get(name)
            if (
                config is None
                or config.disabled
                or config != connection.config
                or connection.finished
            ):
                del self._connections[name]
                await connection.stop()
                self._registry.replace_mcp_server(name, [])
        self._configured = dict(servers)
        for name, config in servers.items():
            if not config.disabled and name not in self._connections:
                connection = McpConnection(
                    name,
                    config,
                    publish=self._publish,
                    credentials=self._credentials,
                    secrets=self._secrets,
                    timing=self._timing,
                    sampler=self._sampler,
                )
                self._connections[name] = connection
                self._spawn(connection.run)

    def _publish(self, connection: McpConnection, tools: list[AgentTool]) -> None:
        """Replace the server's tools (one new generation) unless the connection is stale."""
        if self._connections.get(connection.name) is not connection:
            return
        taken = {
            t.name for t in self._registry.current if not served_by(t.descriptor, connection.name)
        }
        kept = [t for t in tools if t.name not in taken]
        for tool in tools:
            if tool.name in taken:
                log.warning(
                    "MCP server %s: tool name %s is taken; skipped", connection.name, tool.name
                )
        self._registry.replace_mcp_server(connection.name, kept)
