"""The host process's state: configuration, the open profile store and its engine.

Start-up cost matters: Chrome starts a host at every service-worker start. Over stdio the
prelude (``server.prelude``) answers ``initialize`` before this module is imported and
hands its store over (``Host(adopt=...)``); when ``initialize`` comes here, it needs only
the store (lease, migrations). Either way the engine (tool registry, jsonschema,
providers) is built after the answer has gone out, or at once when recovery has
unfinished runs to settle.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from contextlib import AsyncExitStack, ExitStack
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup

from panelot_host.errors import InvalidState
from panelot_host.protocol.codec import warm_decoders
from panelot_host.server.bus import EventBus
from panelot_host.server.config import HostConfig
from panelot_host.server.profile_store import OpenedStore, open_store
from panelot_host.store import turns
from panelot_host.store.db import Database
from panelot_host.store.seq import SeqAllocator

if TYPE_CHECKING:
    from panelot_host.credentials.lazy import LazyCredentials
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


class OpenProfile:
    """One profile's database under the writer lease, with its event bus and (built on
    first use) its engine."""

    def __init__(
        self,
        store: OpenedStore,
        build_engine: Callable[[Database, SeqAllocator, EventBus], Engine],
    ) -> None:
        self.profile_id = store.profile_id
        self.db = store.db
        self.lease = store.lease
        self.seq = SeqAllocator(store.db)
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
    def engine(self) -> Engine | None:
        """The engine if it has been built (reading this never builds it)."""
        return self._engine

    @property
    def threads(self) -> ThreadService:
        """The profile's one ``ThreadService``. Thread ops need only the store: served
        before the engine is built (the side panel lists and opens threads right after
        ``initialize``); branch changes ask the engine's guard once it exists."""
        if self._threads is None:
            # deliberate lazy import: initialize answers without it (start-up speed)
            from panelot_host.engine.threads import ThreadService

            self._threads = ThreadService(self.db, self.seq, self.bus, self._guard)
        return self._threads

    def _guard(self, thread_id: str, op: str) -> None:
        if self._engine is not None or self.has_unfinished_runs():
            self.ensure_engine().guard_branch_change(thread_id, op)

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


def _preload_engine() -> None:
    """Import the engine's modules (run in a worker thread by the warm-up)."""
    import panelot_host.server.assembly  # noqa: F401


class Host:
    """Serves one profile at a time (the first ``initialize`` chooses it).

    Use as ``async with Host(config) as host``. Its lifetimes, in the order they end: the
    open profile (engine and MCP servers settled, then the store closed and the writer
    lease given up: ``aclose``), then the run loops of its task group.
    """

    def __init__(
        self,
        config: HostConfig,
        *,
        models: ModelsFactory | None = None,
        registry: ToolRegistry | None = None,
        secret_mask: SecretMask | None = None,
        adopt: OpenedStore | None = None,
    ) -> None:
        """``adopt``: a profile store the prelude already opened (``server.prelude``);
        ``open_profile`` takes it instead of opening that profile again. ``secret_mask``
        (the log's) learns every credential read and every MCP server's secrets, and
        masks what MCP servers say (``tools.mcp.masking``)."""
        self.config = config
        self._adopted = adopt
        self._registry = registry
        self._models = models
        self._profile: OpenProfile | None = None
        self._opening = anyio.Lock()
        self._tasks: TaskGroup | None = None
        self._lifetime = AsyncExitStack()
        self._resources = AsyncExitStack()  # the open profile's, ended by aclose
        self._secret_mask = secret_mask
        self._credentials: LazyCredentials | None = None
        self._mcp: McpManager | None = None
        self._mcp_started = anyio.Event()  # set once start_mcp has applied mcp.json

    async def __aenter__(self) -> Host:
        async with AsyncExitStack() as stack:
            self._tasks = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(self._tasks.cancel_scope.cancel)  # run loops end with the host
            stack.push_async_callback(self.aclose)  # after the profile has been settled
            stack.callback(self._release_adopted)  # a prelude's store no initialize took
            self._lifetime = stack.pop_all()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self._lifetime.__aexit__(exc_type, exc, tb)

    @property
    def profile(self) -> OpenProfile | None:
        return self._profile

    def tool_registry(self) -> ToolRegistry:
        """The tools models may call: the one given, else the default one, built on first
        use (with the engine, or when MCP servers start)."""
        if self._registry is None:
            from panelot_host.server.assembly import default_registry  # see _build_engine

            self._registry = default_registry()
        return self._registry

    def credentials(self) -> LazyCredentials:
        """The profile's credential store, built on first use (with the engine, or when MCP
        servers start)."""
        if self._credentials is None:
            # lazy: the credentials package is not on the start-up path (initialize answers
            # without it); keyring and cryptography wait for the store's first use
            from panelot_host.credentials.lazy import LazyCredentials

            config = self.config
            self._credentials = LazyCredentials(config.home, config.key_dir, self._secret_mask)
        return self._credentials

    def spawn(self, task: Callable[[], Coroutine[Any, Any, None]]) -> None:
        if self._tasks is None:
            raise RuntimeError("the host is not running: use 'async with Host(...)'")
        self._tasks.start_soon(task)

    def _build_engine(self, db: Database, seq: SeqAllocator, bus: EventBus) -> Engine:
        # deliberate lazy import: the engine, tools and providers are not on the start-up
        # path (initialize answers without them; the warm-up preloads them in a thread)
        from panelot_host.server import assembly

        return assembly.build_engine(
            db,
            seq,
            bus,
            environ=self.config.environ,
            models=self._models(db) if self._models is not None else None,
            registry=self.tool_registry(),
            spawn=self.spawn,
            credentials=self.credentials(),
            mcp=assembly.mcp_settings(self.config.home, lambda: self._mcp),
            sources=assembly.McpSources(self.config.home, self.start_mcp),
            max_answer_bytes=self.config.max_answer_bytes,
        )

    async def start_mcp(self) -> McpManager:
        """Connect the MCP servers of ``mcp.json`` (each in its own task); the manager."""
        if self._mcp is not None:
            await self._mcp_started.wait()  # another task is starting them
            return self._mcp
        # deliberate lazy import: the MCP SDK loads only when servers are configured
        from panelot_host.tools.mcp.config import McpConfigStore
        from panelot_host.tools.mcp.manager import McpManager

        manager = self._mcp = McpManager(
            self.tool_registry(),
            McpConfigStore(self.config.home),
            self.credentials().store(),
            self.spawn,
            secrets=self._secret_mask,
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
            with ExitStack() as opening:  # undone if anything below fails
                store = self._take_adopted(profile_id)
                if store is None:
                    store = await anyio.to_thread.run_sync(self._open_store, profile_id)
                opening.callback(store.close)
                profile = OpenProfile(store, self._build_engine)
                if profile.has_unfinished_runs():
                    recovered = profile.ensure_engine().start()
                    log.info("recovered %d unfinished runs", len(recovered))
                self._resources.enter_context(opening.pop_all())
            self._resources.push_async_callback(self._settle, profile)  # before the store
            self._profile = profile
            return profile

    def _open_store(self, profile_id: str | None) -> OpenedStore:
        home, wait_s = self.config.home, self.config.lease_wait_s
        return open_store(home, profile_id, lease_wait_s=wait_s)

    def _take_adopted(self, profile_id: str | None) -> OpenedStore | None:
        """The prelude's store when it is this profile's (it always is: the prelude opens
        the store of the ``initialize`` it read); any other is closed first."""
        if self._adopted is not None and self._adopted.profile_id == profile_id:
            store, self._adopted = self._adopted, None
            return store
        self._release_adopted()
        return None

    def _release_adopted(self) -> None:
        store, self._adopted = self._adopted, None
        if store is not None:
            store.close()

    def warm_up(self) -> None:
        """Build the request decoders and the engine soon, after the ``initialize``
        answer has gone out."""
        profile = self._profile

        async def warm() -> None:
            await anyio.sleep(WARM_UP_DELAY_S)
            warm_decoders()
            if profile is None or profile.engine is not None:
                return
            # import the engine's modules in a worker thread: the loop keeps serving
            await anyio.to_thread.run_sync(_preload_engine)
            if self._profile is profile:
                profile.ensure_engine()
                if (self.config.home / "mcp.json").exists():
                    await self.start_mcp()

        self.spawn(warm)

    async def aclose(self) -> None:
        """Settle the engine and the MCP servers, close the store and give up the lease
        (once; later calls do nothing)."""
        resources, self._resources = self._resources, AsyncExitStack()
        self._profile = None
        with anyio.CancelScope(shield=True):
            await resources.aclose()

    async def _settle(self, profile: OpenProfile) -> None:
        """The engine first (its runs may still be calling MCP tools), then MCP."""
        if profile.engine is not None:
            await profile.engine.aclose()
        if self._mcp is not None:
            with anyio.move_on_after(1.0):
                await self._mcp.aclose()
