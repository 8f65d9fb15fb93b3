"""How the host assembles a profile's engine: models, the tool registry, the credential
vault, the MCP settings and sources.

Imported only when the engine is built (after ``initialize`` has answered, see
``host.Host.warm_up``), never on the start-up path: everything here imports the engine, the
tools and the providers at module level, so ``host`` has one deliberate lazy import of this
module instead of one per part.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from panelot_host.engine.actor import Spawn
from panelot_host.engine.config_ops import CredentialVault, McpSettings
from panelot_host.engine.core import Engine
from panelot_host.engine.models import ConfiguredModels, ModelAccess
from panelot_host.engine.stream import MAX_ANSWER_BYTES
from panelot_host.server.bus import EventBus
from panelot_host.store import settings as settings_store
from panelot_host.store.db import Database
from panelot_host.store.seq import SeqAllocator
from panelot_host.tools.browser import BROWSER_TOOL_NAMES, browser_tools
from panelot_host.tools.builtin import builtin_tools
from panelot_host.tools.mcp.config import McpConfigStore
from panelot_host.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from panelot_host.credentials.lazy import LazyCredentials
    from panelot_host.tools.mcp.manager import McpManager


def default_registry() -> ToolRegistry:
    """The built-in tools and every browser tool descriptor the host knows."""
    registry = ToolRegistry()
    registry.update(add=[*builtin_tools(), *browser_tools(BROWSER_TOOL_NAMES)])
    return registry


def build_engine(
    db: Database,
    seq: SeqAllocator,
    bus: EventBus,
    *,
    environ: Mapping[str, str],
    models: ModelAccess | None,
    registry: ToolRegistry,
    spawn: Spawn,
    credentials: LazyCredentials,
    mcp: McpSettings,
    sources: McpSources,
    max_answer_bytes: int | None = None,
) -> Engine:
    """The engine of the profile whose store is ``db``; ``models`` None: the configured
    provider (environment, then settings), its key from ``credentials``;
    ``max_answer_bytes`` None: the engine's bound on one model answer."""
    if models is None:
        models = ConfiguredModels(
            environ,
            lambda: settings_store.all_settings(db.conn),
            credentials,
            key_origin=lambda ref: settings_store.credential_origin(db.conn, ref),
        )
    return Engine(
        db,
        seq,
        bus,
        models=models,
        registry=registry,
        spawn=spawn,
        environ=environ,
        vault=credential_vault(credentials),
        mcp=mcp,
        tool_sources=sources,
        max_answer_bytes=max_answer_bytes or MAX_ANSWER_BYTES,
    )


def credential_vault(credentials: LazyCredentials) -> CredentialVault:
    """The engine's view of the credential store (built on first use)."""

    def fingerprint_of(ref: str) -> str | None:
        secret = credentials.store().get(ref)
        return secret.fingerprint if secret else None

    return CredentialVault(
        set=lambda ref, secret: credentials.store().set(ref, secret),
        delete=lambda ref: credentials.store().delete(ref),
        fingerprint_of=fingerprint_of,
        secret_of=lambda ref: credentials.store().get(ref),
        backend_name=lambda: (
            "keyring" if credentials.store().kind == "keyring" else "encrypted_file"
        ),
    )


def mcp_settings(home: Path, manager: Callable[[], McpManager | None]) -> McpSettings:
    """``mcp.json`` under ``home`` (masked view, validated write) and the status of the
    servers ``manager()`` runs (none before they are started)."""
    store = McpConfigStore(home)

    def status() -> list[dict[str, Any]]:
        running = manager()
        if running is None:
            return []
        listed: list[dict[str, Any]] = [msgspec.to_builtins(s) for s in running.status()]
        return listed

    return McpSettings(
        public=store.public, write=store.write, status=status, compared=store.compared
    )


class McpSources:
    """The engine's view of the MCP servers (``engine.context.ToolSources``): a run's
    first model call waits, bounded, for their first connection. A server that is not
    connected is reported to the run that waited for it, and otherwise once per host
    process and reason (settings.get's ``mcpStatus`` keeps showing it)."""

    def __init__(self, home: Path, start: Callable[[], Awaitable[McpManager]]) -> None:
        self._config = home / "mcp.json"
        self._start = start
        self._reported: set[str] = set()

    async def connecting(self) -> list[str]:
        if not self._config.exists():
            return []
        manager = await self._start()  # the warm-up may not have started them yet
        return manager.connecting()

    async def wait(self, names: list[str], timeout_s: float) -> list[str]:
        if not names and not self._config.exists():
            return []
        manager = await self._start()
        await manager.wait_connected(names, timeout_s)
        missing = []
        for status in manager.status():
            if status.state in ("connected", "disabled"):
                continue
            line = f"{status.name} ({status.state}" + (
                f": {status.reason})" if status.reason else ")"
            )
            if status.name in names or line not in self._reported:
                missing.append(line)
                self._reported.add(line)
        return missing
