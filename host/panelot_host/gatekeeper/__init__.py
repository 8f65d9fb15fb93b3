"""The Gatekeeper: policy rules, grants, target resolution, revalidation before dispatch.

See ``docs/tools.md``. Pure: it takes the current rules and grants as inputs; the engine
persists approval requests and the store persists grants (these structs).

Module map: ``gatekeeper`` (target resolution, the decision, revalidation),
``destination`` (a navigation's target is where it goes), ``carried`` (page text a URL
would carry away: asked, never granted), ``provenance`` (content read from one origin
delivered into another: asked, never granted), ``policy``
(rules by specificity), ``grants`` (matching, approvals turned into grants, the ledger),
``defaults`` (what applies when nothing decides), ``denials`` (denials as tool results),
``models`` (the data: rules, grants, decisions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from panelot_host.tools.lazy import lazy_getattr

# Submodules load on first use (PEP 562): importing a light module of this package
# does not pay for jsonschema and the whole registry at host start.
_WHERE: dict[str, str] = {
    "Action": "panelot_host.gatekeeper.models",
    "ApprovalScope": "panelot_host.gatekeeper.models",
    "Decision": "panelot_host.gatekeeper.models",
    "DecisionBasis": "panelot_host.gatekeeper.models",
    "DecisionSource": "panelot_host.gatekeeper.models",
    "Gatekeeper": "panelot_host.gatekeeper.gatekeeper",
    "Grant": "panelot_host.gatekeeper.models",
    "GrantDecision": "panelot_host.gatekeeper.models",
    "GrantKind": "panelot_host.gatekeeper.models",
    "GrantLedger": "panelot_host.gatekeeper.grants",
    "GrantProvenance": "panelot_host.gatekeeper.models",
    "GrantScope": "panelot_host.gatekeeper.models",
    "Policy": "panelot_host.gatekeeper.policy",
    "PolicyRule": "panelot_host.gatekeeper.models",
    "Target": "panelot_host.gatekeeper.models",
    "active_grants": "panelot_host.gatekeeper.grants",
    "decision_denial": "panelot_host.gatekeeper.denials",
    "default_decision": "panelot_host.gatekeeper.defaults",
    "export_grant_ledger": "panelot_host.gatekeeper.grants",
    "grants_from_approval": "panelot_host.gatekeeper.grants",
    "list_grants": "panelot_host.gatekeeper.grants",
    "resolve_target": "panelot_host.gatekeeper.gatekeeper",
    "revoke_grant": "panelot_host.gatekeeper.grants",
    "user_denial": "panelot_host.gatekeeper.denials",
}

if TYPE_CHECKING:
    from panelot_host.gatekeeper.defaults import default_decision
    from panelot_host.gatekeeper.denials import decision_denial, user_denial
    from panelot_host.gatekeeper.gatekeeper import Gatekeeper, resolve_target
    from panelot_host.gatekeeper.grants import (
        GrantLedger,
        active_grants,
        export_grant_ledger,
        grants_from_approval,
        list_grants,
        revoke_grant,
    )
    from panelot_host.gatekeeper.models import (
        Action,
        ApprovalScope,
        Decision,
        DecisionBasis,
        DecisionSource,
        Grant,
        GrantDecision,
        GrantKind,
        GrantProvenance,
        GrantScope,
        PolicyRule,
        Target,
    )
    from panelot_host.gatekeeper.policy import Policy

__all__ = [
    "Action",
    "ApprovalScope",
    "Decision",
    "DecisionBasis",
    "DecisionSource",
    "Gatekeeper",
    "Grant",
    "GrantDecision",
    "GrantKind",
    "GrantLedger",
    "GrantProvenance",
    "GrantScope",
    "Policy",
    "PolicyRule",
    "Target",
    "active_grants",
    "decision_denial",
    "default_decision",
    "export_grant_ledger",
    "grants_from_approval",
    "list_grants",
    "resolve_target",
    "revoke_grant",
    "user_denial",
]

__getattr__ = lazy_getattr(__name__, _WHERE)
