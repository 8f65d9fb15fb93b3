"""The host process's state: configuration, the open profile store and its engine.

Start-up cost matters: Chrome starts a host at every service-worker start, and
``initialize`` should answer within ~150 ms of the spawn. So ``initialize`` needs only the
store (lease, migrations); the engine (tool registry, jsonschema, providers) is built after
the answer has gone out, or at once when recovery has unfinished runs to settle.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import msgspec
from anyio.abc import TaskGroup

from panelot_host.errors import InvalidState
from panelot_host.private_files import private_dir
from panelot_host.protocol.codec import warm_decoders
from panelot_host.server.bus import EventBus
from panelot_host.store import turns
from panelot_host.store.db import Database
from panelot_host.store.lease import DEFAULT_WAIT_S, WriterLease
from panelot_host.store.profiles import database_path
from panelot_host.store.seq import SeqAllocator

if TYPE_CHECKING:
    from panelot_host.credentials.secret import Secret
    from panelot_host.credentials.store import CredentialStore
    from panelot_host.engine.config_ops import CredentialVault, McpSettings
    from panelot_host.engine.core import Engine
    from panelot_host.engine.models import ModelAccess
    from panelot_host.engine.threads import ThreadService
    from panelot_host.secret_mask import SecretMask
    from panelot_host.tools.context import BrowserBridge
    from panelot_host.tools.mcp.manager import McpManager
    from panelot_host.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

ModelsFactory = Callable[[Database], "ModelAccess"]
WARM_UP_DELAY_S = 0.05


class HostConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What a host process needs to know; built once by the CLI and passed in.

    A msgspec struct rather than a pydantic model: importing pydantic alone costs about
    90 ms here, more than half of the start-up budget.
    """

    home: Path
    environ: dict[str, str] = {}
    lease_wait_s: float = DEFAULT_WAIT_S
    key_dir: Path | None = None  # where the credential file's key lives (default: config dir)


class OpenProfile:
    """One profile's database under the writer lease, with its event bus and (built on
    first use) its engine."""

    def __init__(
        self,
        profile_id: str | None,
        db: Database,
        lease: WriterLease,
        build_engine: Callable[[Database, SeqAllocator, EventBus], Engine],
    ) -> None:
        self.profile_id = profile_id
        self.db = db
        self.lease = lease
        self.seq = SeqAllocator(db)
        self.bus = EventBus(self.seq)
        self._build_engine = build_engine
        self._engine: Engine | None = None
        self._threads: ThreadService | None = None
        self._browser: tuple[BrowserBridge | None, frozenset[str]] = (None, frozenset())

    def ensure_engine(self) -> Engine:
        """The profile's engine, built now if it is not yet (tool registry, providers,
        jsonschema: what ``initialize`` does not wait for)."""
        if self._engine is None:
            self._engine = self._build_engine(self.db, self.seq, self.bus)
            self._engine.attach_browser(*self._browser)
        return self._engine

    @property
    def threads(self) -> ThreadService:
        """The profile's one ``ThreadService``. Thread ops need only the store: served
        before the engine is built (the side panel lists and opens threads right after
        ``initialize``); branch changes ask the engine's guard once it exists."""
        if self._threads is None:
            from panelot_host.engine.threads import ThreadService

            self._threads = ThreadService(self.db, self.seq, self.bus, self._guard)
        return self._threads

    def _guard(self, thread_id: str, op: str) -> None:
        if self._engine is not None or self.has_unfinished_runs():
            self.ensure_engine().guard_branch_change(thread_id, op)

    @property
    def engine_built(self) -> bool:
        return self._engine is not None

    def attach_browser(self, bridge: BrowserBridge | None, tools: frozenset[str]) -> None:
        self._browser = (bridge, tools)
        if self._engine is not None:
            self._engine.attach_browser(bridge, tools)

    def detach_browser(self, bridge: BrowserBridge) -> None:
        """Forget ``bridge`` (its connection closed) unless a newer one replaced it."""
        if self._browser[0] is bridge:
            self.attach_browser(None, frozenset())

    def has_unfinished_runs(self) -> bool:
        return turns.has_unfinished_runs(self.db.conn)


def default_registry() -> ToolRegistry:
    """The built-in tools and every browser tool descriptor the host knows."""
    from panelot_host.tools.browser import BROWSER_TOOL_NAMES, browser_tools
    from panelot_host.tools.builtin import builtin_tools
    from panelot_host.tools.registry import ToolRegistry

    registry = ToolRegistry()
    registry.update(add=[*builtin_tools(), *browser_tools(BROWSER_TOOL_NAMES)])
    return registry


def _preload_engine() -> None:
    import panelot_host.engine.core
    import panelot_host.tools.browser
    import panelot_host.tools.builtin  # noqa: F401


class LazyCredentials:
    """The credential store, built on first use (keyring and cryptography are slow to
    import, and ``initialize`` must answer fast)."""

    def __init__(self, home: Path, key_dir: Path | None, mask: SecretMask | None) -> None:
        self._home = home
        self._key_dir = key_dir
        self._mask = mask
        self._store: CredentialStore | None = None

    def store(self) -> CredentialStore:
        if self._store is None:
            from panelot_host.credentials.store import CredentialStore

            on_reveal = self._mask.add if self._mask is not None else None
            self._store = CredentialStore(self._home, key_dir=self._key_dir, on_reveal=on_reveal)
        return self._store

    def get(self, ref: str) -> Secret | None:
        return self.store().get(ref)

    def vault(self) -> CredentialVault:
        from panelot_host.engine.config_ops import CredentialVault

        def fingerprint_of(ref: str) -> str | None:
            secret = self.store().get(ref)
            return secret.fingerprint if secret else None

        return CredentialVault(
            set=lambda ref, secret: self.store().set(ref, secret),
            delete=lambda ref: self.store().delete(ref),
            fingerprint_of=fingerprint_of,
            backend_name=lambda: "keyring" if self.store().kind == "keyring" else "encrypted_file",
        )


class McpSources:
    """The engine's view of the MCP servers (``engine.tool_warmup.ToolSources``): a run's
    first model call waits, bounded, for their first connection. A server that is not
    connected is reported to the run that waited for it, and otherwise once per host
    process and reason (settings.get's ``mcpStatus`` keeps showing it)."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self._reported: set[str] = set()

    async def connecting(self) -> list[str]:
        if not (self._host.config.home / "mcp.json").exists():
            return []
        manager = await self._host.start_mcp()  # the warm-up may not have started them yet
        return manager.connecting()

    async def wait(self, names: list[str], timeout_s: float) -> list[str]:
        if not names and not (self._host.config.home / "mcp.json").exists():
            return []
        manager = await self._host.start_mcp()
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


class Host:
    """Serves one profile at a time (the first ``initialize`` chooses it).

    Use as ``async with Host(config) as host``: run loops live in its task group.
    """

    def __init__(
        self,
        config: HostConfig,
        *,
        models: ModelsFactory | None = None,
        registry: ToolRegistry | None = None,
        secret_mask: SecretMask | None = None,
    ) -> None:
        self.config = config
        self._registry = registry
        self._models = models
        self._profile: OpenProfile | None = None
        self._opening = anyio.Lock()
        self._tasks: TaskGroup | None = None
        self._credentials = LazyCredentials(config.home, config.key_dir, secret_mask)
        self._mcp: McpManager | None = None
        self._mcp_started = anyio.Event()  # set once start_mcp has applied mcp.json

    async def __aenter__(self) -> Host:
        self._tasks = anyio.create_task_group()
        await self._tasks.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        assert self._tasks is not None
        self._tasks.cancel_scope.cancel()
        return await self._tasks.__aexit__(exc_type, exc, tb)

    @property
    def profile(self) -> OpenProfile | None:
        return self._profile

    @property
    def registry(self) -> ToolRegistry:
        if self._registry is None:
            self._registry = default_registry()
        return self._registry

    def spawn(self, task: Callable[[], Coroutine[Any, Any, None]]) -> None:
        if self._tasks is None:
            raise RuntimeError("the host is not running: use 'async with Host(...)'")
        self._tasks.start_soon(task)

    def _engine(self, db: Database, seq: SeqAllocator, bus: EventBus) -> Engine:
        from panelot_host.engine.core import Engine
        from panelot_host.engine.models import ConfiguredModels
        from panelot_host.store import settings as settings_store

        models = (
            self._models(db)
            if self._models is not None
            else ConfiguredModels(
                self.config.environ,
                lambda: settings_store.all_settings(db.conn),
                self._credentials,
                key_origin=lambda ref: settings_store.credential_origin(db.conn, ref),
            )
        )
        engine = Engine(
            db,
            seq,
            bus,
            models=models,
            registry=self.registry,
            spawn=self.spawn,
            environ=self.config.environ,
            vault=self._credentials.vault(),
            mcp=self._mcp_settings(),
            tool_sources=McpSources(self),
        )
        return engine

    def _mcp_settings(self) -> McpSettings:
        from panelot_host.engine.config_ops import McpSettings
        from panelot_host.tools.mcp.config import McpConfigStore

        store = McpConfigStore(self.config.home)

        def status() -> list[dict[str, Any]]:
            mcp = self._mcp
            listed: list[dict[str, Any]] = (
                [msgspec.to_builtins(s) for s in mcp.status()] if mcp is not None else []
            )
            return listed

        return McpSettings(public=store.public, write=store.write, status=status)

    async def start_mcp(self) -> McpManager:
        """Connect the MCP servers of ``mcp.json`` (each in its own task); the manager."""
        if self._mcp is not None:
            await self._mcp_started.wait()  # another task is starting them
            return self._mcp
        from panelot_host.tools.mcp.config import McpConfigStore
        from panelot_host.tools.mcp.manager import McpManager

        manager = self._mcp = McpManager(
            self.registry, McpConfigStore(self.config.home), self._credentials.store(), self.spawn
        )
        try:
            await manager.start()
        finally:
            self._mcp_started.set()
        return manager

    async def reload_mcp(self) -> None:
        """Apply ``mcp.json`` again after ``settings.update`` changed ``mcpServers``."""
        if self._mcp is None:
            await self.start_mcp()
        else:
            await self._mcp.reload()

    async def open_profile(self, profile_id: str | None) -> OpenProfile:
        """Take the profile's writer lease and open its store (migrating it); settle what
        the last process left when there is anything to settle.

        Raises ``LeaseUnavailable`` or ``SchemaTooNew`` (both ``StartupError``), and
        ``InvalidState`` when this process already serves another profile.
        """
        async with self._opening:
            if self._profile is not None:
                if self._profile.profile_id != profile_id:
                    raise InvalidState(
                        "this host process already serves another Chrome profile; "
                        "each profile runs its own host"
                    )
                return self._profile
            path = database_path(self.config.home, profile_id)
            private_dir(path.parent, top=self.config.home)  # every conversation is in there
            lease = WriterLease(path, wait_s=self.config.lease_wait_s)
            await anyio.to_thread.run_sync(lease.acquire)
            try:
                db = Database.open(path)
            except BaseException:
                lease.release()
                raise
            log.info("opened profile store %s", path)
            profile = OpenProfile(profile_id, db, lease, self._engine)
            if profile.has_unfinished_runs():
                recovered = profile.ensure_engine().start()
                log.info("recovered %d unfinished runs", len(recovered))
            self._profile = profile
            return profile

    def warm_up(self) -> None:
        """Build the request decoders and the engine soon, after the ``initialize``
        answer has gone out."""
        profile = self._profile

        async def warm() -> None:
            await anyio.sleep(WARM_UP_DELAY_S)
            warm_decoders()
            if profile is None or profile.engine_built:
                return
            # import the engine's modules in a worker thread: the loop keeps serving
            await anyio.to_thread.run_sync(_preload_engine)
            if self._profile is profile:
                profile.ensure_engine()
                if (self.config.home / "mcp.json").exists():
                    await self.start_mcp()

        self.spawn(warm)

    async def aclose(self) -> None:
        """Settle the engine, close the store and give up the lease."""
        profile, self._profile = self._profile, None
        if profile is None:
            return
        with anyio.CancelScope(shield=True):
            if profile.engine_built:
                await profile.ensure_engine().aclose()
            if self._mcp is not None:
                with anyio.move_on_after(1.0):
                    await self._mcp.aclose()
            profile.db.close()
            profile.lease.release()
