"""``ModelRequest`` -> OpenAI Responses API request body (``POST /v1/responses``).

Nothing is stored at OpenAI (``store: false``): the whole conversation goes in ``input``
each time. User messages are ``input_text``/``input_image`` parts; an assistant message is
its reasoning items, its text (an assistant message) and its tool calls (``function_call``
items) in that order; a tool result is a ``function_call_output`` (text; images a tool
returned follow in a user message).

Reasoning items (``ThinkingPart`` with an ``item_id`` and ``encrypted_content``) are sent
back for the assistant messages after the last user message that began a Turn (steering
added to a running Turn does not end it), i.e. within the turn: the model keeps its
chain of thought across tool steps. Reasoning models are asked for their
encrypted reasoning (``include``) and a reasoning summary, and take no temperature.
Anthropic thinking blocks (no ``item_id``) are not sent.
"""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.providers.openai_request import tool_result_wire
from panelot_host.providers.types import (
    AssistantMessage,
    ImagePart,
    Message,
    ModelRequest,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

WireItem = dict[str, Any]
_json = msgspec.json.Encoder()


class ResponsesOptions(msgspec.Struct, frozen=True):
    tool_use: bool = True
    reasoning: bool = False  # a reasoning model: encrypted reasoning, a summary, no temperature


def build_body(request: ModelRequest, options: ResponsesOptions) -> dict[str, Any]:
    """The JSON body (as a dict) of a streaming response for ``request``."""
    body: dict[str, Any] = {
        "model": request.model,
        "input": encode_input(request.messages, tools=options.tool_use),
        "stream": True,
        "store": False,
        "max_output_tokens": request.max_tokens,
    }
    if request.system:
        body["instructions"] = request.system
    if options.tool_use and request.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in request.tools
        ]
    if options.reasoning or request.reasoning_effort is not None:
        reasoning: dict[str, Any] = {"summary": "auto"}
        if request.reasoning_effort is not None:
            reasoning["effort"] = request.reasoning_effort
        body["reasoning"] = reasoning
        body["include"] = ["reasoning.encrypted_content"]
    elif request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def encode_input(messages: list[Message], *, tools: bool) -> list[WireItem]:
    """The ``input`` items of ``messages``; reasoning only after the user message that
    began the last Turn."""
    last_user = max(
        (i for i, m in enumerate(messages) if isinstance(m, UserMessage) and not m.steering),
        default=-1,
    )
    items: list[WireItem] = []
    for position, message in enumerate(messages):
        match message:
            case UserMessage(content=content):
                items.append({"role": "user", "content": _user_content(content)})
            case AssistantMessage():
                items += _assistant(message, tools=tools, reasoning=position > last_user)
            case ToolResultMessage():
                items += _tool_result(message, tools=tools)
    return items


def _user_content(content: list[UserContent]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for part in content:
        match part:
            case TextPart(text=text):
                parts.append({"type": "input_text", "text": text})
            case ImagePart(media_type=media_type, data=data):
                url = f"data:{media_type};base64,{data}"
                parts.append({"type": "input_image", "image_url": url})
    return parts


def _assistant(message: AssistantMessage, *, tools: bool, reasoning: bool) -> list[WireItem]:
    items: list[WireItem] = []
    text = "".join(p.text for p in message.content if isinstance(p, TextPart))
    calls = [p for p in message.content if isinstance(p, ToolCallPart)]
    if not tools:
        text += "".join(f"\n[called tool {c.name} with {_args(c.args)}]" for c in calls)
        calls = []
    if reasoning and (text or calls):  # the API refuses a reasoning item followed by nothing
        items += [
            _reasoning(p)
            for p in message.content
            if isinstance(p, ThinkingPart) and p.item_id and p.encrypted_content
        ]
    if text:
        items.append({"role": "assistant", "content": text})
    items += [
        {"type": "function_call", "call_id": c.call_id, "name": c.name, "arguments": _args(c.args)}
        for c in calls
    ]
    return items


def _reasoning(part: ThinkingPart) -> WireItem:
    summary = [{"type": "summary_text", "text": part.text}] if part.text else []
    return {
        "type": "reasoning",
        "id": part.item_id,
        "summary": summary,
        "encrypted_content": part.encrypted_content,
    }


def _tool_result(message: ToolResultMessage, *, tools: bool) -> list[WireItem]:
    return tool_result_wire(
        message,
        tools=tools,
        output=lambda text: {
            "type": "function_call_output",
            "call_id": message.call_id,
            "output": text,
        },
        user_content=_user_content,
    )


def _args(args: dict[str, Any]) -> str:
    return _json.encode(args).decode()
