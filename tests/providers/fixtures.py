"""Stream fixtures written from the documented formats, with the events they must give.

Anthropic: message_start / content_block_* / message_delta / message_stop, ping, error.
OpenAI: chat.completion.chunk objects, the include_usage chunk (choices: []), [DONE].
"""

from __future__ import annotations

from typing import Any

from panelot_host.providers.types import (
    MessageStop,
    ProviderEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)

from .streams import anthropic_sse, openai_sse

MODEL = "claude-sonnet-4-5-20250929"


def _start(input_tokens: int = 25, read: int = 0, write: int = 0) -> dict[str, Any]:
    usage = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": 1,
    }
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": MODEL,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return {"type": "message_start", "message": message}


def _block(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def _message_delta(reason: str, output_tokens: int, **usage: int) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": {"output_tokens": output_tokens, **usage},
    }


PING = {"type": "ping"}
MESSAGE_STOP = {"type": "message_stop"}


def _text(index: int, *pieces: str) -> list[dict[str, Any]]:
    return [
        _block(index, {"type": "text", "text": ""}),
        *[_delta(index, {"type": "text_delta", "text": p}) for p in pieces],
        _stop(index),
    ]


def _tool(index: int, call_id: str, name: str, *fragments: str) -> list[dict[str, Any]]:
    return [
        _block(index, {"type": "tool_use", "id": call_id, "name": name, "input": {}}),
        *[_delta(index, {"type": "input_json_delta", "partial_json": f}) for f in fragments],
        _stop(index),
    ]


def _stop_event(reason: Any, out: int, inp: int = 25, read: int = 0, write: int = 0) -> MessageStop:
    usage = Usage(
        input_tokens=inp, output_tokens=out, cache_read_tokens=read, cache_write_tokens=write
    )
    return MessageStop(stop_reason=reason, usage=usage, model=MODEL)


ANTHROPIC: dict[str, tuple[bytes, list[ProviderEvent]]] = {
    "text": (
        anthropic_sse(
            _start(read=100, write=50),
            *_text(0, "Héllo", " wörld 👋"),
            PING,
            _message_delta("end_turn", 15),
            MESSAGE_STOP,
        ),
        [
            TextDelta("Héllo"),
            TextDelta(" wörld 👋"),
            _stop_event("end_turn", 15, read=100, write=50),
        ],
    ),
    "tool_use": (
        anthropic_sse(
            _start(),
            *_text(0, "Checking."),
            *_tool(1, "toolu_01", "get_weather", "", '{"loc', 'ation": "Par', 'is"}'),
            _message_delta("tool_use", 40),
            MESSAGE_STOP,
        ),
        [
            TextDelta("Checking."),
            ToolCallStart(0, "toolu_01", "get_weather"),
            ToolCallArgsDelta(0, '{"loc'),
            ToolCallArgsDelta(0, 'ation": "Par'),
            ToolCallArgsDelta(0, 'is"}'),
            ToolCallEnd(0, {"location": "Paris"}),
            _stop_event("tool_use", 40),
        ],
    ),
    "parallel_tools": (
        anthropic_sse(
            _start(),
            *_tool(0, "toolu_a", "read", '{"tabId": 1}'),
            *_tool(1, "toolu_b", "read", '{"tabId":', " 2}"),
            *_tool(2, "toolu_c", "tabs_list"),
            _message_delta("tool_use", 60),
            MESSAGE_STOP,
        ),
        [
            ToolCallStart(0, "toolu_a", "read"),
            ToolCallArgsDelta(0, '{"tabId": 1}'),
            ToolCallEnd(0, {"tabId": 1}),
            ToolCallStart(1, "toolu_b", "read"),
            ToolCallArgsDelta(1, '{"tabId":'),
            ToolCallArgsDelta(1, " 2}"),
            ToolCallEnd(1, {"tabId": 2}),
            ToolCallStart(2, "toolu_c", "tabs_list"),
            ToolCallEnd(2, {}),
            _stop_event("tool_use", 60),
        ],
    ),
    "thinking": (
        anthropic_sse(
            _start(),
            _block(0, {"type": "thinking", "thinking": "", "signature": ""}),
            _delta(0, {"type": "thinking_delta", "thinking": "Let me think"}),
            _delta(0, {"type": "thinking_delta", "thinking": " step by step."}),
            _delta(0, {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}),
            _stop(0),
            _block(1, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}),
            _stop(1),
            *_text(2, "42."),
            _message_delta("end_turn", 80),
            MESSAGE_STOP,
        ),
        [
            ThinkingDelta(text="Let me think"),
            ThinkingDelta(text=" step by step."),
            ThinkingDelta(signature="EqQBCgIYAhIM1gbcDa9GJwZA2b3h"),
            ThinkingDelta(redacted_data="EmwKAhgBEgy3va3pzix"),
            TextDelta("42."),
            _stop_event("end_turn", 80),
        ],
    ),
    "max_tokens": (
        anthropic_sse(
            _start(), *_text(0, "A long"), _message_delta("max_tokens", 1024), MESSAGE_STOP
        ),
        [TextDelta("A long"), _stop_event("max_tokens", 1024)],
    ),
    "refusal_and_cumulative_usage": (
        anthropic_sse(
            _start(input_tokens=10),
            *_text(0, "No."),
            _message_delta("refusal", 3, input_tokens=12, cache_read_input_tokens=7),
            MESSAGE_STOP,
        ),
        [TextDelta("No."), _stop_event("content_filter", 3, inp=12, read=7)],
    ),
}

ANTHROPIC_MID_STREAM_ERROR = anthropic_sse(
    _start(),
    *_text(0, "Partial"),
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
)
ANTHROPIC_ERROR_FIRST = anthropic_sse(
    _start(), {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
)


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish}],
        "usage": None,
    }


def _usage_chunk(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4.1-2025-04-14",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _call(
    index: int, fragment: str, call_id: str | None = None, name: str | None = None
) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": {"arguments": fragment}}
    if call_id is not None:
        call["id"] = call_id
        call["type"] = "function"
    if name is not None:
        call["function"]["name"] = name
    return {"tool_calls": [call]}


def _ostop(reason: Any, inp: int, out: int, cached: int = 0) -> MessageStop:
    usage = Usage(input_tokens=inp, output_tokens=out, cache_read_tokens=cached)
    return MessageStop(stop_reason=reason, usage=usage, model="gpt-4.1-2025-04-14")


OPENAI: dict[str, tuple[bytes, list[ProviderEvent]]] = {
    "text": (
        openai_sse(
            _chunk({"role": "assistant", "content": "", "refusal": None}),
            _chunk({"content": "Héllo"}),
            _chunk({"content": " wörld 👋"}),
            _chunk(finish="stop"),
            _usage_chunk(1200, 9, cached=1024),
            "[DONE]",
        ),
        [TextDelta("Héllo"), TextDelta(" wörld 👋"), _ostop("end_turn", 176, 9, 1024)],
    ),
    "tool_calls": (
        openai_sse(
            _chunk({"role": "assistant", "content": None}),
            _chunk(_call(0, "", "call_abc", "get_weather")),
            _chunk(_call(0, '{"loc')),
            _chunk(_call(0, 'ation":"Paris"}')),
            _chunk(finish="tool_calls"),
            _usage_chunk(50, 20),
            "[DONE]",
        ),
        [
            ToolCallStart(0, "call_abc", "get_weather"),
            ToolCallArgsDelta(0, '{"loc'),
            ToolCallArgsDelta(0, 'ation":"Paris"}'),
            ToolCallEnd(0, {"location": "Paris"}),
            _ostop("tool_use", 50, 20),
        ],
    ),
    "parallel_tool_calls": (
        openai_sse(
            _chunk({"role": "assistant", "content": None}),
            _chunk(_call(0, "", "call_a", "read")),
            _chunk(_call(0, '{"tabId":1}')),
            _chunk(_call(1, "", "call_b", "read")),
            _chunk(_call(1, '{"tabId":2}')),
            _chunk(finish="tool_calls"),
            _usage_chunk(70, 30),
            "[DONE]",
        ),
        [
            ToolCallStart(0, "call_a", "read"),
            ToolCallArgsDelta(0, '{"tabId":1}'),
            ToolCallStart(1, "call_b", "read"),
            ToolCallArgsDelta(1, '{"tabId":2}'),
            ToolCallEnd(0, {"tabId": 1}),
            ToolCallEnd(1, {"tabId": 2}),
            _ostop("tool_use", 70, 30),
        ],
    ),
    "length": (
        openai_sse(
            _chunk({"role": "assistant", "content": "Once"}),
            _chunk({"content": " upon"}),
            _chunk(finish="length"),
            _usage_chunk(5, 2),
            "[DONE]",
        ),
        [TextDelta("Once"), TextDelta(" upon"), _ostop("max_tokens", 5, 2)],
    ),
    "content_filter": (
        openai_sse(
            _chunk({"role": "assistant", "content": "I"}),
            _chunk(finish="content_filter"),
            _usage_chunk(5, 1),
            "[DONE]",
        ),
        [TextDelta("I"), _ostop("content_filter", 5, 1)],
    ),
}
