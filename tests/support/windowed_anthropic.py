"""A fake Anthropic Messages API on 127.0.0.1 with a hard context window (issue 17).

The HTTP counterpart of ``context_session.WindowedModel``, for a real ``panelot-host serve``
(``ANTHROPIC_BASE_URL``): it records every request body as sent, counts its tokens its own
way (``context_session.measure_body``) and answers 400 "prompt is too long" past its
window; a summary request (the compaction system prompt) gets ``SUMMARY``; a main request
gets the next browsing step. The answer is a function of the request alone (the step
number follows the "Step N." of the last assistant message), so a request re-sent after a
restart gets the answer the first one would have. ``hold`` keeps a chosen request
unanswered until the client goes away (a host killed while the call is in flight).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from typing import Any

from tests.providers.sse_server import HANG, Reply, Seen, SSEServer
from tests.providers.streams import anthropic_sse
from tests.support.context_session import (
    CYCLE,
    SUMMARY,
    WINDOW,
    RequestSize,
    measure_body,
    page_text,
    shared_prefix,
)

from panelot_host.engine import prompts

Hold = Callable[[dict[str, Any], bool], bool]  # (body, is a summary request) -> hold it
_STEP = re.compile(r"^Step (\d+)\. ")


class Recorded:
    """One request as the server saw it."""

    def __init__(self, raw: bytes, body: dict[str, Any], size: RequestSize) -> None:
        self.raw = raw
        self.body = body
        self.size = size
        self.summary = _system_text(body) == prompts.COMPACTION_SYSTEM


class WindowedAnthropic(SSEServer):
    """Answers ``steps`` browsing steps (then a final text) within a ``window``."""

    def __init__(self, steps: int, *, window: int = WINDOW, step_chars: int = 1_200) -> None:
        super().__init__()
        self.steps = steps
        self.window = window
        self.step_chars = step_chars
        self.seen: list[Recorded] = []
        self.rejected = 0
        self.hold: Hold | None = None
        self.held = threading.Event()  # a request is being held
        self._previous_main: RequestSize | None = None

    @property
    def main(self) -> list[Recorded]:
        return [r for r in self.seen if not r.summary and r.size.total <= self.window]

    @property
    def summaries(self) -> list[Recorded]:
        return [r for r in self.seen if r.summary]

    def next_reply(self, seen: Seen) -> Reply:
        body = json.loads(seen.body)
        recorded = Recorded(seen.body, body, measure_body(body))
        with self._lock:
            self.requests.append(seen)
            self.seen.append(recorded)
            hold = self.hold is not None and self.hold(body, recorded.summary)
        if recorded.size.total > self.window:
            self.rejected += 1
            return _prompt_too_long(recorded.size.total, self.window)
        if hold:
            self.held.set()
            return Reply(body=[HANG])
        if recorded.summary:
            return Reply(body=[_text_answer(SUMMARY, recorded.size.total, 0)])
        cached = shared_prefix(self._previous_main, recorded.size)
        self._previous_main = recorded.size
        step = _next_step(body)
        if step >= self.steps:
            return Reply(body=[_text_answer("All prices collected.", recorded.size.total, cached)])
        name, args = CYCLE[step % len(CYCLE)]
        text = f"Step {step + 1}. {page_text(-step, self.step_chars, 'Noting')}"
        events = _step_answer(text, f"toolu_{step + 1:04d}", name, args, recorded.size, cached)
        return Reply(body=[events])


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system") or []
    return "".join(block.get("text", "") for block in system if isinstance(block, dict))


def _next_step(body: dict[str, Any]) -> int:
    """The number of the last step the model took (from its own words), so the next."""
    for message in reversed(body["messages"]):
        if message["role"] != "assistant":
            continue
        for block in message["content"]:
            found = _STEP.match(block.get("text", "")) if block.get("type") == "text" else None
            if found:
                return int(found.group(1))
    return 0


def _usage(total: int, cached: int) -> dict[str, int]:
    return {"input_tokens": total - cached, "cache_read_input_tokens": cached, "output_tokens": 1}


def _start(total: int, cached: int) -> dict[str, Any]:
    message = {"id": "msg_windowed", "type": "message", "role": "assistant", "content": [],
               "model": "claude-sonnet-4-5", "stop_reason": None, "stop_sequence": None,
               "usage": _usage(total, cached)}  # fmt: skip
    return {"type": "message_start", "message": message}


def _text_answer(text: str, total: int, cached: int) -> bytes:
    return anthropic_sse(
        _start(total, cached),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    )


def _step_answer(
    text: str, call_id: str, name: str, args: dict[str, Any], size: RequestSize, cached: int
) -> bytes:
    tool = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    partial = {"type": "input_json_delta", "partial_json": json.dumps(args)}
    return anthropic_sse(
        _start(size.total, cached),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": tool},
        {"type": "content_block_delta", "index": 1, "delta": partial},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    )


def _prompt_too_long(total: int, window: int) -> Reply:
    error = {"type": "error", "error": {"type": "invalid_request_error",
             "message": f"prompt is too long: {total} tokens > {window} maximum"}}  # fmt: skip
    return Reply(status=400, body=[json.dumps(error).encode()], content_type="application/json")
