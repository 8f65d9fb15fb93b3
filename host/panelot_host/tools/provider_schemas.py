"""Provider-facing tool shapes, all derived from one registered descriptor."""

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


def anthropic_tool(tool: AgentTool) -> dict[str, Any]:
    """Anthropic Messages ``tools[]`` entry: ``{name, description, input_schema}``."""
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": provider_parameters(tool),
    }


def openai_tool(tool: AgentTool) -> dict[str, Any]:
    """OpenAI Chat Completions ``tools[]`` entry: ``{type: "function", function: {...}}``."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": provider_parameters(tool),
        },
    }
