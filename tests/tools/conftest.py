"""Fixtures for tool tests: a real ToolContext, descriptors and a registry."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from panelot_host.tools import (
    BROWSER_TOOL_NAMES,
    AgentTool,
    BrowserBridge,
    BuiltinBinding,
    Target,
    ToolRegistry,
    ToolResult,
    browser_tools,
    builtin_tools,
)

Answer = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Context:
    """A ToolContext as the engine gives it: records progress and questions."""

    call_id: str = "call-1"
    thread_id: str = "thread-1"
    turn_id: str = "turn-1"
    turn_started_ms: int = 1_780_000_000_000
    capture_frames: bool = True  # the setting's default
    target: Target | None = None
    browser: BrowserBridge | None = None
    answer: Answer | None = None
    progress: list[str] = field(default_factory=list)
    questions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def report_progress(self, progress: str) -> None:
        self.progress.append(progress)

    async def ask_user(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        self.questions.append((prompt, schema))
        assert self.answer is not None, "this test did not expect a question"
        return await self.answer(prompt, schema)


def echo_tool(name: str = "echo", reply: str = "ok", **changes: Any) -> AgentTool:
    """A builtin L0 tool that answers ``reply`` and records its calls in ``calls``."""

    async def execute(args: dict[str, Any], context: Any) -> ToolResult:
        calls.append(args)
        return ToolResult(content=f"{reply}: {args.get('text', '')}")

    calls: list[dict[str, Any]] = []
    fields: dict[str, Any] = {
        "name": name,
        "label": "Echo",
        "description": "Echo the text back.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
            "required": ["text"],
            "additionalProperties": False,
        },
        "level": "L0",
        "effects": frozenset({"read"}),
        "recovery": "idempotent",
        "binding": BuiltinBinding("tests.tools:echo"),
        "execute": execute,
    }
    fields.update(changes)
    tool = AgentTool(**fields)
    execute.calls = calls  # type: ignore[attr-defined]
    return tool


def calls_of(tool: AgentTool) -> list[dict[str, Any]]:
    return tool.execute.calls  # type: ignore[attr-defined,no-any-return]


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.update(add=[*builtin_tools(), *browser_tools(BROWSER_TOOL_NAMES)])
    return registry
