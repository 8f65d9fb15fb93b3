"""Built-in L0 tools that run inside the host: ``ask_user``."""

from __future__ import annotations

from typing import Any

from panelot_host.tools.context import ToolContext
from panelot_host.tools.descriptor import AgentTool, BuiltinBinding
from panelot_host.tools.result import ToolResult, error_result

ASK_USER_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "question": {
            "type": "string",
            "minLength": 1,
            "description": "What to ask the user, in one or two sentences.",
        },
        "options": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 2,
            "uniqueItems": True,
            "description": "Answers the user picks from; omit for a free-text answer.",
        },
    },
    "required": ["question"],
    "additionalProperties": False,
}


def answer_schema(options: list[str] | None) -> dict[str, Any]:
    """The interaction schema for an ``ask_user`` call: one ``answer`` string."""
    answer: dict[str, Any] = {"type": "string", "minLength": 1}
    if options:
        answer["enum"] = list(options)
    return {
        "type": "object",
        "properties": {"answer": answer},
        "required": ["answer"],
        "additionalProperties": False,
    }


async def ask_user(args: dict[str, Any], context: ToolContext) -> ToolResult:
    """Hand off to the human (a login, a CAPTCHA, a choice) and return their answer."""
    options: list[str] | None = args.get("options")
    values = await context.ask_user(args["question"], answer_schema(options))
    answer = values.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        return error_result("The user gave no answer.", details={"values": values})
    return ToolResult(content=f"The user answered: {answer}", details={"values": values})


def ask_user_tool() -> AgentTool:
    """The ``ask_user`` descriptor (L0, effects read, recovery remote)."""
    return AgentTool(
        name="ask_user",
        label="Ask the user",
        description=(
            "Ask the user a question and wait for the answer. Use it to hand off to the "
            "human: a login, a CAPTCHA, a payment, or a choice only the user can make. "
            "Give `options` when the answer is one of a few choices."
        ),
        parameters=ASK_USER_PARAMETERS,
        level="L0",
        effects=frozenset({"read"}),
        recovery="remote",
        binding=BuiltinBinding("panelot_host.tools.builtin:ask_user"),
        execute=ask_user,
    )


def builtin_tools() -> list[AgentTool]:
    """Every built-in tool descriptor."""
    return [ask_user_tool()]
