"""Small shared types of the wire: constrained scalars, enums as Literals, content blocks.

Everything here is a ``msgspec`` type with camelCase wire names. Constraints live in
``msgspec.Meta`` so that both the decoder and the generated JSON Schema enforce them. The
domain's enums (statuses, states, scopes) are defined once in ``panelot_host.vocabulary``,
below both the protocol and the store, and re-exported here.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec
from msgspec import Meta

from panelot_host import vocabulary

OLDEST_PROTOCOL_VERSION: Final = 1
"""The oldest protocol version this host still speaks (``initialize`` negotiates)."""
NEWEST_PROTOCOL_VERSION: Final = 1
"""The newest protocol version this host speaks."""
PROTOCOL_VERSION: Final = NEWEST_PROTOCOL_VERSION
"""The version this package's structs and schema describe: the newest spoken."""

# ---------------------------------------------------------------- scalars

Timestamp = Annotated[
    str,
    Meta(
        description="ISO-8601 instant in UTC with milliseconds and a Z suffix, "
        "e.g. 2025-01-31T12:34:56.789Z",
        examples=["2025-01-31T12:34:56.789Z"],
    ),
]
"""Every ``createdAt``/``updatedAt``/``startedAt``/``endedAt`` on the wire."""

Id = Annotated[str, Meta(min_length=1, max_length=256)]
"""A host-issued identifier (thread, item, turn, run, request, ...). Opaque to clients."""

CommandId = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=256,
        description="Client-chosen unique id of a state-changing command (receipts)",
    ),
]

Text = Annotated[str, Meta(min_length=1, max_length=1_000_000)]
"""Non-empty user-authored text (steering, queue entries)."""

Title = Annotated[str, Meta(min_length=1, max_length=200)]

TokenBudget = Annotated[int, Meta(gt=0, description="Tokens (input+output+cache) per Turn")]

CostBudgetUsd = Annotated[
    float,
    Meta(
        gt=0,
        le=100_000,
        description="US dollars a Turn may spend on model calls (needs a model with a known price)",
    ),
]

Seq = Annotated[
    int, Meta(ge=1, description="Per-thread event sequence number, strictly increasing")
]

TokenCount = Annotated[int, Meta(ge=0)]

CostUsd = Annotated[float, Meta(ge=0)]


class ProtocolVersions(msgspec.Struct, frozen=True, kw_only=True):
    """A range of protocol versions a peer speaks, both ends included."""

    oldest: Annotated[int, Meta(ge=1)]
    newest: Annotated[int, Meta(ge=1)]


HOST_PROTOCOL_VERSIONS: Final = ProtocolVersions(
    oldest=OLDEST_PROTOCOL_VERSION, newest=NEWEST_PROTOCOL_VERSION
)


# ---------------------------------------------------------------- enums

ErrorKind = Literal[
    "not_initialized",
    "not_found",
    "invalid_state",
    "stale_turn",
    "turn_active",
    "queue_full",
    "conflict",
    "thread_busy",
    "capability",
    "drift",
    "too_large",
    "provider",
    "tool",
    "storage",
    "internal",
    "context_overflow",
]
"""``data.kind`` of engine errors and ``turn.complete.error.kind`` (``storage`` and
``internal``: extensions; ``context_overflow`` was added with context compaction)."""

# The domain's enums, defined once below the protocol and the store (the wire's values).
ApprovalScope = vocabulary.ApprovalScope
Decision = vocabulary.Decision
Effect = vocabulary.Effect
GrantScope = vocabulary.GrantScope
InteractionAction = vocabulary.InteractionAction
PauseReason = vocabulary.PauseReason
BudgetKind = vocabulary.BudgetKind
RecoveryClass = vocabulary.RecoveryClass
RecoveryOutcome = vocabulary.RecoveryOutcome
RunState = vocabulary.RunState
StopReason = vocabulary.StopReason
TitleSource = vocabulary.TitleSource
ToolCallStatus = vocabulary.ToolCallStatus
ToolLevel = vocabulary.ToolLevel
TurnEndStatus = vocabulary.TurnEndStatus
TurnStatus = vocabulary.TurnStatus

ImageMediaType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]

# ---------------------------------------------------------------- content


class TextBlock(msgspec.Struct, tag_field="type", tag="text", rename="camel", frozen=True):
    """A text block of a tool result."""

    text: str


class ImageBlock(msgspec.Struct, tag_field="type", tag="image", rename="camel", frozen=True):
    """An image block of a tool result; ``data`` is base64 without a data: prefix."""

    media_type: str
    data: str


ContentBlock = TextBlock | ImageBlock

ToolContent = str | list[ContentBlock]
"""Model-facing tool output: a string or a list of text/image blocks."""


class ToolResult(msgspec.Struct, rename="camel", omit_defaults=True, frozen=True):
    """A settled tool call's result. ``details`` is UI-only data (screenshots, diffs...)."""

    content: ToolContent
    is_error: bool
    details: Any | None = None


class Usage(msgspec.Struct, rename="camel", frozen=True):
    """Token counts; ``input_tokens`` excludes cache reads and writes (Anthropic's convention)."""

    input_tokens: TokenCount = 0
    output_tokens: TokenCount = 0
    cache_read_tokens: TokenCount = 0
    cache_write_tokens: TokenCount = 0
    reasoning_tokens: TokenCount = 0
    """Extension: of ``output_tokens``, the model's hidden reasoning (OpenAI reports it;
    already counted and billed in ``output_tokens``); 0 when the provider reports none."""


class TurnError(msgspec.Struct, rename="camel", frozen=True):
    """Why a Turn failed."""

    kind: ErrorKind
    message: str


class Target(msgspec.Struct, rename="camel", omit_defaults=True, frozen=True):
    """What a tool call acts on (approval requests): a tab and its origin, when known.

    For a call that loads a URL (``browser_navigate``, ``browser_tab_new`` with a URL),
    ``origin`` is the destination's, the one the decision is about."""

    origin: str | None = None
    tab_id: int | None = None
    url: str | None = None
    """Extension: the URL a navigation loads."""
    current_url: str | None = None
    """Extension: where the tab is now, for a navigation."""
    current_origin: str | None = None
    """Extension: the origin the tab is on now, for a navigation (it is left)."""
    title: str | None = None
    """Extension: the tab's title, so the card can say which tab."""
    element: str | None = None
    """Extension: the element the call's ref names, as the tab's latest snapshot showed it
    (``button "Pay"``)."""


class ToolInfo(msgspec.Struct, rename="camel", frozen=True):
    """The descriptor facts an approval dialog shows."""

    name: str
    label: str
    level: ToolLevel
    effects: list[Effect] = []
