"""The provider-facing form of a tool (``ToolSpec``), derived from its registered descriptor;
the adapters' request builders turn ``ToolSpec``s into each provider's wire shape."""

from __future__ import annotations

from typing import Any

from panelot_host.providers.types import ToolSpec
from panelot_host.tools.descriptor import AgentTool
from panelot_host.tools.frozen import thaw


def provider_parameters(tool: AgentTool) -> dict[str, Any]:
    """A fresh mutable copy of the schema providers see (``provider_schema`` or ``parameters``)."""
    schema = tool.provider_schema if tool.provider_schema is not None else tool.parameters
    result: dict[str, Any] = thaw(schema)
    return result


def tool_spec(tool: AgentTool) -> ToolSpec:
    """The engine's normalised ``ToolSpec`` handed to provider adapters."""
    return ToolSpec(tool.name, tool.description, provider_parameters(tool))
