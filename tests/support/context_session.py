"""A long browsing session against a model with a hard context window (issue 17).

``WindowedModel`` is a fake provider that counts a request's tokens its own way (the
Anthropic wire body's bytes / 3.6, images at 1,500: not the engine's estimate, so the
engine has to calibrate) and answers "prompt is too long" past its window, as Anthropic
does. It reports cache reads as the tokens of the longest prefix the request shares with
the previous one, like a prompt cache would. ``BrowsingShim`` plays the extension with
6k-token snapshots, 3k-token page reads and screenshots. Shared by the engine tests and
``bench/bench_context.py``.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable
from typing import Any

import msgspec

from panelot_host.engine import prompts
from panelot_host.errors import ProviderHTTPError
from panelot_host.providers.anthropic_request import build_body
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import Fail, Script, ScriptedProvider, Stop, Text, ToolCall
from panelot_host.providers.types import ModelRequest, Usage

WINDOW = 100_000
BYTES_PER_TOKEN = 3.6
IMAGE_TOKENS = 1_500
SNAPSHOT_CHARS = 6_000 * 4  # about 6k tokens
READ_CHARS = 3_000 * 4
BROWSER_TOOLS = ["browser_snapshot", "browser_read", "browser_screenshot", "browser_scroll"]
CYCLE: list[tuple[str, dict[str, Any]]] = [
    ("browser_snapshot", {}),
    ("browser_screenshot", {}),
    ("browser_scroll", {"direction": "down"}),
    ("browser_read", {}),
    ("browser_snapshot", {"tabId": 1}),
]
PNG = base64.b64encode(bytes(range(256)) * 12).decode()  # ~4 KB of image data

_json = msgspec.json.Encoder()
_WORDS = [
    "price",
    "order",
    "cart",
    "item",
    "review",
    "shipping",
    "button",
    "link",
    "heading",
    "list",
    "form",
    "field",
]


def model_info(window: int = WINDOW) -> ModelInfo:
    return ModelInfo(
        id="windowed-model", provider="scripted", vision=True, context_window=window,
        max_output_tokens=8_192,
    )  # fmt: skip


def page_text(seed: int, chars: int, prefix: str) -> str:
    rng = random.Random(seed)
    lines = []
    size = 0
    ref = 0
    while size < chars:
        ref += 1
        line = f'{prefix} "{" ".join(rng.choices(_WORDS, k=6))}" [ref=e{ref}]'
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


class BrowsingShim:
    """Answers ``browser.resolveTarget`` and ``browser.invoke`` on one site: the tab a call
    names (``tabId``), else tab 1."""

    def __init__(self) -> None:
        self.invocations = 0

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        return self.answer(method, params)

    def answer(self, method: str, params: dict[str, Any]) -> Any:
        """The result of the host's ``browser.*`` request."""
        tab = (params.get("args") or {}).get("tabId", 1)  # the active tab is tab 1
        target = {"tabId": tab, "url": "https://shop.example/list",
                  "origin": "https://shop.example", "title": "Shop"}  # fmt: skip
        if method == "browser.resolveTarget":
            return target
        self.invocations += 1
        tool = params["tool"]
        content: Any
        if tool == "browser_snapshot":
            content = page_text(self.invocations, SNAPSHOT_CHARS, "- link")
        elif tool == "browser_read":
            content = page_text(self.invocations, READ_CHARS, "text")
        elif tool == "browser_screenshot":
            content = [
                {"type": "text", "text": f"Screenshot {self.invocations} of the viewport"},
                {"type": "image", "mediaType": "image/png", "data": PNG},
            ]
        else:
            content = f"Scrolled down ({self.invocations})"
        return {"content": content, "isError": False, "target": target}


def body_without_images(request: ModelRequest) -> dict[str, Any]:
    body = build_body(request)
    for message in body["messages"]:
        for block in message["content"]:
            _blank_images(block)
    return body


def _blank_images(block: dict[str, Any]) -> int:
    """Blank image data (counted apart) and drop cache marks (not part of the content)."""
    block.pop("cache_control", None)
    if block.get("type") == "image":
        block["source"] = {"type": "base64", "media_type": "image/png", "data": ""}
        return 1
    return sum(_blank_images(b) for b in block.get("content", []) if isinstance(b, dict))


class RequestSize(msgspec.Struct):
    """A request's tokens as the fake model counts them: the head (system and tools) and
    each wire message (its images included)."""

    head: int
    messages: list[int]
    images: int
    encoded: list[bytes]  # each wire message's JSON, images blanked
    head_encoded: bytes = b""  # system and tools' JSON

    @property
    def total(self) -> int:
        return self.head + sum(self.messages)


def measure(request: ModelRequest) -> RequestSize:
    return measure_body(build_body(request))


def measure_body(body: dict[str, Any]) -> RequestSize:
    """``measure`` of an Anthropic request body (changed in place: images blanked)."""
    for part in [*body.get("system", []), *body.get("tools", [])]:
        part.pop("cache_control", None)
    head = _json.encode([body.get("system"), body.get("tools")])
    images = [sum(_blank_images(b) for b in m["content"]) for m in body["messages"]]
    encoded = [_json.encode(m) for m in body["messages"]]
    return RequestSize(
        head=int(len(head) / BYTES_PER_TOKEN),
        messages=[
            int(len(e) / BYTES_PER_TOKEN) + n * IMAGE_TOKENS
            for e, n in zip(encoded, images, strict=True)
        ],
        images=sum(images),
        encoded=encoded,
        head_encoded=head,
    )


def shared_prefix(previous: RequestSize | None, current: RequestSize) -> int:
    """Tokens of ``current`` that begin with the same bytes as ``previous`` (whole wire
    messages; the head when system and tools are the same)."""
    if previous is None or previous.head != current.head:
        return 0
    shared = current.head
    for old, new, tokens in zip(previous.encoded, current.encoded, current.messages, strict=False):
        if old != new:
            break
        shared += tokens
    return shared


SUMMARY = (
    "The user asked to compare product prices on shop.example. So far the agent took "
    "snapshots, screenshots and read the listing pages; prices seen: 12.50, 13.99, 9.75. "
    "Next: keep scrolling the list and collect the remaining prices."
)


class WindowedModel:
    """A scripted model with a hard window: every main request is answered by ``steps``
    (a list of tool calls, then a final text); summary requests get ``SUMMARY``."""

    def __init__(
        self,
        steps: list[tuple[str, dict[str, Any]]],
        *,
        window: int = WINDOW,
        on_request: Callable[[ModelRequest, int], None] | None = None,
        step_chars: int = 1_200,
    ) -> None:
        self.window = window
        self.step_chars = step_chars  # the model's own words per step (about 300 tokens)
        self.summary_script: Script | None = None  # instead of SUMMARY (a failure, a hang)
        self.steps = steps
        self.on_request = on_request
        self.main_requests: list[ModelRequest] = []
        self.main_sizes: list[RequestSize] = []
        self.summary_requests: list[ModelRequest] = []
        self.compacted_before: list[int] = []  # index of the main request after each summary
        self.cache_reads: list[int] = []
        self.rejected = 0
        self.next_step = 0
        self.provider = ScriptedProvider(responder=self._answer, keep_requests=False)

    def _answer(self, request: ModelRequest) -> Script:
        size = measure(request)
        if size.total > self.window:
            self.rejected += 1
            message = f"prompt is too long: {size.total} tokens > {self.window} maximum"
            return [Fail(ProviderHTTPError(400, f"invalid_request_error: {message}"))]
        if request.system == prompts.COMPACTION_SYSTEM:
            self.summary_requests.append(request)
            self.compacted_before.append(len(self.main_requests))
            if self.summary_script is not None:
                return self.summary_script
            return [Text(SUMMARY), Stop(usage=Usage(input_tokens=size.total, output_tokens=80))]
        if self.on_request is not None:
            self.on_request(request, len(self.main_requests))
        cached = shared_prefix(self.main_sizes[-1] if self.main_sizes else None, size)
        self.main_requests.append(request)
        self.main_sizes.append(size)
        self.cache_reads.append(cached)
        usage = Usage(input_tokens=size.total - cached, output_tokens=40, cache_read_tokens=cached)
        step = self.next_step
        self.next_step += 1
        if step < len(self.steps):
            name, args = self.steps[step]
            text = f"Step {step + 1}. {page_text(-step, self.step_chars, 'Noting')}"
            return [Text(text), ToolCall(name, args), Stop(usage=usage)]
        return [Text("All prices collected."), Stop(usage=usage)]


def browsing_steps(count: int) -> list[tuple[str, dict[str, Any]]]:
    return [CYCLE[i % len(CYCLE)] for i in range(count)]
