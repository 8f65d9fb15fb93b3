"""What the Anthropic adapter sends: messages, thinking, images, tools, cache breakpoints."""

from __future__ import annotations

from typing import Any

from panelot_host.providers.anthropic_request import MAX_BREAKPOINTS, build_body
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

TOOLS = [ToolSpec("read", "Read a tab", {"type": "object"}), ToolSpec("click", "Click", {})]


def _turn(i: int) -> list[Message]:
    return [
        UserMessage([TextPart(f"question {i}")]),
        AssistantMessage([TextPart("looking"), ToolCallPart(f"c{i}", "read", {"tabId": i})]),
        ToolResultMessage(f"c{i}", "read", [TextPart(f"page {i}")]),
        AssistantMessage([TextPart(f"answer {i}")]),
    ]


def _marked(body: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = [*body.get("tools", []), *body.get("system", [])]
    for message in body["messages"]:
        blocks.extend(message["content"])
    return [b for b in blocks if "cache_control" in b]


def test_a_long_thread_marks_tools_system_and_the_two_latest_user_turns() -> None:
    messages = [m for i in range(100) for m in _turn(i)] + [UserMessage([TextPart("next")])]
    body = build_body(ModelRequest("claude-sonnet-4-5", "sys", messages, tools=TOOLS))
    marked = _marked(body)
    assert len(marked) == MAX_BREAKPOINTS
    assert marked[0] is body["tools"][-1] and marked[1] is body["system"][-1]
    last, previous = body["messages"][-1], body["messages"][-3]
    assert marked[3] is last["content"][-1] and last["content"][-1]["text"] == "next"
    assert marked[2] is previous["content"][-1] and previous["role"] == "user"
    assert all(b["cache_control"] == {"type": "ephemeral"} for b in marked)


def test_breakpoints_never_exceed_four_nor_land_on_thinking() -> None:
    for n in range(0, 6):
        messages = [m for i in range(n) for m in _turn(i)]
        messages.append(AssistantMessage([TextPart("x"), ThinkingPart("t", signature="s")]))
        for tools in ([], TOOLS):
            body = build_body(ModelRequest("m", "sys" if n % 2 else "", messages, tools=tools))
            marked = _marked(body)
            assert len(marked) <= MAX_BREAKPOINTS
            assert all(b.get("type") != "thinking" for b in marked)


def test_tool_results_and_steering_merge_into_one_user_message_results_first() -> None:
    messages: list[Message] = [
        UserMessage([TextPart("go")]),
        AssistantMessage([ToolCallPart("a", "read", {}), ToolCallPart("b", "read", {})]),
        ToolResultMessage("a", "read", [TextPart("A")]),
        UserMessage([TextPart("steer: also check prices")]),
        ToolResultMessage("b", "read", [TextPart("B"), ImagePart("image/png", "iVBOR")], True),
    ]
    wire = build_body(ModelRequest("m", "", messages))["messages"]
    assert [m["role"] for m in wire] == ["user", "assistant", "user"]
    blocks = wire[2]["content"]
    assert [b["type"] for b in blocks] == ["tool_result", "tool_result", "text"]
    assert blocks[1]["is_error"] is True
    image = blocks[1]["content"][1]
    assert image == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
    }
    assert wire[1]["content"][0] == {"type": "tool_use", "id": "a", "name": "read", "input": {}}


def test_thinking_goes_back_with_its_signature_and_unsigned_thinking_is_dropped() -> None:
    assistant = AssistantMessage(
        [
            ThinkingPart("reasoning", signature="sig-1"),
            ThinkingPart("", redacted_data="opaque"),
            ThinkingPart("cut off by an interrupt"),
            TextPart(""),
            TextPart("Answer"),
        ]
    )
    request = ModelRequest(
        "m", "", [UserMessage([TextPart("q")]), assistant], thinking_budget=2048, temperature=0.2
    )
    body = build_body(request)
    content = body["messages"][1]["content"]
    assert content[:2] == [
        {"type": "thinking", "thinking": "reasoning", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "opaque"},
    ]
    assert content[2]["text"] == "Answer" and len(content) == 3
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "temperature" not in body


def test_image_input_for_vision_models() -> None:
    user = UserMessage([TextPart("what is this?"), ImagePart("image/jpeg", "/9j/4AAQ")])
    body = build_body(ModelRequest("m", "", [user], temperature=0.5))
    assert body["messages"][0]["content"][1]["source"]["media_type"] == "image/jpeg"
    assert body["temperature"] == 0.5 and body["stream"] is True


def test_the_stable_part_of_the_messages_gets_a_breakpoint_instead_of_the_tools() -> None:
    messages = [m for i in range(10) for m in _turn(i)] + [UserMessage([TextPart("next")])]
    request = ModelRequest("m", "sys", messages, tools=TOOLS, stable_prefix=22)
    body = build_body(request)
    marked = _marked(body)
    assert len(marked) == MAX_BREAKPOINTS
    assert not any(b is body["tools"][-1] for b in marked)  # the system mark covers them
    assert marked[0] is body["system"][-1]
    stable = body["messages"][21]  # messages[:22]: turns 0-4 and the next question/call
    assert stable["content"][-1] in marked and stable["role"] == "assistant"
    # without the hint nothing changes
    assert (
        _marked(build_body(ModelRequest("m", "sys", messages, tools=TOOLS)))[0]["name"] == "click"
    )


def test_a_stable_part_ending_inside_a_merged_message_marks_the_message_before() -> None:
    messages: list[Message] = [
        UserMessage([TextPart("go")]),
        AssistantMessage([ToolCallPart("a", "read", {}), ToolCallPart("b", "read", {})]),
        ToolResultMessage("a", "read", [TextPart("A")]),
        ToolResultMessage("b", "read", [TextPart("B")]),
        AssistantMessage([TextPart("done")]),
        UserMessage([TextPart("more")]),
    ]
    body = build_body(ModelRequest("m", "sys", messages, stable_prefix=3))
    marked = _marked(body)
    # results a and b share one wire message: the stable mark goes on the call before them
    assert body["messages"][1]["content"][-1] in marked
    assert len(marked) <= MAX_BREAKPOINTS
