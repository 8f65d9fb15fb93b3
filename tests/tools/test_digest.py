"""Descriptor digests: stable across processes, sensitive to schema, safety and binding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import msgspec
import pytest

from panelot_host.tools import (
    BROWSER_TOOL_NAMES,
    BrowserBinding,
    LevelEscalation,
    McpBinding,
    ToolRegistry,
    descriptor_digest,
)

from .conftest import echo_tool

_PRINT_DIGESTS = """
import json
from panelot_host.tools import ToolRegistry, browser_tools, builtin_tools, BROWSER_TOOL_NAMES
r = ToolRegistry()
r.update(add=[*builtin_tools(), *browser_tools(BROWSER_TOOL_NAMES)])
print(json.dumps({t.name: t.digest for t in r.current}))
"""


def _digests_in_subprocess(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run(
        [sys.executable, "-c", _PRINT_DIGESTS],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result: dict[str, str] = json.loads(out.stdout)
    return result


@pytest.mark.slow
def test_digests_are_stable_across_processes(registry: ToolRegistry) -> None:
    here = {t.name: t.digest for t in registry.current}
    # different hash seeds reorder sets (effects) and dicts built from them
    assert _digests_in_subprocess("1") == here
    assert _digests_in_subprocess("2") == here
    assert len(here) == 1 + len(BROWSER_TOOL_NAMES)
    assert len(set(here.values())) == len(here)


def _digest_with(**changes: Any) -> str:
    return ToolRegistry().register(echo_tool(**changes)).digest


BASE_SCHEMA = echo_tool().parameters


@pytest.mark.parametrize(
    "changes",
    [
        {"parameters": {**BASE_SCHEMA, "required": ["text", "times"]}},
        {"parameters": {**BASE_SCHEMA, "properties": {"text": {"type": "integer"}}}},
        {"provider_schema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"description": "Echo the text back, loudly."},
        {"level": "L1"},
        {"escalations": (LevelEscalation("times", 2, "L1"),)},
        {"effects": frozenset({"read", "network"})},
        {"effects": frozenset({"write"})},
        {"recovery": "read"},
        {"recovery": "write"},
        {"produces_images": True},
        {"binding": msgspec.structs.replace(echo_tool().binding, function="tests.tools:other")},
        {"binding": McpBinding(server="s", endpoint="https://mcp.example/a", remote_name="echo")},
        {"name": "echo2"},
    ],
    ids=lambda c: ",".join(c),
)
def test_digest_changes_when_schema_safety_or_binding_changes(changes: dict[str, Any]) -> None:
    assert _digest_with(**changes) != _digest_with()


@pytest.mark.parametrize(
    "field, first, second",
    [
        ("endpoint", "https://mcp.example/a", "https://mcp.example/b"),
        ("auth_identity", "cred:github#ab12", "cred:github#cd34"),
        ("server", "github", "gitlab"),
    ],
)
def test_mcp_binding_identity_is_covered(field: str, first: str, second: str) -> None:
    def binding(value: str) -> McpBinding:
        base = {"server": "github", "endpoint": "https://mcp.example/a", "remote_name": "echo"}
        return McpBinding(**{**base, field: value})

    assert _digest_with(binding=binding(first)) != _digest_with(binding=binding(second))


def test_digest_ignores_the_ui_label_and_is_deterministic() -> None:
    assert _digest_with(label="Say it again") == _digest_with()
    assert _digest_with() == _digest_with()


def test_digest_function_matches_registered_digest() -> None:
    registered = ToolRegistry().register(echo_tool())
    assert descriptor_digest(registered.descriptor) == registered.digest
    assert registered.digest.startswith("sha256:") and len(registered.digest) == 71


def test_browser_binding_change_changes_digest() -> None:
    a = _digest_with(level="L1", binding=BrowserBinding("echo"))
    b = _digest_with(level="L1", binding=BrowserBinding("echo", protocol_version=2))
    assert a != b
