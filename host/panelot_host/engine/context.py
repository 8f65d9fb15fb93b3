"""What the run loop needs from the rest of the host, gathered in one place."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec

from panelot_host.engine.actor import Spawn, ThreadActor
from panelot_host.engine.failpoints import Failpoints
from panelot_host.engine.models import ModelAccess
from panelot_host.engine.publish import Publisher
from panelot_host.gatekeeper.gatekeeper import Gatekeeper
from panelot_host.gatekeeper.models import Grant, GrantProvenance, PolicyRule
from panelot_host.providers.types import Message
from panelot_host.store import grants as grant_store
from panelot_host.store import settings as settings_store
from panelot_host.store.db import Database
from panelot_host.store.records import GrantRecord
from panelot_host.tools.context import BrowserBridge
from panelot_host.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from panelot_host.engine.tool_warmup import ToolSources

DEFAULT_MAX_TOKENS = 8192


class EngineContext:
    """Dependencies of the engine's services and run loops (no domain state of its own)."""

    def __init__(
        self,
        *,
        db: Database,
        publisher: Publisher,
        models: ModelAccess,
        registry: ToolRegistry,
        spawn: Spawn,
        system_prompt: str,
    ) -> None:
        self.db = db
        self.publish = publisher
        self.models = models
        self.registry = registry
        self.spawn = spawn
        self.system_prompt = system_prompt
        self.actors: dict[str, ThreadActor] = {}
        self.browser: BrowserBridge | None = None
        self.browser_tools: frozenset[str] = frozenset()
        self.tool_sources: ToolSources | None = None  # MCP servers (engine.tool_warmup)
        self._settings: dict[str, Any] | None = None
        self._gatekeeper: Gatekeeper | None = None
        self._grants: list[Grant] | None = None
        self.failpoints = Failpoints()
        # thread -> ((compaction boundary, last item before the running Turn), its messages);
        # see session_context.SessionContext
        self.history_cache: dict[str, tuple[tuple[str | None, str | None], list[Message]]] = {}
        self.unstored_steering: dict[str, list[tuple[str, str]]] = {}  # failpoint only
        self.on_idle: Callable[[str], None] = _ignore
        self.on_first_turn: Callable[[str, str], None] = _ignore_two

    def actor(self, thread_id: str) -> ThreadActor:
        actor = self.actors.get(thread_id)
        if actor is None:
            actor = self.actors[thread_id] = ThreadActor(thread_id, self.spawn)
        return actor

    # This process is the database's only writer (the lease), and settings and grants are
    # written only by the engine's own commands, which invalidate these caches; so the
    # Gatekeeper is not rebuilt from the database for every tool call.

    def settings(self) -> dict[str, Any]:
        if self._settings is None:
            self._settings = settings_store.all_settings(self.db.conn)
        return self._settings

    def gatekeeper(self) -> Gatekeeper:
        if self._gatekeeper is None:
            rules = msgspec.convert(self.settings().get("policyRules", []), list[PolicyRule])
            self._gatekeeper = Gatekeeper(rules)
        return self._gatekeeper

    def grants(self) -> list[Grant]:
        if self._grants is None:
            self._grants = [grant_from_record(r) for r in grant_store.active(self.db.conn)]
        return self._grants

    def settings_changed(self) -> None:
        self._settings = None
        self._gatekeeper = None

    def grants_changed(self) -> None:
        self._grants = None


def _ignore(_: str) -> None:
    return None


def _ignore_two(_: str, __: str) -> None:
    return None


def _datetime(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


def grant_from_record(record: GrantRecord) -> Grant:
    """A stored grant as the Gatekeeper's struct (the kind and provenance ride along)."""
    provenance: Mapping[str, Any] | None = record.provenance.get("provenance")
    return Grant(
        id=record.id,
        scope=record.scope,
        tool=record.tool,
        decision=record.decision,
        created_at=_datetime(record.created_at) or datetime.now(tz=UTC),
        origin=record.origin,
        thread_id=record.thread_id,
        kind=record.provenance.get("kind", "tool"),
        provenance=msgspec.convert(provenance, type=GrantProvenance) if provenance else None,
        revoked_at=_datetime(record.revoked_at),
    )


def record_from_grant(grant: Grant) -> GrantRecord:
    provenance = msgspec.to_builtins(grant.provenance) if grant.provenance else None
    return GrantRecord(
        id=grant.id,
        scope=grant.scope,
        tool=grant.tool,
        origin=grant.origin,
        thread_id=grant.thread_id,
        decision=grant.decision,
        provenance={"kind": grant.kind, "provenance": provenance},
        created_at=int(grant.created_at.timestamp() * 1000),
        revoked_at=int(grant.revoked_at.timestamp() * 1000) if grant.revoked_at else None,
    )
