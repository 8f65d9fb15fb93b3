"""Items: the nodes of a thread's tree, as sent in ``item.*`` events and snapshots.

A tagged union on ``kind``. Every item has ``id``, ``kind``, ``turnId`` and ``createdAt``;
the kind-specific fields follow `docs/protocol.md`, "Items". Fields marked *extension* are
additions beyond the design, always optional.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from panelot_host.protocol.common import (
    Effect,
    Id,
    ImageMediaType,
    Target,
    Timestamp,
    ToolCallStatus,
    ToolLevel,
    ToolResult,
)
from panelot_host.protocol.frames import FrameInfo, FrameSkip
from panelot_host.protocol.workflows import DecidedBy


class ImageAttachment(
    msgspec.Struct,
    tag_field="type",
    tag="image",
    rename="camel",
    omit_defaults=True,
    forbid_unknown_fields=True,
):
    """An image sent with a user message; ``data`` is base64 (no data: prefix)."""

    media_type: ImageMediaType
    data: str
    name: str | None = None


class _ItemBase(msgspec.Struct, tag_field="kind", rename="camel", omit_defaults=True, kw_only=True):
    id: Id
    turn_id: Id
    created_at: Timestamp
    parent_id: Id | None = None
    """Extension: the previous node on this item's branch (None for a thread's first item)."""


class UserItem(_ItemBase, tag="user", kw_only=True):
    """The user's message that started a Turn."""

    text: str
    attachments: list[ImageAttachment] = []
    """Extension: images sent with the message."""


class SteeringItem(_ItemBase, tag="steering", kw_only=True):
    """Input sent during a running Turn, admitted at the next model call."""

    text: str


class AssistantItem(_ItemBase, tag="assistant", kw_only=True):
    """One model response's text; ``interrupted`` when the stream was cut off."""

    text: str = ""
    thinking: str | None = None
    interrupted: bool = False


AllowedBy = Literal["grant", "policy"]
"""What let a call through without asking: a standing decision of the user's (a grant),
or a policy rule."""


class ToolCallItem(_ItemBase, tag="toolCall", kw_only=True):
    """A tool call and, once settled, its result."""

    call_id: str
    name: str
    args: dict[str, Any]
    status: ToolCallStatus
    result: ToolResult | None = None
    label: str | None = None
    """Extension: the tool's human label."""
    level: ToolLevel | None = None
    """Extension: the tool's level (L0/L1/L2)."""
    effects: list[Effect] = []
    """Extension: the tool's effects."""
    evidence: dict[str, Any] | None = None
    """Extension, on ``uncertain`` calls: what was attempted (``attempted {tool, args}``),
    on which ``target``, and the tab's ``lastKnown {url, title, origin}`` as the shim
    reported it after reconnecting, so the user can decide succeeded / failed / retry."""
    target: Target | None = None
    """Extension: what the call acts on (the tab, its origin and title, the element its ref
    names), as resolved when it started running; null until then and for calls on no tab."""
    started_at: Timestamp | None = None
    """Extension: when the call started running (null until it ran)."""
    ended_at: Timestamp | None = None
    """Extension: when its result was stored."""
    decided_by: DecidedBy | None = None
    """Extension, on a workflow run's calls (``workflow.run``): ``workflow`` when the
    player replayed a saved step, ``model`` when the model decided it after a divergence.
    Absent on the calls of ordinary Turns (the model decided them)."""
    frames: list[FrameInfo] = []
    """Extension (issue 30): the frames captured around the call, in order (a ``before``
    frame first when there is one); ``frame.get`` returns one with its image."""
    frame_skipped: FrameSkip | None = None
    """Extension: why a call that acts on a page has no frame."""
    allowed_by: AllowedBy | None = None
    """Extension: what let the call run without asking the user: ``grant`` (a standing
    decision the user gave earlier) or ``policy`` (a policy rule in settings). Absent when
    the user was asked (see the approval) or the call needed no approval."""
    allowed_because: str | None = None
    """Extension, with ``allowedBy``: the Gatekeeper's reason in words."""


class NoticeItem(_ItemBase, tag="notice", kw_only=True):
    """A message from the engine (failure-streak nudge, budget pause, provider retry...)."""

    code: str
    text: str
    user_text: str | None = None
    """Extension: the notice in the user's words, when ``text`` is what the engine told the
    model (the failure-streak notices); clients show it instead of ``text``."""


class CompactionItem(_ItemBase, tag="compaction", kw_only=True):
    """A summary of the oldest part of the branch, written by the engine when the context
    neared the model's window: later model calls send ``summary`` instead of the items
    up to and including ``throughItemId``. Those items stay stored and shown; the panel
    shows this item as a divider that expands to the summary."""

    summary: str
    through_item_id: Id
    """The last item the summary covers (on this item's branch)."""
    covered_items: int = 0
    """How many items of the branch the summary replaces in the model's context."""
    tokens_before: int = 0
    """Estimated input tokens of the context before compaction."""
    tokens_after: int = 0
    """Estimated input tokens of the context with the summary."""
    model: str = ""
    """The model that wrote the summary."""


Item = UserItem | SteeringItem | AssistantItem | ToolCallItem | NoticeItem | CompactionItem
"""Any item; decode with ``msgspec.json.decode(data, type=Item)``."""

ITEM_KINDS: tuple[str, ...] = ("user", "steering", "assistant", "toolCall", "notice", "compaction")
