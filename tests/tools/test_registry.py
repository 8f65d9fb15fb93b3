"""ToolRegistry.register is the capability-metadata boundary; generations are atomic."""

from __future__ import annotations

from typing import Any

import pytest

from panelot_host.errors import DriftError, InvalidToolDescriptor, NotFound
from panelot_host.providers import anthropic_request, openai_request
from panelot_host.providers.types import ModelRequest, TextPart, ToolSpec, UserMessage
from panelot_host.tools import (
    AgentTool,
    BoundCall,
    BrowserBinding,
    LevelEscalation,
    McpBinding,
    ModelCapabilities,
    ToolRegistry,
    new_run_catalog,
    tool_spec,
)

from .conftest import Context, calls_of, echo_tool


def anthropic_tool(spec: ToolSpec) -> dict[str, Any]:
    """The tool as the Anthropic adapter sends it (its cache mark aside)."""
    request = ModelRequest("m", "", [UserMessage([TextPart("hi")])], tools=[spec])
    sent: dict[str, Any] = anthropic_request.build_body(request)["tools"][0]
    return {k: v for k, v in sent.items() if k != "cache_control"}


def openai_tool(spec: ToolSpec) -> dict[str, Any]:
    """The tool as the OpenAI adapter sends it."""
    request = ModelRequest("m", "", [UserMessage([TextPart("hi")])], tools=[spec])
    sent: dict[str, Any] = openai_request.build_body(request, openai_request.OpenAIOptions())
    return sent["tools"][0]  # type: ignore[no-any-return]


CAPS = ModelCapabilities(tool_use=True, vision=True)


def test_mutating_a_registered_schema_raises() -> None:
    registered = ToolRegistry().register(echo_tool())
    schema: Any = registered.descriptor.parameters
    with pytest.raises(TypeError):
        schema["type"] = "array"
    with pytest.raises(TypeError):
        schema["properties"]["text"]["type"] = "integer"
    with pytest.raises(AttributeError):
        schema["required"].append("times")
    with pytest.raises(TypeError):
        del schema["properties"]


def test_registration_copies_the_authors_schema() -> None:
    tool = echo_tool()
    registered = ToolRegistry().register(tool)
    tool.parameters["properties"]["text"]["type"] = "integer"
    assert registered.descriptor.parameters["properties"]["text"]["type"] == "string"
    assert registered.validator.is_valid({"text": "still a string"})


def test_exported_schemas_are_fresh_mutable_copies() -> None:
    registered = ToolRegistry().register(echo_tool())
    exported = tool_spec(registered.descriptor).parameters
    exported["properties"]["text"]["type"] = "integer"
    exported["required"].append("times")
    again = tool_spec(registered.descriptor).parameters
    assert again["properties"]["text"] == {"type": "string"}
    assert again["required"] == ["text"]


def test_provider_shapes_and_tool_spec_come_from_one_descriptor() -> None:
    registered = ToolRegistry().register(echo_tool())
    spec = tool_spec(registered.descriptor)
    anthropic = anthropic_tool(spec)
    openai = openai_tool(spec)
    assert anthropic == {
        "name": "echo",
        "description": "Echo the text back.",
        "input_schema": spec.parameters,
    }
    assert openai == {
        "type": "function",
        "function": {
            "name": "echo",
            "description": spec.description,
            "parameters": spec.parameters,
        },
    }


def test_provider_schema_replaces_parameters_for_providers_only(registry: ToolRegistry) -> None:
    scroll = registry.current.tools["browser_scroll"]
    assert "anyOf" in scroll.descriptor.parameters  # enforced at runtime
    assert "anyOf" not in anthropic_tool(tool_spec(scroll.descriptor))["input_schema"]
    assert not scroll.validator.is_valid({"tabId": 1})


@pytest.mark.parametrize(
    "name",
    ["", "has space", "dotted.name", "slash/name", "é", "x" * 65, "semi;colon"],
)
def test_provider_invalid_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidToolDescriptor, match="not valid for Anthropic"):
        ToolRegistry().register(echo_tool(name=name))


def test_names_up_to_64_letters_digits_dash_underscore_are_accepted() -> None:
    name = "a-" + "b_9" * 20 + "x" * 2
    assert len(name) == 64
    assert ToolRegistry().register(echo_tool(name=name)).name == name


def test_duplicate_names_are_refused_and_nothing_changes() -> None:
    registry = ToolRegistry()
    registry.register(echo_tool())
    before = registry.current
    with pytest.raises(InvalidToolDescriptor, match="already registered"):
        registry.register(echo_tool())
    with pytest.raises(InvalidToolDescriptor, match="already registered"):
        registry.update(add=[echo_tool("other"), echo_tool("other")])
    assert registry.current is before


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"parameters": {"type": "object", "properties": {"x": {"type": "strnig"}}}},
            "not a valid JSON Schema",
        ),
        ({"parameters": {"type": "object", "required": "x"}}, "not a valid JSON Schema"),
        ({"parameters": {"type": "array"}}, '"type": "object"'),
        ({"parameters": {"type": "object", "anyOf": [{"required": ["a"]}]}}, "anyOf"),
        ({"provider_schema": {"type": "string"}}, '"type": "object"'),
        ({"parameters": {"type": "object", "default": object()}}, "not a JSON value"),
        ({"effects": frozenset()}, "effects must not be empty"),
        ({"effects": frozenset({"read", "teleport"})}, "unknown effects"),
        ({"level": "L3"}, "unknown level"),
        ({"recovery": "maybe"}, "unknown recovery class"),
        ({"label": "  "}, "label"),
        ({"description": ""}, "description"),
        ({"escalations": (LevelEscalation("nope", True, "L2"),)}, "not a parameter"),
        ({"binding": McpBinding(server="s", endpoint=" ", remote_name="t")}, "endpoint"),
        ({"binding": BrowserBinding("echo")}, "cannot be L0"),
    ],
)
def test_bad_descriptors_are_refused_with_a_clear_error(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidToolDescriptor, match=message):
        ToolRegistry().register(echo_tool(**changes))


def test_trust_and_provenance_are_normalised_from_the_binding() -> None:
    registry = ToolRegistry()
    mcp = registry.register(
        echo_tool(
            name="mcp_echo",
            trust="trusted",  # an MCP server cannot declare its output trustworthy
            binding=McpBinding(server="gh", endpoint="npx gh-mcp", remote_name="echo"),
        )
    )
    builtin = registry.register(echo_tool())
    fetcher = registry.register(echo_tool(name="fetch", trust="untrusted"))
    assert fetcher.descriptor.trust == "untrusted"  # a builtin may declare untrusted output
    assert mcp.descriptor.trust == "untrusted"
    assert mcp.descriptor.provenance is not None
    provenance = mcp.descriptor.provenance
    assert (provenance.source, provenance.declared_by) == ("mcp", "gh")
    assert builtin.descriptor.trust == "trusted"
    assert builtin.descriptor.provenance is not None
    assert builtin.descriptor.provenance.declared_by == "tests.tools"


@pytest.mark.anyio
async def test_a_generation_swap_during_a_run_does_not_change_what_it_executes() -> None:
    registry = ToolRegistry()
    v1 = echo_tool(reply="v1", binding=_mcp("npx server@1"))
    registry.register(v1)
    catalog = new_run_catalog(registry.current, CAPS, browser_tools=())
    call = catalog.bind("echo", {"text": "hi"})
    bound_digest = catalog.tools["echo"].digest

    v2 = echo_tool(reply="v2", binding=_mcp("npx server@2"))
    registry.replace_mcp_server("srv", [v2])  # the server reconnected and re-listed

    late = catalog.bind("echo", {"text": "later"})
    for bound in (call, late):
        assert isinstance(bound, BoundCall)
        result = await bound.execute(Context())
        assert result.content in ("v1: hi", "v1: later")
    assert len(calls_of(v1)) == 2 and calls_of(v2) == []
    assert registry.freshness("echo", bound_digest) == "replaced"
    assert registry.current.id > catalog.generation_id
    with pytest.raises(DriftError):
        registry.current.require("echo", bound_digest)


def test_freshness_reports_current_and_removed() -> None:
    registry = ToolRegistry()
    digest = registry.register(echo_tool()).digest
    assert registry.freshness("echo", digest) == "current"
    registry.update(remove=["echo"])
    assert registry.freshness("echo", digest) == "removed"
    with pytest.raises(NotFound):
        registry.update(remove=["echo"])


def test_a_failed_mcp_replacement_publishes_nothing() -> None:
    registry = ToolRegistry()
    registry.register(echo_tool(binding=_mcp("npx server@1")))
    before = registry.current
    with pytest.raises(InvalidToolDescriptor):
        registry.replace_mcp_server("srv", [echo_tool(name="bad name", binding=_mcp("x"))])
    with pytest.raises(InvalidToolDescriptor, match="not bound to"):
        registry.replace_mcp_server("srv", [echo_tool(name="builtin_one")])
    assert registry.current is before
    assert "echo" in registry.current.tools


def test_generations_are_immutable_snapshots() -> None:
    registry = ToolRegistry()
    registry.register(echo_tool())
    first = registry.current
    registry.register(echo_tool("second"))
    assert list(first.tools) == ["echo"]
    assert sorted(registry.current.tools) == ["echo", "second"]
    with pytest.raises(TypeError):
        first.tools["x"] = first.tools["echo"]  # type: ignore[index]


def test_validators_are_compiled_once_per_descriptor() -> None:
    registry = ToolRegistry()
    first = registry.register(echo_tool(binding=_mcp("npx server@1")))
    registry.replace_mcp_server("srv", [echo_tool(binding=_mcp("npx server@1"))])
    again = registry.current.tools["echo"]
    assert again.digest == first.digest
    assert again.validator is first.validator


def _mcp(endpoint: str) -> McpBinding:
    return McpBinding(server="srv", endpoint=endpoint, remote_name="echo", auth_identity=None)


def test_agent_tool_is_frozen() -> None:
    tool: AgentTool = echo_tool()
    with pytest.raises(AttributeError):
        tool.name = "other"  # type: ignore[misc]
