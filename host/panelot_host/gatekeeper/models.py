"""The Gatekeeper's data: policy rules, grants, decisions (msgspec Structs)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from panelot_host import vocabulary
from panelot_host.tools.descriptor import Effect, Level
from panelot_host.tools.target import Target

Action = Literal["allow", "ask", "deny"]
GrantDecision = vocabulary.Decision
GrantScope = vocabulary.GrantScope
ApprovalScope = vocabulary.ApprovalScope
GrantKind = Literal["tool", "l2_attach"]
DecisionSource = Literal["policy", "grant", "default", "approval", "revalidation"]

__all__ = [
    "Action",
    "ApprovalScope",
    "Decision",
    "DecisionBasis",
    "DecisionSource",
    "Grant",
    "GrantDecision",
    "GrantKind",
    "GrantProvenance",
    "GrantScope",
    "PolicyRule",
    "Target",
]


class PolicyRule(
    msgspec.Struct, frozen=True, kw_only=True, rename="camel", forbid_unknown_fields=True
):
    """A rule from settings. Each condition that is set must hold for the rule to match.

    ``tool`` is a tool name or a glob (``browser_*``); ``origin`` an origin or a glob
    (``https://*.bank.example``), never matching a call without an origin; ``effect`` an
    effect class the tool has. Most specific first: tool+origin > tool > effect class
    (then origin, then effect, break ties); ``deny`` wins among equally specific matches.
    """

    decision: Action
    tool: str | None = None
    origin: str | None = None
    effect: Effect | None = None
    id: str | None = None  # shown in reasons; optional

    @property
    def specificity(self) -> tuple[int, int, int]:
        return (self.tool is not None, self.origin is not None, self.effect is not None)


class GrantProvenance(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """Where a grant came from: which approval request, when, which scope, tool, origin."""

    approval_request_id: str
    decided_at: datetime
    scope: ApprovalScope
    tool: str
    thread_id: str
    origin: str | None = None
    tool_call_id: str | None = None


class Grant(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """A standing decision of the user.

    ``scope`` ``thread``: in ``thread_id`` (any origin unless ``origin`` is set);
    ``origin``: on ``origin`` in every thread; ``global``: everywhere (``origin`` optional).
    ``tool`` is a name or a glob. ``kind`` ``l2_attach`` only records that the user let an
    L2 tool attach to ``origin`` in the thread (L2 asks once per origin); it allows
    nothing else. A grant with ``revoked_at`` set no longer applies.

    Raises:
        ValueError: a ``thread`` grant without ``thread_id`` or an ``origin`` grant
            without ``origin``.
    """

    id: str
    scope: GrantScope
    tool: str
    decision: GrantDecision
    created_at: datetime
    origin: str | None = None
    thread_id: str | None = None
    kind: GrantKind = "tool"
    provenance: GrantProvenance | None = None
    revoked_at: datetime | None = None

    def __post_init__(self) -> None:
        if self.scope == "thread" and not self.thread_id:
            raise ValueError("a thread-scoped grant needs thread_id")
        if self.scope == "origin" and not self.origin:
            raise ValueError("an origin-scoped grant needs origin")

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class DecisionBasis(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """What a decision rested on; revalidation compares it right before dispatch."""

    origin: str | None
    tab_id: int | None
    level: Level
    policy_digest: str
    grants_digest: str
    rule: PolicyRule | None = None
    grant_id: str | None = None
    default: str | None = None  # which default applied: read_only, effects, l2_origin
    carried: tuple[str, ...] = ()  # page text the URL carries away (asked, never granted)
    read_from: tuple[str, ...] = ()  # other origins the turn read (asked, never granted)
    foreign_tab: str | None = None  # whose tab it is, when the thread does not own it


class Decision(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """``allow``, ``ask`` or ``deny``, with a reason for humans and its basis."""

    action: Action
    reason: str
    source: DecisionSource
    basis: DecisionBasis
