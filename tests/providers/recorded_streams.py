"""The recorded OpenAI Responses streams in ``recorded/`` (provenance: ``recorded/README.md``),
read as bytes, and what their own final events say, parsed independently of the decoder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RECORDED = Path(__file__).parent / "recorded"
NAMES = (
    "responses_text",
    "responses_parallel_calls",
    "responses_reasoning_call",
    "responses_reasoning_call_step2",
    "responses_reasoning_call_gpt5",
    "responses_incomplete",
    "responses_error",
)


def recorded(name: str) -> bytes:
    return (RECORDED / f"{name}.sse").read_bytes()


def payloads(name: str) -> list[dict[str, Any]]:
    """Every ``data:`` payload of the stream, as JSON."""
    text = recorded(name).decode()
    return [
        json.loads(line.removeprefix("data:"))
        for line in text.splitlines()
        if line.startswith("data:")
    ]


def last_of(name: str, kind: str) -> dict[str, Any]:
    return [p for p in payloads(name) if p["type"] == kind][-1]


def done_items(name: str, item_type: str) -> list[dict[str, Any]]:
    return [
        p["item"]
        for p in payloads(name)
        if p["type"] == "response.output_item.done" and p["item"]["type"] == item_type
    ]
