"""What the run loop needs from the rest of the host, gathered in one place."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

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
        self.failpoints = Failpoints()
        # thread -> (last item before the running Turn, its messages); see RunDriver._history
        self.history_cache: dict[str, tuple[str | None, list[Message]]] = {}
        self.unstored_steering: dict[str, list[tuple[str, str]]] = {}  # failpoint only
        self.on_idle: Callable[[str], None] = _ignore
        self.on_first_turn: Callable[[str, str], None] = _ignore_two

    def actor(self, thread_id: str) -> ThreadActor:
        actor = self.actors.get(thread_id)
        if actor is None:
            actor = self.actors[thread_id] = ThreadActor(thread_id, self.spawn)
        return actor

    def settings(self) -> dict[str, Any]:
        return settings_store.all_settings(self.db.conn)

    def gatekeeper(self) -> Gatekeeper:
        rules = msgspec.convert(self.settings().get("policyRules", []), list[PolicyRule])
        return Gatekeeper(rules)

    def grants(self) -> list[Grant]:
        return [grant_from_record(r) for r in grant_store.active(self.db.conn)]


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
        scope=record.scope,  # type: ignore[arg-type]
        tool=record.tool,
        decision=record.decision,  # type: ignore[arg-type]
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
