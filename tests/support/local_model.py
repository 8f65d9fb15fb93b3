"""A fake OpenAI-compatible model server on 127.0.0.1, as Ollama or LM Studio serve one:
``GET /v1/models`` lists its models, ``POST /v1/chat/completions`` answers (streamed or
not) with ``Hello from <model>: <the last user text>``. A request with a bearer key other
than ``GOOD_KEY`` is refused with 401 and an error body in OpenAI's words; a request with
no key is served (a local server needs none). ``NO_TOOLS`` refuses any request offering
tools with Ollama's words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.web import port_of, serve_on_loopback

MODELS = ("llama3.1", "qwen2.5-coder", "gemma-2b")
NO_TOOLS = "gemma-2b"  # answers 400 to a request that offers tools, as Ollama does
GOOD_KEY = "sk-local-good"
REFUSAL = "Incorrect API key provided: sk-wr***. You can find your API key in your account."


def _answer(body: dict[str, Any]) -> str:
    said = ""
    for message in body.get("messages", []):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            said = message["content"]
    return f"Hello from {body.get('model')}: {said[:100]}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str]]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _refused(self) -> bool:
        auth = self.headers.get("authorization")
        if auth is None or auth == f"Bearer {GOOD_KEY}":
            return False
        self._json(401, {"error": {"message": REFUSAL, "type": "invalid_request_error"}})
        return True

    def _json(self, status: int, value: Any) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.seen.append(("GET", self.path))
        if self._refused():
            return
        if self.path.rstrip("/") == "/v1/models":
            self._json(
                200, {"object": "list", "data": [{"id": m, "object": "model"} for m in MODELS]}
            )
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.seen.append(("POST", self.path))
        if self._refused():
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        if body.get("model") not in MODELS:
            self._json(404, {"error": {"message": f"model '{body.get('model')}' not found"}})
            return
        if body.get("model") == NO_TOOLS and body.get("tools"):
            words = f"registry.ollama.ai/library/{NO_TOOLS}:latest does not support tools"
            self._json(400, {"error": {"message": words, "type": "api_error"}})
            return
        text = _answer(body)
        if not body.get("stream"):
            message = {"role": "assistant", "content": text[:1]}
            choice = {"index": 0, "message": message, "finish_reason": "length"}
            usage = {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}
            self._json(
                200, {"id": "c1", "object": "chat.completion", "choices": [choice], "usage": usage}
            )
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        words = text.split(" ")
        pieces = [w if i == 0 else " " + w for i, w in enumerate(words)]
        for piece in pieces:
            delta = {"role": "assistant", "content": piece}
            self._event(
                {"id": "c1", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            )
        self._event({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        usage = {
            "prompt_tokens": 20,
            "completion_tokens": len(pieces),
            "total_tokens": 20 + len(pieces),
        }
        self._event({"id": "c1", "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, value: dict[str, Any]) -> None:
        self.wfile.write(f"data: {json.dumps(value)}\n\n".encode())
        self.wfile.flush()


@contextmanager
def serve_local_model() -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """Serve the fake on a free loopback port; yield the port and the requests seen."""
    seen: list[tuple[str, str]] = []
    handler = type("LocalModel", (_Handler,), {"seen": seen})
    with serve_on_loopback(handler) as base:
        yield port_of(base), seen
