"""Grants: matching, digests, approvals turned into grants, the ledger and its export."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from panelot_host.errors import Conflict, InvalidParams, NotFound
from panelot_host.gatekeeper.models import (
    ApprovalScope,
    Grant,
    GrantDecision,
    GrantProvenance,
    GrantScope,
)
from panelot_host.gatekeeper.policy import glob_matches
from panelot_host.tools.descriptor import Level
from panelot_host.tools.target import Target

LEDGER_VERSION = 1
_encoder = msgspec.json.Encoder()


def active_grants(grants: Iterable[Grant]) -> list[Grant]:
    """The grants that still apply (not revoked)."""
    return [g for g in grants if g.active]


def relevant_grants(grants: Iterable[Grant], tool: str, thread_id: str) -> list[Grant]:
    """Active grants that could apply to ``tool`` in ``thread_id`` (whatever the origin)."""
    return [
        g
        for g in grants
        if g.active
        and (g.scope != "thread" or g.thread_id == thread_id)
        and glob_matches(g.tool, tool)
    ]


def grants_digest(relevant: Sequence[Grant]) -> str:
    """A digest of the grants that bear on a call: any addition, revocation or change
    among them changes it."""
    lines = sorted(
        f"{g.id}\x1f{g.decision}\x1f{g.kind}\x1f{g.scope}\x1f{g.tool}\x1f{g.origin}\x1f{g.thread_id}"
        for g in relevant
    )
    return "sha256:" + hashlib.sha256("\x1e".join(lines).encode()).hexdigest()


def matching_grant(relevant: Sequence[Grant], origin: str | None) -> Grant | None:
    """The tool grant deciding a call at ``origin``: a deny grant wins over an allow."""
    found = [g for g in relevant if g.kind == "tool" and glob_matches(g.origin, origin)]
    denies = [g for g in found if g.decision == "deny"]
    chosen = denies or found
    return chosen[0] if chosen else None


def l2_attached(relevant: Sequence[Grant], origin: str | None) -> Grant | None:
    """The grant saying the user already let an L2 tool attach to ``origin`` here."""
    if origin is None:
        return None
    for g in relevant:
        if g.kind == "l2_attach" and g.decision == "allow" and glob_matches(g.origin, origin):
            return g
    return None


def grants_from_approval(
    *,
    request_id: str,
    thread_id: str,
    tool: str,
    level: Level,
    target: Target | None,
    decision: GrantDecision,
    scope: ApprovalScope,
    decided_at: datetime,
    tool_call_id: str | None = None,
    new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
) -> list[Grant]:
    """The grants an approval decision creates (the engine persists them with it).

    ``thread`` scope: ``tool`` in this thread; ``origin`` scope: ``tool`` on the target's
    origin. An allowed L2 call also records that the user let L2 attach to the origin in
    this thread (L2 asks once per origin), whatever the scope. ``once`` creates no tool
    grant.

    Raises:
        InvalidParams: ``origin`` scope for a call without an origin.
    """
    origin = target.origin if target is not None else None
    if scope == "origin" and origin is None:
        raise InvalidParams(
            "this call has no origin, so it cannot be approved for an origin",
            [{"path": "$.scope", "message": "use 'once' or 'thread' for this call"}],
        )
    provenance = GrantProvenance(
        approval_request_id=request_id,
        decided_at=decided_at,
        scope=scope,
        tool=tool,
        thread_id=thread_id,
        origin=origin,
        tool_call_id=tool_call_id,
    )

    def grant(scope: GrantScope, tool: str, **where: Any) -> Grant:
        return Grant(
            id=new_id(),
            scope=scope,
            tool=tool,
            decision=decision,
            created_at=decided_at,
            provenance=provenance,
            **where,
        )

    grants: list[Grant] = []
    if scope == "thread":
        grants.append(grant("thread", tool, thread_id=thread_id))
    elif scope == "origin":
        grants.append(grant("origin", tool, origin=origin))
    if decision == "allow" and level == "L2" and origin is not None:
        grants.append(grant("thread", "*", kind="l2_attach", origin=origin, thread_id=thread_id))
    return grants


def list_grants(
    grants: Iterable[Grant], *, include_revoked: bool = False, thread_id: str | None = None
) -> list[Grant]:
    """What ``permissions.list`` shows: active grants (or all), oldest first.

    With ``thread_id``: the grants that can apply in that thread.
    """
    chosen = [
        g
        for g in grants
        if (include_revoked or g.active)
        and (thread_id is None or g.scope != "thread" or g.thread_id == thread_id)
    ]
    return sorted(chosen, key=lambda g: (g.created_at, g.id))


def revoke_grant(grants: Iterable[Grant], grant_id: str, at: datetime) -> Grant:
    """The revoked version of grant ``grant_id`` (for ``permissions.revoke``).

    Revoking twice keeps the first revocation time.

    Raises:
        NotFound: no grant has that id.
    """
    for g in grants:
        if g.id == grant_id:
            return g if not g.active else msgspec.structs.replace(g, revoked_at=at)
    raise NotFound(f"no grant {grant_id!r}")


def export_grant_ledger(grants: Iterable[Grant]) -> bytes:
    """Every grant, revoked ones included, as JSON ``{"version": 1, "grants": [...]}``;
    times as everywhere on the wire: UTC, milliseconds, ``Z``."""
    ordered = list_grants(grants, include_revoked=True)
    plain = msgspec.to_builtins(ordered, builtin_types=(datetime,))
    return _encoder.encode({"version": LEDGER_VERSION, "grants": _millisecond_times(plain)})


def _millisecond_times(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso_milliseconds(value)
    if isinstance(value, dict):
        return {key: _millisecond_times(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_millisecond_times(item) for item in value]
    return value


def iso_milliseconds(moment: datetime) -> str:
    """``2025-01-31T12:34:56.789Z``: rounded to the millisecond (times are stored in
    milliseconds; a float on the way may leave 122999 µs for 123 ms)."""
    utc = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    rounded = utc.replace(microsecond=0) + timedelta(milliseconds=round(utc.microsecond / 1000))
    return rounded.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class GrantLedger:
    """Grants held in memory (tests, the engine's cache); the store persists the same
    structs in SQLite."""

    def __init__(self, grants: Iterable[Grant] = ()) -> None:
        self._grants: dict[str, Grant] = {}
        self._active: tuple[Grant, ...] = ()
        for grant in grants:
            self.add(grant)

    def add(self, grant: Grant) -> None:
        """Raises ``Conflict`` when a grant with that id exists."""
        if grant.id in self._grants:
            raise Conflict(f"grant {grant.id!r} exists")
        self._grants[grant.id] = grant
        self._refresh()

    def revoke(self, grant_id: str, at: datetime) -> Grant:
        """Revoke a grant; it stops applying at once. Raises ``NotFound``."""
        revoked = revoke_grant(self._grants.values(), grant_id, at)
        self._grants[grant_id] = revoked
        self._refresh()
        return revoked

    def active(self) -> tuple[Grant, ...]:
        """The grants that apply now (what the Gatekeeper takes)."""
        return self._active

    def list(self, *, include_revoked: bool = False, thread_id: str | None = None) -> list[Grant]:
        return list_grants(
            self._grants.values(), include_revoked=include_revoked, thread_id=thread_id
        )

    def export(self) -> bytes:
        return export_grant_ledger(self._grants.values())

    def _refresh(self) -> None:
        self._active = tuple(active_grants(self._grants.values()))
