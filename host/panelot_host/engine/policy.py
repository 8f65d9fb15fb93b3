"""The permission policy the Gatekeeper decides with: settings, rules and grants read from
the store once and kept until a command changes them; stored grants <-> Gatekeeper grants.

This process is the database's only writer (the lease), and settings and grants are
written only by the engine's own commands, which call ``settings_changed`` and
``grants_changed``; so the Gatekeeper is not rebuilt from the database for every tool call.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec

from panelot_host.gatekeeper.gatekeeper import Gatekeeper
from panelot_host.gatekeeper.models import Grant, GrantProvenance, PolicyRule
from panelot_host.store import grants as grant_store
from panelot_host.store import settings as settings_store
from panelot_host.store.db import Database
from panelot_host.store.records import GrantRecord


class PolicyCache:
    """Settings, the Gatekeeper built from their policy rules, and the active grants."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._settings: dict[str, Any] | None = None
        self._gatekeeper: Gatekeeper | None = None
        self._grants: list[Grant] | None = None

    def settings(self) -> dict[str, Any]:
        if self._settings is None:
            self._settings = settings_store.all_settings(self._db.conn)
        return self._settings

    def gatekeeper(self) -> Gatekeeper:
        if self._gatekeeper is None:
            rules = msgspec.convert(self.settings().get("policyRules", []), list[PolicyRule])
            self._gatekeeper = Gatekeeper(rules)
        return self._gatekeeper

    def grants(self) -> list[Grant]:
        if self._grants is None:
            self._grants = [grant_from_record(r) for r in grant_store.active(self._db.conn)]
        return self._grants

    def settings_changed(self) -> None:
        self._settings = None
        self._gatekeeper = None

    def grants_changed(self) -> None:
        self._grants = None


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
