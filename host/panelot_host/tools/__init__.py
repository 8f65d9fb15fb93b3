"""Tools: ``AgentTool`` descriptors, the ``ToolRegistry`` and run catalogs.

See ``docs/tools.md``. The engine builds a run's catalog with ``new_run_catalog`` (or
``recovered_run_catalog``), binds each model call with ``RunCatalog.bind``, asks the
Gatekeeper, and runs ``BoundCall.execute(context)``.
"""

from panelot_host.tools.browser import BROWSER_TOOL_NAMES, browser_tools
from panelot_host.tools.builtin import ask_user_tool, builtin_tools
from panelot_host.tools.calls import BoundCall
from panelot_host.tools.capabilities import ModelCapabilities, reject_image_history
from panelot_host.tools.catalog import RunCatalog, new_run_catalog, recovered_run_catalog
from panelot_host.tools.context import BrowserBridge, ToolContext
from panelot_host.tools.descriptor import (
    AgentTool,
    Binding,
    BrowserBinding,
    BuiltinBinding,
    Effect,
    Level,
    LevelEscalation,
    McpBinding,
    Provenance,
    RecoveryClass,
    Trust,
)
from panelot_host.tools.provider_schemas import anthropic_tool, openai_tool, tool_spec
from panelot_host.tools.registry import (
    Generation,
    RegisteredTool,
    ToolRegistry,
    descriptor_digest,
)
from panelot_host.tools.result import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ToolResult,
    denial_result,
    error_result,
)
from panelot_host.tools.target import Target

__all__ = [
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
]
