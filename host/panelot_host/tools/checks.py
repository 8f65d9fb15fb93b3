"""What ``ToolRegistry.register`` checks and normalises before a descriptor is admitted."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from panelot_host.errors import InvalidToolDescriptor
from panelot_host.tools.descriptor import (
    EFFECTS,
    LEVEL_ORDER,
    AgentTool,
    BrowserBinding,
    BuiltinBinding,
    McpBinding,
    Provenance,
)
from panelot_host.tools.frozen import deep_freeze, thaw

# Both providers' documented limits for tool names (Anthropic tools[].name, OpenAI
# tools[].function.name). They coincide today; both are checked so a change shows.
ANTHROPIC_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
OPENAI_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_RECOVERY = frozenset({"idempotent", "read", "write", "remote"})
TOP_LEVEL_COMBINATORS = ("anyOf", "oneOf", "allOf")


def normalise(tool: AgentTool) -> AgentTool:
    """A checked copy with deep-frozen schemas, derived provenance and normalised trust.

    Raises:
        InvalidToolDescriptor: the name is not valid for every provider, the label or
            description is empty, a schema is not a valid Draft 2020-12 object schema,
            providers would reject the schema they get, or the safety metadata or binding
            is incomplete.
    """
    _check_name(tool.name)
    _require(tool.label.strip(), tool.name, "label must not be empty")
    _require(tool.description.strip(), tool.name, "description must not be empty")
    parameters = _object_schema(tool.name, "parameters", tool.parameters)
    provider = None
    if tool.provider_schema is not None:
        provider = _object_schema(tool.name, "provider_schema", tool.provider_schema)
    _check_provider_facing(tool.name, provider if provider is not None else parameters)
    _check_safety(tool, parameters)
    _check_binding(tool)
    return msgspec.structs.replace(
        tool,
        label=tool.label.strip(),
        description=tool.description.strip(),
        parameters=deep_freeze(parameters),
        provider_schema=None if provider is None else deep_freeze(provider),
        effects=frozenset(tool.effects),
        escalations=tuple(tool.escalations),
        trust=tool.trust if isinstance(tool.binding, BuiltinBinding) else "untrusted",
        provenance=tool.provenance or _derived_provenance(tool),
    )


def _check_name(name: str) -> None:
    for provider, pattern in (("Anthropic", ANTHROPIC_TOOL_NAME), ("OpenAI", OPENAI_TOOL_NAME)):
        if not pattern.match(name):
            raise InvalidToolDescriptor(
                f"tool name {name!r} is not valid for {provider}: "
                f"it must match {pattern.pattern} (letters, digits, _ and -, at most 64)"
            )


def _object_schema(name: str, field: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    try:
        plain = thaw(deep_freeze(schema))  # a private copy; rejects non-JSON values
        Draft202012Validator.check_schema(plain)
    except (TypeError, SchemaError) as exc:
        message = exc.message if isinstance(exc, SchemaError) else str(exc)
        raise InvalidToolDescriptor(
            f"tool {name!r}: {field} is not a valid JSON Schema: {message}"
        ) from exc
    if not isinstance(plain, dict) or plain.get("type") != "object":
        raise InvalidToolDescriptor(f'tool {name!r}: {field} must be a schema of "type": "object"')
    plain.setdefault("properties", {})  # OpenAI rejects object schemas without properties
    return plain


def _check_provider_facing(name: str, schema: Mapping[str, Any]) -> None:
    for keyword in TOP_LEVEL_COMBINATORS:
        if keyword in schema:
            raise InvalidToolDescriptor(
                f"tool {name!r}: providers reject {keyword!r} at the top of a tool schema; "
                "give a provider_schema without it (the runtime schema may keep it)"
            )


def _check_safety(tool: AgentTool, parameters: Mapping[str, Any]) -> None:
    _require(tool.level in LEVEL_ORDER, tool.name, f"unknown level {tool.level!r}")
    _require(tool.recovery in _RECOVERY, tool.name, f"unknown recovery class {tool.recovery!r}")
    _require(bool(tool.effects), tool.name, "effects must not be empty")
    unknown = set(tool.effects) - EFFECTS
    _require(not unknown, tool.name, f"unknown effects {sorted(unknown)}")
    for rule in tool.escalations:
        _require(rule.level in LEVEL_ORDER, tool.name, f"unknown level {rule.level!r}")
        _require(
            rule.arg in parameters["properties"],
            tool.name,
            f"level escalation names {rule.arg!r}, which is not a parameter",
        )


def _check_binding(tool: AgentTool) -> None:
    binding = tool.binding
    match binding:
        case BuiltinBinding(function=function):
            _require(function.strip(), tool.name, "a builtin binding needs its function")
        case BrowserBinding(tool=shim_tool):
            _require(shim_tool.strip(), tool.name, "a browser binding needs the shim's tool")
            _require(tool.level != "L0", tool.name, "a browser tool cannot be L0")
        case McpBinding(server=server, endpoint=endpoint, remote_name=remote):
            for value, what in ((server, "server"), (endpoint, "endpoint"), (remote, "tool")):
                _require(value.strip(), tool.name, f"an MCP binding needs its {what}")


def _derived_provenance(tool: AgentTool) -> Provenance:
    match tool.binding:
        case BuiltinBinding(function=function):
            return Provenance("builtin", function.split(":")[0])
        case BrowserBinding():
            return Provenance("browser", "panelot_host.tools.browser")
        case McpBinding(server=server):
            return Provenance("mcp", server)


def _require(condition: object, name: str, problem: str) -> None:
    if not condition:
        raise InvalidToolDescriptor(f"tool {name!r}: {problem}")
