"""The public surfaces of tools and gatekeeper are their ``__all__`` (pinned here)."""

from __future__ import annotations

import panelot_host.gatekeeper as gatekeeper
import panelot_host.tools as tools

TOOLS_API = {
    "BROWSER_TOOL_NAMES",
    "AgentTool",
    "Binding",
    "BoundCall",
    "BrowserBinding",
    "BrowserBridge",
    "BuiltinBinding",
    "ContentBlock",
    "Effect",
    "Generation",
    "ImageBlock",
    "Level",
    "LevelEscalation",
    "McpBinding",
    "ModelCapabilities",
    "Provenance",
    "RecoveryClass",
    "RegisteredTool",
    "RunCatalog",
    "Target",
    "TextBlock",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "Trust",
    "anthropic_tool",
    "ask_user_tool",
    "browser_tools",
    "builtin_tools",
    "denial_result",
    "descriptor_digest",
    "error_result",
    "new_run_catalog",
    "openai_tool",
    "recovered_run_catalog",
    "reject_image_history",
    "tool_spec",
}
GATEKEEPER_API = {
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
}


def test_public_surfaces_are_pinned() -> None:
    assert set(tools.__all__) == TOOLS_API
    assert set(gatekeeper.__all__) == GATEKEEPER_API
    for module in (tools, gatekeeper):
        for name in module.__all__:
            assert getattr(module, name) is not None
    assert gatekeeper.Target is tools.Target
