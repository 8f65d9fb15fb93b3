"""The engine facade the server talks to: thread commands, turns and the thread actors."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping

import anyio

from panelot_host.engine.actor import Spawn, StopCause, ThreadActors
from panelot_host.engine.admission import active_turn_id
from panelot_host.engine.config_ops import ConfigService, CredentialVault, McpSettings
from panelot_host.engine.context import EngineContext, ToolSources
from panelot_host.engine.events import EventSink
from panelot_host.engine.exports.service import ExportService
from panelot_host.engine.failpoints import Failpoints
from panelot_host.engine.history_cache import HistoryCache
from panelot_host.engine.models import ModelAccess
from panelot_host.engine.policy import PolicyCache
from panelot_host.engine.prompts import SYSTEM_PROMPT
from panelot_host.engine.provider_ops import ProviderService
from panelot_host.engine.publish import Publisher
from panelot_host.engine.recovery import refresh_evidence, settle_on_start
from panelot_host.engine.slots import TurnSlots, max_parallel_turns
from panelot_host.engine.stream import MAX_ANSWER_BYTES
from panelot_host.engine.thread_tabs import TabService
from panelot_host.engine.titles import generate_title
from panelot_host.engine.turn_ops import TurnService, recovered_owner
from panelot_host.engine.workflows import WorkflowService
from panelot_host.errors import ThreadBusy, TurnActive
from panelot_host.store import frames, settings, threads
from panelot_host.store.db import Database
from panelot_host.store.seq import SeqAllocator
from panelot_host.tools.context import BrowserBridge
from panelot_host.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

SECRET_VARIABLE_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
UNOWNED_TABS_VARIABLE = "PANELOT_ACT_ON_UNOWNED_TABS"  # "1": the default of actOnUnownedTabs


def known_secrets(
    db: Database, vault: CredentialVault | None, environ: Mapping[str, str]
) -> list[str]:
    """The secrets no export may show: every stored credential and the API keys, tokens,
    secrets and passwords of the environment."""
    found = [
        value
        for name, value in environ.items()
        if name.upper().endswith(SECRET_VARIABLE_SUFFIXES) and value
    ]
    if vault is not None and vault.secret_of is not None:
        for record in settings.all_credentials(db.conn):
            secret = vault.secret_of(record.ref)
            if secret:
                found.append(secret.reveal())
    return found


class Engine:
    """Owns the store of one profile while the host holds its writer lease."""

    def __init__(
        self,
        db: Database,
        seq: SeqAllocator,
        sink: EventSink,
        *,
        models: ModelAccess,
        registry: ToolRegistry,
        spawn: Spawn,
        environ: Mapping[str, str] | None = None,
        vault: CredentialVault | None = None,
        mcp: McpSettings | None = None,
        system_prompt: str = SYSTEM_PROMPT,
        tool_sources: ToolSources | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        self.db = db
        self.seq = seq
        policy = PolicyCache(db)
        self.ctx = EngineContext(
            db=db,
            publish=Publisher(
                sink,
                lambda thread_id: threads.get(db.conn, thread_id),
                lambda item_id: frames.of_items(db.conn, [item_id]).get(item_id, []),
            ),
            models=models,
            registry=registry,
            actors=ThreadActors(spawn),
            policy=policy,
            system_prompt=system_prompt,
            tool_sources=tool_sources,
            on_idle=self._on_idle,
            on_first_turn=self._on_first_turn,
            faults=Failpoints.from_environ(environ or {}),
            max_answer_bytes=max_answer_bytes,
            act_on_unowned_tabs_default=(environ or {}).get(UNOWNED_TABS_VARIABLE) == "1",
            slots=TurnSlots(max_parallel_turns(policy.settings())),
            history=HistoryCache(),
        )
        self.turns = TurnService(self.ctx)
        self.tabs = TabService(self.ctx)
        self.workflows = WorkflowService(self.ctx, self.turns)
        self.config = ConfigService(self.ctx, environ or {}, vault, mcp)
        self.provider = ProviderService(
            self.ctx, environ or {}, vault.secret_of if vault is not None else None
        )
        self.exports = ExportService(self.ctx, lambda: known_secrets(db, vault, environ or {}))
        self._spawn = spawn
        self._closing = False
        self._background_scopes: set[anyio.CancelScope] = set()

    def attach_browser(self, bridge: BrowserBridge | None, tools: frozenset[str]) -> None:
        """The client that runs browser tools (``initialize.capabilities.browserTools``)."""
        self.ctx.link.attach(bridge, tools)
        if bridge is not None:

            async def refresh() -> None:
                await refresh_evidence(self.ctx, bridge)

            self._background(refresh)

    def start(self) -> list[str]:
        """Settle what the last process left (recovery on start); nothing calls a model."""
        return settle_on_start(self.ctx)

    def guard_branch_change(self, thread_id: str, op: str) -> None:
        """Reject ops that would change a thread's branches while a Turn runs on it, with
        ``thread_busy`` while a recovered run owns the thread."""
        owner = recovered_owner(self.ctx, thread_id)
        if owner is not None:
            raise ThreadBusy(
                f"{op}: a recovered run ({owner}) owns this thread until it is resumed "
                "or interrupted"
            )
        if active_turn_id(self.db.conn, thread_id) is not None:
            raise TurnActive(f"{op} is not possible while a Turn is running on this thread")

    def _on_idle(self, thread_id: str) -> None:
        if self._closing:
            return
        try:
            self.turns.start_next_queued(thread_id)
        except Exception:
            log.exception("could not start the next queued message of %s", thread_id)

    def _on_first_turn(self, thread_id: str, text: str) -> None:
        async def title() -> None:
            await generate_title(self.ctx, thread_id, text)

        self._background(title)

    def _background(self, work: Callable[[], Awaitable[None]]) -> None:
        """Spawn best-effort work (evidence refresh, titles) that must not outlive the
        store: ``aclose`` cancels it, so it never writes to a closed database."""
        scope = anyio.CancelScope()
        self._background_scopes.add(scope)

        async def run() -> None:
            try:
                with scope:
                    await work()
            finally:
                self._background_scopes.discard(scope)

        self._spawn(run)

    async def aclose(self) -> None:
        """Stop admitting work and settle what runs; everything acknowledged is committed."""
        self._closing = True
        for scope in list(self._background_scopes):
            scope.cancel()
        async with anyio.create_task_group() as tasks:
            for actor in self.ctx.actors.all():
                tasks.start_soon(actor.stop, StopCause.SHUTDOWN)
        await self.ctx.models.aclose()
