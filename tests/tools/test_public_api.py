"""The public surfaces of tools and gatekeeper are their ``__all__`` (pinned here)."""

from __future__ import annotations

import ast
import inspect
from types import ModuleType

import pytest

import panelot_host.gatekeeper as gatekeeper
import panelot_host.tools as tools
import panelot_host.tools.mcp as mcp

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
    "ask_user_tool",
    "browser_tools",
    "builtin_tools",
    "denial_result",
    "descriptor_digest",
    "error_result",
    "new_run_catalog",
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


def _type_checking_imports(package: ModuleType) -> dict[str, str]:
    """name -> module of the ``if TYPE_CHECKING:`` imports in the package's ``__init__``."""
    tree = ast.parse(inspect.getsource(package))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    return {
        alias.name: node.module or ""
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


@pytest.mark.parametrize("package", [tools, gatekeeper, mcp], ids=lambda p: p.__name__)
def test_lazy_exports_agree_with_all_and_the_type_checking_imports(package: ModuleType) -> None:
    # three lists of the same names: __all__, the lazy table, the imports type checkers read
    where = package._WHERE
    assert set(where) == set(package.__all__)
    assert _type_checking_imports(package) == where
    for name in package.__all__:
        assert getattr(package, name) is getattr(__import__(where[name], fromlist=[name]), name)
    with pytest.raises(AttributeError, match=f"module '{package.__name__}' has no attribute"):
        package.no_such_name  # noqa: B018
