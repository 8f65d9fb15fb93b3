"""Real tools for engine tests: registered through the same registry as the built-ins."""

from __future__ import annotations

from typing import Any

import anyio

from panelot_host.errors import ToolError
from panelot_host.tools.context import ToolContext
from panelot_host.tools.descriptor import AgentTool, BuiltinBinding
from panelot_host.tools.result import ImageBlock, TextBlock, ToolResult

OBJECT = {"type": "object", "properties": {}, "additionalProperties": False}


class ToolLog:
    """What the test tools were asked to do, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.release = anyio.Event()

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


def make_test_tools(log: ToolLog) -> list[AgentTool]:
    async def lookup(args: dict[str, Any], context: ToolContext) -> ToolResult:
        log.calls.append(("lookup", args))
        context.report_progress(f"looking up {args['key']}")
        return ToolResult(content=f"value of {args['key']}")

    async def flaky(args: dict[str, Any], context: ToolContext) -> ToolResult:
        log.calls.append(("flaky", args))
        raise ToolError("the service is down")

    async def write_note(args: dict[str, Any], context: ToolContext) -> ToolResult:
        log.calls.append(("write_note", args))
        return ToolResult(content=f"saved note {args['text']!r}")

    async def slow(args: dict[str, Any], context: ToolContext) -> ToolResult:
        log.calls.append(("slow", args))
        await log.release.wait()
        return ToolResult(content="slow done")

    async def photo(args: dict[str, Any], context: ToolContext) -> ToolResult:
        log.calls.append(("photo", args))
        image = ImageBlock(media_type="image/png", data="iVBORw0KGgo=")
        return ToolResult(content=[TextBlock(text="a photo of a cat"), image])

    key_schema = {
        "type": "object",
        "properties": {"key": {"type": "string"}},
        "required": ["key"],
        "additionalProperties": False,
    }
    text_schema = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    return [
        _tool("lookup", "Look a key up", key_schema, lookup, {"read"}, "read"),
        _tool("flaky", "A tool that always fails", OBJECT, flaky, {"read"}, "read"),
        _tool("write_note", "Save a note", text_schema, write_note, {"write"}, "write"),
        _tool("slow", "Waits until released", OBJECT, slow, {"read"}, "idempotent"),
        _tool("photo", "Returns a picture", OBJECT, photo, {"read"}, "read"),
        _tool(
            "remote_wait",
            "A remote call (like an MCP elicitation)",
            OBJECT,
            slow,
            {"read"},
            "remote",
        ),
    ]


def _tool(
    name: str,
    description: str,
    schema: dict[str, Any],
    execute: Any,
    effects: set[str],
    recovery: str,
) -> AgentTool:
    return AgentTool(
        name=name,
        label=name.replace("_", " "),
        description=description,
        parameters=schema,
        level="L0",
        effects=frozenset(effects),  # type: ignore[arg-type]
        recovery=recovery,  # type: ignore[arg-type]
        binding=BuiltinBinding(f"tests.support.tools:{name}"),
        execute=execute,
    )
