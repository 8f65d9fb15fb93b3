"""The normalised model protocol: what the engine sends to a provider and what comes back.

Provider adapters translate these to and from their wire formats; the engine builds
``ModelRequest`` from the selected branch of a thread and consumes ``ProviderEvent``s.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Literal, Protocol

import msgspec

# ---------------------------------------------------------------- request content
# Messages and their parts are immutable trees (no reference cycles), so they are not
# tracked by the garbage collector (``gc=False``): rebuilding or decoding a long thread's
# messages then costs no collections.


class TextPart(msgspec.Struct, tag="text", frozen=True, gc=False):
    text: str


class ImagePart(msgspec.Struct, tag="image", frozen=True, gc=False):
    media_type: str
    data: str  # base64


class ThinkingPart(msgspec.Struct, tag="thinking", frozen=True, gc=False):
    """Extended thinking; ``signature`` must be sent back unchanged (Anthropic).

    A reasoning item of the OpenAI Responses API has ``item_id`` (its ``rs_`` id) and
    ``encrypted_content`` (the opaque chain of thought, sent back unchanged within the
    turn); its ``text`` is the reasoning summary. Each API sends back only its own kind.
    """

    text: str
    signature: str | None = None
    redacted_data: str | None = None  # Anthropic redacted_thinking blocks
    item_id: str | None = None  # OpenAI Responses reasoning item
    encrypted_content: str | None = None  # OpenAI Responses reasoning item


class ToolCallPart(msgspec.Struct, tag="tool_call", frozen=True, gc=False):
    call_id: str
    name: str
    args: dict[str, Any]


UserContent = TextPart | ImagePart
AssistantContent = TextPart | ThinkingPart | ToolCallPart


class UserMessage(msgspec.Struct, tag="user", frozen=True, gc=False):
    content: list[UserContent]
    # what the user added to a running Turn (steering): the Turn goes on, so its
    # reasoning so far still belongs with it (``responses_request``)
    steering: bool = False


class AssistantMessage(msgspec.Struct, tag="assistant", frozen=True, gc=False):
    content: list[AssistantContent]


class ToolResultMessage(msgspec.Struct, tag="tool_result", frozen=True, gc=False):
    call_id: str
    name: str
    content: list[UserContent]
    is_error: bool = False
    tab_id: int | None = None  # the browser tab the result describes (engine-side; not sent)
    denied: bool = False  # the Gatekeeper or the user refused the call (engine-side; not sent)


Message = UserMessage | AssistantMessage | ToolResultMessage


class ToolSpec(msgspec.Struct, frozen=True):
    """One tool as offered to a model: derived from an ``AgentTool`` descriptor."""

    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments (object)


RequestPurpose = Literal["turn", "summary"]
ReasoningEffort = Literal["low", "medium", "high"]


class ModelRequest(msgspec.Struct, frozen=True):
    model: str
    system: str
    messages: list[Message]
    tools: list[ToolSpec] = []
    max_tokens: int = 8192
    thinking_budget: int | None = None  # tokens; None: no extended thinking
    reasoning_effort: ReasoningEffort | None = None  # OpenAI reasoning models; None: default
    temperature: float | None = None
    stable_prefix: int = 0  # messages[:stable_prefix] stay the same in the next requests
    purpose: RequestPurpose = "turn"  # "summary": a compaction's summary (scripted models)


# ---------------------------------------------------------------- stream events

StopReason = Literal[
    "end_turn", "tool_use", "max_tokens", "stop_sequence", "content_filter", "pause_turn"
]


class Usage(msgspec.Struct, frozen=True):
    """Tokens of one model call; ``input_tokens`` excludes cache reads and writes."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0  # of output_tokens (OpenAI reports them; billed as output)


class TextDelta(msgspec.Struct, tag="text_delta", frozen=True):
    text: str


class ThinkingDelta(msgspec.Struct, tag="thinking_delta", frozen=True):
    text: str = ""
    signature: str | None = None  # arrives once, at the end of a thinking block
    redacted_data: str | None = None
    item_id: str | None = None  # a Responses reasoning item's end: its id ...
    encrypted_content: str | None = None  # ... and its encrypted content


class ToolCallStart(msgspec.Struct, tag="tool_call_start", frozen=True):
    index: int  # position of the call within this assistant message
    call_id: str  # may be "" when the server sent none; the engine normalises it
    name: str


class ToolCallArgsDelta(msgspec.Struct, tag="tool_call_args", frozen=True):
    index: int
    fragment: str


class ToolCallEnd(msgspec.Struct, tag="tool_call_end", frozen=True):
    """The call's arguments are complete; ``error`` is set when they could not be used (not
    valid JSON, not an object, nested too deeply: ``providers.toolargs``)."""

    index: int
    args: dict[str, Any]
    error: str | None = None


class RetryNotice(msgspec.Struct, tag="retry", frozen=True):
    """A retry before the first token; the engine shows it ("retrying in 4 s, attempt 2/5")."""

    attempt: int
    max_attempts: int
    delay_s: float
    reason: str


class MessageStop(msgspec.Struct, tag="stop", frozen=True):
    """The message is complete.

    ``usage_reported`` is False when the server sent no usage (some OpenAI-compatible
    servers): ``usage`` is then all zeros and the call's cost is unknown, not 0.
    """

    stop_reason: StopReason
    usage: Usage
    model: str = ""
    usage_reported: bool = True


ProviderEvent = (
    TextDelta
    | ThinkingDelta
    | ToolCallStart
    | ToolCallArgsDelta
    | ToolCallEnd
    | RetryNotice
    | MessageStop
)


class Provider(Protocol):
    """The one seam between the engine and a model.

    ``stream`` yields normalised events and ends after ``MessageStop``. It raises a
    ``ProviderError`` subclass on failure. Closing or cancelling the iteration closes the
    HTTP response at once.
    """

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]: ...
