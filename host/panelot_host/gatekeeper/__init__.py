"""The Gatekeeper: policy rules, grants, target resolution, revalidation before dispatch.

See ``docs/tools.md``. Pure: it takes the current rules and grants as inputs; the engine
persists approval requests and the store persists grants (these structs).
"""

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
