"""A fake OpenAI-compatible model server on 127.0.0.1 for the chat's subprocess tests:
scripted Chat Completions streams (``tests.providers.sse_server``), what a local server
such as Ollama or llama.cpp would send."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.providers.sse_server import HANG, Delay, Reply, SSEServer
from tests.providers.streams import openai_sse

PROVIDER_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "PANELOT_PROVIDER",
    "PANELOT_MODEL",
    "PANELOT_TASK_MODEL",
)
HOST = [sys.executable, "-m", "panelot_host"]
CHAT = [*HOST, "chat"]

__all__ = ["CHAT", "HANG", "HOST", "Delay", "Reply", "SSEServer", "host_env", "text_reply"]


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "local-model",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }


def _usage(prompt: int, completion: int) -> dict[str, Any]:
    usage = {"prompt_tokens": prompt, "completion_tokens": completion}
    return {**_chunk(), "choices": [], "usage": usage}


def text_reply(*pieces: str | Delay | object, usage: tuple[int, int] = (12, 5)) -> Reply:
    """A streamed answer: each string is one delta; a ``Delay`` pauses; ``HANG`` stops
    sending (the connection stays open until the client closes it)."""
    body: list[object] = [openai_sse(_chunk({"role": "assistant", "content": ""}))]
    for piece in pieces:
        if isinstance(piece, str):
            body.append(openai_sse(_chunk({"content": piece})))
        else:
            body.append(piece)
            if piece is HANG:
                return Reply(200, body)
    body.append(openai_sse(_chunk(finish="stop"), _usage(*usage), "[DONE]"))
    return Reply(200, body)


def tool_reply(name: str, args: dict[str, Any], call_id: str = "call_1") -> Reply:
    call = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }
    body = openai_sse(
        _chunk({"role": "assistant", "content": None}),
        _chunk({"tool_calls": [call]}),
        _chunk(finish="tool_calls"),
        _usage(20, 8),
        "[DONE]",
    )
    return Reply(200, [body])


def error_reply(status: int, message: str, retry_after: str | None = None) -> Reply:
    body = json.dumps({"error": {"message": message, "type": "invalid_request_error"}})
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return Reply(status, [body.encode()], headers, content_type="application/json")


def requests_of(server: SSEServer) -> list[dict[str, Any]]:
    """The Chat Completions request bodies the server received."""
    return [json.loads(seen.body) for seen in server.requests]


def host_env(home: Path, server: SSEServer | None = None, **extra: str) -> dict[str, str]:
    """The environment of a ``panelot-host`` child: no provider from the outer shell; with
    ``server``, ``OPENAI_BASE_URL`` points at it (no model: ``--model`` names it)."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARS}
    env.update(PANELOT_HOME=str(home), PYTHONUNBUFFERED="1", NO_COLOR="1")
    env.pop("PANELOT_ALLOWED_ORIGINS", None)
    if server is not None:
        env["OPENAI_BASE_URL"] = server.url + "/v1"
    env.update(extra)
    return env
