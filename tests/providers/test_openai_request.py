"""What the OpenAI adapter sends to OpenAI and to compatible servers."""

from __future__ import annotations

import json

from panelot_host.providers.openai_request import OpenAIOptions, build_body
from panelot_host.providers.types import (
    AssistantMessage,
    ImagePart,
    Message,
    ModelRequest,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)

MESSAGES: list[Message] = [
    UserMessage([TextPart("look"), ImagePart("image/png", "AAAA")]),
    AssistantMessage(
        [ThinkingPart("hm", signature="s"), TextPart("ok"), ToolCallPart("c1", "read", {"t": 1})]
    ),
    ToolResultMessage("c1", "read", [TextPart("page"), ImagePart("image/png", "BBBB")]),
]
TOOLS = [ToolSpec("read", "Read", {"type": "object", "properties": {}})]


def test_tool_history_images_and_usage_option_for_openai() -> None:
    options = OpenAIOptions(max_tokens_field="max_completion_tokens")
    body = build_body(ModelRequest("gpt-4.1", "sys", MESSAGES, tools=TOOLS), options)
    system, user, assistant, tool, images = body["messages"]
    assert system == {"role": "system", "content": "sys"}
    assert user["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,AAAA"},
    }
    assert assistant["content"] == "ok"
    assert assistant["tool_calls"][0]["function"] == {"name": "read", "arguments": '{"t":1}'}
    assert tool == {"role": "tool", "tool_call_id": "c1", "content": "page"}
    assert images["role"] == "user" and images["content"][1]["image_url"]["url"].endswith("BBBB")
    assert body["tools"][0]["function"]["name"] == "read"
    assert body["max_completion_tokens"] == 8192 and "max_tokens" not in body
    assert body["stream_options"] == {"include_usage": True}


def test_without_tool_support_no_tools_and_tool_history_as_text() -> None:
    body = build_body(
        ModelRequest("llama3.1", "", MESSAGES, tools=TOOLS), OpenAIOptions(tool_use=False)
    )
    assert "tools" not in body
    roles = [m["role"] for m in body["messages"]]
    assert "tool" not in roles
    assert all("tool_calls" not in m for m in body["messages"])
    assert "[called tool read with" in json.dumps(body["messages"][1])
    assert body["messages"][2]["content"].startswith("[result of tool read]")
    assert body["max_tokens"] == 8192
