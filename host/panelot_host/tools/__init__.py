"""Tools: ``AgentTool`` descriptors, the ``ToolRegistry`` and run catalogs.

See ``docs/tools.md``. The engine builds a run's catalog with ``new_run_catalog`` (or
``recovered_run_catalog``), binds each model call with ``RunCatalog.bind``, asks the
Gatekeeper, and runs ``BoundCall.execute(context)``.

Module map: ``descriptor`` (``AgentTool`` and its safety vocabulary), ``registry`` and
``checks`` (registration, digests, generations), ``frozen`` (deep-freezing, canonical
JSON), ``catalog`` and ``capabilities`` (a run's catalog by model and client),
``provider_schemas`` (the provider-facing form), ``calls`` and ``validation`` (one bound
call, argument validation), ``result`` (``ToolResult``), ``context`` and ``target`` (what
a tool sees; its browser tab), ``builtin`` (``ask_user``), ``browser`` and
``browser_result`` (browser tools through the shim), ``browser_contract`` (their contract
for the extension, ``schema/browser-tools.json``), ``downloads`` and ``file_text``
(``browser_downloads``: the Turn's downloads, read in the host), ``lazy`` (the lazy exports below),
``mcp`` (MCP servers' tools), ``outline`` (``browser_snapshot``'s outline read back: an
element's semantic target, and that target resolved on another snapshot; workflows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from panelot_host.tools.lazy import lazy_getattr

# Submodules load on first use (PEP 562): importing a light module of this package
# does not pay for jsonschema and the whole registry at host start.
_WHERE: dict[str, str] = {
    "AgentTool": "panelot_host.tools.descriptor",
    "BROWSER_TOOL_NAMES": "panelot_host.tools.browser",
    "Binding": "panelot_host.tools.descriptor",
    "BoundCall": "panelot_host.tools.calls",
    "BrowserBinding": "panelot_host.tools.descriptor",
    "BrowserBridge": "panelot_host.tools.context",
    "BuiltinBinding": "panelot_host.tools.descriptor",
    "ContentBlock": "panelot_host.tools.result",
    "Effect": "panelot_host.tools.descriptor",
    "Generation": "panelot_host.tools.registry",
    "ImageBlock": "panelot_host.tools.result",
    "Level": "panelot_host.tools.descriptor",
    "LevelEscalation": "panelot_host.tools.descriptor",
    "McpBinding": "panelot_host.tools.descriptor",
    "ModelCapabilities": "panelot_host.tools.capabilities",
    "Provenance": "panelot_host.tools.descriptor",
    "RecoveryClass": "panelot_host.tools.descriptor",
    "RegisteredTool": "panelot_host.tools.registry",
    "RunCatalog": "panelot_host.tools.catalog",
    "Target": "panelot_host.tools.target",
    "TextBlock": "panelot_host.tools.result",
    "ToolContext": "panelot_host.tools.context",
    "ToolRegistry": "panelot_host.tools.registry",
    "ToolResult": "panelot_host.tools.result",
    "Trust": "panelot_host.tools.descriptor",
    "ask_user_tool": "panelot_host.tools.builtin",
    "browser_tools": "panelot_host.tools.browser",
    "builtin_tools": "panelot_host.tools.builtin",
    "denial_result": "panelot_host.tools.result",
    "descriptor_digest": "panelot_host.tools.registry",
    "error_result": "panelot_host.tools.result",
    "new_run_catalog": "panelot_host.tools.catalog",
    "recovered_run_catalog": "panelot_host.tools.catalog",
    "reject_image_history": "panelot_host.tools.capabilities",
    "tool_spec": "panelot_host.tools.provider_schemas",
}

if TYPE_CHECKING:
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
    from panelot_host.tools.provider_schemas import tool_spec
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
]

__getattr__ = lazy_getattr(__name__, _WHERE)
