"""The token account of a model call: the model's limits and a fast local estimate of a
request's input tokens, calibrated by the input tokens the provider reports.

No tokenizer ships for every provider (``tiktoken`` downloads its encodings at first use,
and Anthropic publishes none), so the estimate counts characters (about four per token in
English prose, fewer in JSON and code) and images at a flat rate, then multiplies by a
ratio learnt from the provider's own counts: ``reported / raw`` of the last call, smoothed.
The ratio is stored in the run's cursor with the response that taught it, so a run that
continues after a crash makes the same decisions it would have made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from panelot_host.engine.context import DEFAULT_MAX_TOKENS
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.types import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolSpec,
    Usage,
)

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1_600  # a 1,092 x 1,092 screenshot on Anthropic's (w * h / 750) rule
MESSAGE_OVERHEAD = 4  # role and framing tokens per message
DEFAULT_CONTEXT_WINDOW = 32_000  # unknown models: small enough for most local servers
DEFAULT_MAX_OUTPUT = DEFAULT_MAX_TOKENS
OUTPUT_CAP = 16_384  # what one call asks for at most, whatever the model allows
UNCALIBRATED_RATIO = 1.2  # before the provider reported anything: err on the large side
MIN_RATIO, MAX_RATIO = 0.5, 4.0
SMOOTHING = 0.5  # weight of the newest observation

_json = msgspec.json.Encoder()


class ModelLimits(msgspec.Struct, frozen=True):
    """How much a model reads and writes in one call."""

    context_window: int
    max_output_tokens: int  # what a request asks for (``max_tokens``)

    @property
    def input_budget(self) -> int:
        """Input tokens a request may hold: the window less the output it asks for."""
        return max(self.context_window - self.max_output_tokens, self.context_window // 4)


def model_limits(info: ModelInfo, settings: Mapping[str, Any]) -> ModelLimits:
    """The limits of ``info``'s model: the ``modelLimits`` setting for its id, else the
    catalog, else conservative defaults (``DEFAULT_CONTEXT_WINDOW``)."""
    override = settings.get("modelLimits", {}).get(info.id, {})
    window = int(override.get("contextWindow") or info.context_window or DEFAULT_CONTEXT_WINDOW)
    output = int(override.get("maxOutputTokens") or info.max_output_tokens or DEFAULT_MAX_OUTPUT)
    output = min(output, OUTPUT_CAP, window // 2)
    return ModelLimits(context_window=window, max_output_tokens=max(output, 1))


def text_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


class _Head(msgspec.Struct, frozen=True):
    """The raw tokens of a system prompt and tools: ``key`` is the prompt and the tools'
    ids, which ``tools`` (kept referenced) keep from being reused."""

    key: tuple[str, tuple[int, ...]]
    tokens: int
    tools: list[ToolSpec]


class TokenEstimator:
    """Raw (uncalibrated) token counts of messages, each message counted once.

    Messages are immutable, so a count is kept per message object (with a reference, so
    its id cannot be reused) and a long thread costs what each request added.
    """

    def __init__(self) -> None:
        self._counted: dict[int, tuple[Message, int]] = {}
        self._head: _Head | None = None

    def of(self, message: Message) -> int:
        """Raw tokens of one message."""
        known = self._counted.get(id(message))
        if known is None or known[0] is not message:
            known = self._counted[id(message)] = (message, message_tokens(message))
        return known[1]

    def messages(self, messages: Sequence[Message]) -> int:
        """Raw tokens of ``messages``."""
        total = sum(self.of(message) for message in messages)
        self.forget_unless(messages)
        return total

    def forget_unless(self, messages: Sequence[Message]) -> None:
        """Keep memory bounded: once the counts outnumber ``messages`` well, forget the
        messages that are no longer sent."""
        counted = self._counted
        if len(counted) > 4 * len(messages) + 1024:
            self._counted = {id(m): counted[id(m)] for m in messages if id(m) in counted}

    def request(self, system: str, tools: Sequence[ToolSpec], messages: Sequence[Message]) -> int:
        return self.head(system, tools) + self.messages(messages)

    def head(self, system: str, tools: Sequence[ToolSpec]) -> int:
        """Raw tokens of the system prompt and the tools (the same run after run: kept)."""
        key = (system, tuple(id(t) for t in tools))
        if self._head is None or self._head.key != key:
            self._head = _Head(key, text_tokens(system) + tools_tokens(tools), list(tools))
        return self._head.tokens


def tools_tokens(tools: Sequence[ToolSpec]) -> int:
    return sum(
        text_tokens(t.name) + text_tokens(t.description) + len(_json.encode(t.parameters)) // 4
        for t in tools
    )


def message_tokens(message: Message) -> int:
    """Raw tokens of one message: characters / 4, images at ``IMAGE_TOKENS``."""
    total = MESSAGE_OVERHEAD
    if isinstance(message, AssistantMessage):
        for part in message.content:
            if isinstance(part, TextPart):
                total += text_tokens(part.text)
            elif isinstance(part, ThinkingPart):
                total += text_tokens(part.text) + text_tokens(part.redacted_data or "")
            elif isinstance(part, ToolCallPart):
                total += text_tokens(part.name) + len(_json.encode(part.args)) // 4 + 8
        return total
    if isinstance(message, ToolResultMessage):
        total += 8
    for content in message.content:
        if isinstance(content, ImagePart):
            total += IMAGE_TOKENS
        else:
            total += text_tokens(content.text)
    return total


def reported_input(usage: Usage) -> int:
    """Every input token of a call as the provider counted it (cache reads and writes too)."""
    return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens


def calibrated_ratio(previous: float, raw_estimate: int, usage: Usage) -> float:
    """The ratio after a call whose request was estimated at ``raw_estimate`` raw tokens
    and reported as ``usage``; unchanged when the provider reported no input."""
    reported = reported_input(usage)
    if reported <= 0 or raw_estimate <= 0:
        return previous
    observed = min(max(reported / raw_estimate, MIN_RATIO), MAX_RATIO)
    if previous <= 0:
        return observed
    return round(SMOOTHING * observed + (1 - SMOOTHING) * previous, 4)


def effective_ratio(ratio: float) -> float:
    """The ratio to apply: the calibrated one, or ``UNCALIBRATED_RATIO`` before any call."""
    return ratio if ratio > 0 else UNCALIBRATED_RATIO
