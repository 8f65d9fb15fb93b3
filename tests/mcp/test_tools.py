"""Descriptor building: names within provider limits, effects, schemas, identity."""

from __future__ import annotations

import re
from typing import Any

import mcp_types as mt
import pytest

from panelot_host.tools import ToolRegistry, ToolResult
from panelot_host.tools.mcp import McpServerConfig, effects_of, tool_name
from panelot_host.tools.mcp.calls import progress_text
from panelot_host.tools.mcp.config import CredentialRef
from panelot_host.tools.mcp.tools import auth_identity, build_tool, parameters_of

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


async def _never(args: dict[str, Any], context: Any) -> ToolResult:
    raise AssertionError("not called")


def test_a_plain_name_is_namespaced_as_is() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("everything", "get-sum") == "mcp__everything__get-sum"


@pytest.mark.parametrize(
    ("server", "remote"),
    [("my server", "do.it"), ("s", "x" * 80), ("ünï", "tool/with:chars"), ("a" * 70, "b")],
)
def test_an_unsafe_or_long_name_is_sanitised_with_a_stable_hash(server: str, remote: str) -> None:
    name = tool_name(server, remote)
    assert VALID.match(name)
    assert name == tool_name(server, remote)  # stable
    assert re.search(r"_[0-9a-f]{8}$", name)


def test_names_that_sanitise_alike_stay_distinct() -> None:
    assert tool_name("s", "a.b") != tool_name("s", "a_b")
    assert tool_name("s", "a.b") != tool_name("s", "a:b")


@pytest.mark.parametrize(
    ("hints", "effects"),
    [
        (None, {"write", "external"}),
        (mt.ToolAnnotations(read_only_hint=True), {"read", "external"}),
        (mt.ToolAnnotations(read_only_hint=True, open_world_hint=False), {"read"}),
        (mt.ToolAnnotations(destructive_hint=False, open_world_hint=False), {"write"}),
        (mt.ToolAnnotations(destructive_hint=True, open_world_hint=True), {"write", "external"}),
    ],
)
def test_effects_follow_the_annotations(
    hints: mt.ToolAnnotations | None, effects: set[str]
) -> None:
    assert effects_of(hints) == effects


def test_schema_keywords_are_stripped_but_property_names_kept() -> None:
    tool = mt.Tool(
        name="t",
        input_schema={
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"$schema": {"type": "string"}, "n": {"type": "number"}},
        },
    )
    parameters, provider = parameters_of(tool)
    assert "$schema" not in parameters and "$schema" in parameters["properties"]
    assert provider is None


def test_a_top_level_combinator_gets_a_provider_schema_and_registers() -> None:
    tool = mt.Tool(
        name="either",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
        },
    )
    descriptor = build_tool("s", McpServerConfig(command="srv"), tool, _never)
    registered = ToolRegistry().register(descriptor)
    assert "oneOf" in registered.descriptor.parameters
    assert registered.descriptor.provider_schema is not None
    assert "oneOf" not in registered.descriptor.provider_schema
    assert not registered.validator.is_valid({})


def test_the_auth_identity_names_references_never_secrets() -> None:
    config = McpServerConfig(
        url="https://x.example/mcp",
        headers={"Authorization": CredentialRef("gh-token"), "X-Key": "s3cret-literal"},
    )
    identity = auth_identity(config)
    assert identity == "Authorization=ref:gh-token; X-Key=literal"
    assert auth_identity(McpServerConfig(command="srv")) is None


def test_progress_text() -> None:
    assert progress_text(1, 3, None) == "1/3"
    assert progress_text(0.5, None, "half") == "half (0.5)"
    assert progress_text(2, 4, "copying") == "copying (2/4)"
