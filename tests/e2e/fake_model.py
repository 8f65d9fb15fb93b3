"""A fake Anthropic Messages API on 127.0.0.1 for the browser tests: the providers' tests'
``SSEServer`` whose unscripted replies echo the last user message as a streamed answer."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from tests.providers.sse_server import HANG, Delay, Reply, Seen, SSEServer
from tests.providers.streams import anthropic_sse

MODEL = "claude-sonnet-4-5"
Planned = Reply | Callable[[dict[str, Any]], Reply]

__all__ = ["HANG", "Delay", "FakeAnthropic", "Reply", "message_end", "text_events", "text_reply"]


def text_events(pieces: Iterable[str], stop: str = "end_turn") -> list[bytes]:
    """The SSE events of one streamed text answer, one ``bytes`` per event."""
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_e2e",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": MODEL,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }
    block = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    deltas = [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
        for p in pieces
    ]
    events = [start, block, *deltas, {"type": "content_block_stop", "index": 0}]
    return [*(anthropic_sse(e) for e in events), *message_end(stop, 5)]


def message_end(stop: str, output_tokens: int) -> list[bytes]:
    """The two SSE events that end a streamed message: its stop reason and usage, then
    ``message_stop``."""
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": output_tokens},
    }
    return [anthropic_sse(delta), anthropic_sse({"type": "message_stop"})]


def text_reply(pieces: Iterable[str], *, delay_s: float = 0.0) -> Reply:
    """A streamed answer, ``delay_s`` between pieces."""
    events = text_events(pieces)
    body: list[object] = []
    for event in events:
        body.append(event)
        if delay_s:
            body.append(Delay(delay_s))
    return Reply(body=body)


def tool_use_reply(
    call_id: str, name: str, args: dict[str, Any], *, saying: str | None = None
) -> Reply:
    """An answer that calls one tool, after the text ``saying`` when given."""
    start, *_ = text_events([])
    said: list[bytes] = []
    if saying is not None:
        opened = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": saying}
        said = [
            anthropic_sse({"type": "content_block_start", "index": 0, "content_block": opened}),
            anthropic_sse({"type": "content_block_delta", "index": 0, "delta": delta}),
            anthropic_sse({"type": "content_block_stop", "index": 0}),
        ]
    at = len(said) // 3
    events = [
        start,
        *said,
        anthropic_sse(
            {
                "type": "content_block_start",
                "index": at,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            }
        ),
        anthropic_sse(
            {
                "type": "content_block_delta",
                "index": at,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(args)},
            }
        ),
        anthropic_sse({"type": "content_block_stop", "index": at}),
        *message_end("tool_use", 9),
    ]
    return Reply(body=list(events))


def last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        texts = [b.get("text", "") for b in content if b.get("type") == "text"]
        if texts:
            return texts[-1]
    return ""


class FakeAnthropic(SSEServer):
    """Serves planned replies in order (a ``Reply`` or a function of the request body),
    then echoes: ``Echo: <last user text>`` streamed word by word."""

    def __init__(self) -> None:
        super().__init__()
        self.plans: list[Planned] = []
        self.bodies: list[dict[str, Any]] = []
        self.echo_delay_s = 0.0

    def plan(self, *plans: Planned) -> None:
        with self._lock:
            self.plans.extend(plans)

    def next_reply(self, seen: Seen) -> Reply:
        body = json.loads(seen.body or b"{}")
        with self._lock:
            self.requests.append(seen)
            self.bodies.append(body)
            planned = self.plans.pop(0) if self.plans else None
        if planned is None:
            words = f"Echo: {last_user_text(body)[:200]}".split(" ")
            pieces = [w if i == 0 else " " + w for i, w in enumerate(words)]
            return text_reply(pieces, delay_s=self.echo_delay_s)
        return planned(body) if callable(planned) else planned
