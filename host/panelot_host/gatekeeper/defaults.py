"""The defaults of the design page, applied when no rule and no grant decides."""

from __future__ import annotations

import msgspec

from panelot_host.gatekeeper.models import Action
from panelot_host.tools.descriptor import Effect, Level

_WHAT: dict[Effect, str] = {
    "write": "change the page or your data",
    "navigate": "navigate the browser",
    "network": "send network requests",
    "external": "act outside the browser",
}


class DefaultDecision(msgspec.Struct, frozen=True):
    action: Action
    reason: str
    name: str  # read_only, effects, l2_origin


def default_decision(
    level: Level, effects: frozenset[Effect], origin: str | None, l2_attached: bool
) -> DefaultDecision:
    """Only ``read`` at L0/L1: allow. Anything that writes, navigates, types, submits,
    downloads or reaches outside: ask. L2: ask once per origin (``l2_attached`` says the
    user already let L2 attach to this origin in this thread).
    """
    acting = sorted(effects - {"read"})
    if acting:
        what = ", ".join(_WHAT[e] for e in acting)
        return DefaultDecision("ask", f"it can {what}", "effects")
    if level == "L2" and not l2_attached:
        where = origin or "a page without an origin"
        return DefaultDecision(
            "ask", f"it attaches the debugger to {where} (asked once per origin)", "l2_origin"
        )
    return DefaultDecision("allow", "it only reads", "read_only")
