"""``ModelRequest`` -> OpenAI Chat Completions request body (also for compatible servers).

Tool results are ``tool`` messages (text only: images a tool returned follow in a user
message). Thinking is not sent back (Chat Completions has no field for it). When the model
has no tool support, no tools are sent and any tool history is rendered as plain text, so
servers that reject the ``tools`` field or ``tool`` role still work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from panelot_host.providers.types import (
    AssistantMessage,
    ImagePart,
    Message,
    ModelRequest,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

WireMessage = dict[str, Any]
_json = msgspec.json.Encoder()


class OpenAIOptions(msgspec.Struct, frozen=True):
    tool_use: bool = True
    max_tokens_field: str = "max_tokens"  # api.openai.com wants "max_completion_tokens"


def build_body(request: ModelRequest, options: OpenAIOptions) -> dict[str, Any]:
    """The JSON body (as a dict) of a streaming chat completion for ``request``."""
    messages: list[WireMessage] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        messages.extend(encode_message(message, tools=options.tool_use))
    body: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        options.max_tokens_field: request.max_tokens,
    }
    if options.tool_use and request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in request.tools
        ]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def encode_message(message: Message, *, tools: bool) -> list[WireMessage]:
    """One normalised message as one or more wire messages."""
    match message:
        case UserMessage(content=content):
            return [{"role": "user", "content": _user_content(content)}]
        case AssistantMessage():
            return [_assistant(message, tools=tools)]
        case ToolResultMessage():
            return _tool_result(message, tools=tools)


def _user_content(content: list[UserContent]) -> str | list[dict[str, Any]]:
    if all(isinstance(p, TextPart) for p in content):
        return "".join(p.text for p in content if isinstance(p, TextPart))
    parts: list[dict[str, Any]] = []
    for part in content:
        match part:
            case TextPart(text=text):
                parts.append({"type": "text", "text": text})
            case ImagePart(media_type=media_type, data=data):
                url = f"data:{media_type};base64,{data}"
                parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def _assistant(message: AssistantMessage, *, tools: bool) -> WireMessage:
    text = "".join(p.text for p in message.content if isinstance(p, TextPart))
    calls = [p for p in message.content if isinstance(p, ToolCallPart)]
    if not tools:
        text += "".join(f"\n[called tool {c.name} with {_args(c.args)}]" for c in calls)
        return {"role": "assistant", "content": text}
    wire: WireMessage = {"role": "assistant", "content": text or None}
    if calls:
        wire["tool_calls"] = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {"name": c.name, "arguments": _args(c.args)},
            }
            for c in calls
        ]
    return wire


def _tool_result(message: ToolResultMessage, *, tools: bool) -> list[WireMessage]:
    return tool_result_wire(
        message,
        tools=tools,
        output=lambda text: {"role": "tool", "tool_call_id": message.call_id, "content": text},
        user_content=_user_content,
    )


def tool_result_wire(
    message: ToolResultMessage,
    *,
    tools: bool,
    output: Callable[[str], dict[str, Any]],
    user_content: Callable[[list[UserContent]], Any],
) -> list[dict[str, Any]]:
    """A tool result in OpenAI's shapes (Chat Completions and Responses share them but for
    ``output``, the result's own message or item, and ``user_content``): its text, marked
    ``[error]`` for a failed call, then its images in a user message (neither API takes
    images in a tool result). Without ``tools`` the text goes in a user message too."""
    text = "".join(p.text for p in message.content if isinstance(p, TextPart))
    if message.is_error:
        text = f"[error] {text}"
    images = [p for p in message.content if isinstance(p, ImagePart)]
    out = (
        [output(text)]
        if tools
        else [{"role": "user", "content": f"[result of tool {message.name}]\n{text}"}]
    )
    if images:
        intro = TextPart(text=f"Images returned by tool {message.name}:")
        out.append({"role": "user", "content": user_content([intro, *images])})
    return out


def _args(args: dict[str, Any]) -> str:
    return _json.encode(args).decode()
