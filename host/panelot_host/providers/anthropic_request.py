"""``ModelRequest`` -> Anthropic Messages API request body.

Consecutive messages of one role are merged (tool results and steering after them go into
one user message, tool results first). Thinking blocks go back with their signature;
thinking without a signature (an interrupted stream) cannot be sent back and is dropped.

Prompt caching: up to four ``cache_control`` breakpoints - the last tool, the system prompt,
the last message, and the user message that was last in the previous call - so each call of
a long thread reads the prefix the previous call wrote instead of paying full input price.
When the request says which messages stay the same from call to call (``stable_prefix``:
the engine elides old page state only past a mark), the last of them gets a breakpoint
instead of the last tool (the system prompt's breakpoint covers the tools, which come
first): a call that elides more page state still reads everything before it.
"""

from __future__ import annotations

from typing import Any

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

Block = dict[str, Any]
WireMessage = dict[str, Any]

MAX_BREAKPOINTS = 4
_EPHEMERAL = {"type": "ephemeral"}


def build_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body (as a dict) of a streaming Messages API call for ``request``."""
    messages, positions = encode_with_positions(request.messages)
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": messages,
        "stream": True,
    }
    if request.system:
        body["system"] = [{"type": "text", "text": request.system}]
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
    if request.thinking_budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
    elif request.temperature is not None:
        body["temperature"] = request.temperature  # not allowed together with thinking
    add_cache_breakpoints(body, _stable_wire_end(request.stable_prefix, positions))
    return body


def encode_messages(messages: list[Message]) -> list[WireMessage]:
    """Wire messages with strictly alternating roles; empty messages are left out."""
    return encode_with_positions(messages)[0]


def encode_with_positions(messages: list[Message]) -> tuple[list[WireMessage], list[int]]:
    """``encode_messages`` and, for each message, the wire message it went into (-1 when
    it was empty and left out)."""
    out: list[WireMessage] = []
    positions: list[int] = []
    for message in messages:
        role, blocks = _encode(message)
        if not blocks:
            positions.append(-1)
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"] = _merge(out[-1]["content"], blocks)
        else:
            out.append({"role": role, "content": blocks})
        positions.append(len(out) - 1)
    return out, positions


def _stable_wire_end(stable: int, positions: list[int]) -> int | None:
    """The last wire message made only of ``messages[:stable]``, if any."""
    if stable <= 0 or stable > len(positions):
        return None
    last = max(positions[:stable], default=-1)
    following = [p for p in positions[stable:] if p >= 0]
    if following and following[0] == last:
        last -= 1  # merged with a message after the stable part: the one before it
    return last if last >= 0 else None


def _merge(first: list[Block], second: list[Block]) -> list[Block]:
    # tool_result blocks must open a user message
    merged = first + second
    return [b for b in merged if b["type"] == "tool_result"] + [
        b for b in merged if b["type"] != "tool_result"
    ]


def _encode(message: Message) -> tuple[str, list[Block]]:
    match message:
        case UserMessage(content=content):
            return "user", _user_blocks(content)
        case AssistantMessage(content=content):
            return "assistant", [b for part in content if (b := _assistant_block(part))]
        case ToolResultMessage():
            result: Block = {
                "type": "tool_result",
                "tool_use_id": message.call_id,
                "content": _user_blocks(message.content),
            }
            if message.is_error:
                result["is_error"] = True
            return "user", [result]


def _user_blocks(content: list[UserContent]) -> list[Block]:
    blocks: list[Block] = []
    for part in content:
        match part:
            case TextPart(text=text) if text:
                blocks.append({"type": "text", "text": text})
            case ImagePart(media_type=media_type, data=data):
                source = {"type": "base64", "media_type": media_type, "data": data}
                blocks.append({"type": "image", "source": source})
    return blocks


def _assistant_block(part: TextPart | ThinkingPart | ToolCallPart) -> Block | None:
    match part:
        case TextPart(text=text):
            return {"type": "text", "text": text} if text else None
        case ThinkingPart(redacted_data=str(data)):
            return {"type": "redacted_thinking", "data": data}
        case ThinkingPart(text=text, signature=str(signature)):
            return {"type": "thinking", "thinking": text, "signature": signature}
        case ThinkingPart():
            return None
        case ToolCallPart(call_id=call_id, name=name, args=args):
            return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def add_cache_breakpoints(body: dict[str, Any], stable_end: int | None = None) -> None:
    """Mark up to ``MAX_BREAKPOINTS`` cacheable prefixes on ``body`` in place
    (``stable_end``: the last wire message that stays the same in the next calls)."""
    marks: list[Block] = []
    if body.get("tools") and (stable_end is None or not body.get("system")):
        marks.append(body["tools"][-1])
    if body.get("system"):
        marks.append(body["system"][-1])
    messages: list[WireMessage] = body["messages"]
    user_indexes = [i for i, m in enumerate(messages) if m["role"] == "user"]
    candidates = [len(messages) - 1] if messages else []
    previous_user = [i for i in user_indexes if i < len(messages) - 1]
    if previous_user:
        candidates.append(previous_user[-1])
    if stable_end is not None and stable_end not in candidates:
        candidates.append(stable_end)
    for index in candidates:
        block = _cacheable_tail(messages[index]["content"])
        if block is not None and not any(block is mark for mark in marks):
            marks.append(block)
    for block in marks[:MAX_BREAKPOINTS]:
        block["cache_control"] = dict(_EPHEMERAL)


def _cacheable_tail(blocks: list[Block]) -> Block | None:
    for block in reversed(blocks):
        if block["type"] not in ("thinking", "redacted_thinking"):
            return block
    return None
