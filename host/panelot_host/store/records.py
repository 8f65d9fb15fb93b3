"""Rows of the store as msgspec Structs. The server maps them to protocol structs.

States, statuses and kinds are typed with ``panelot_host.vocabulary``, the types the
protocol's structs use, so a record's value goes on the wire without a conversion.
"""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.protocol.frames import FrameSkip
from panelot_host.protocol.items import AllowedBy
from panelot_host.protocol.tabs import ThreadTabs
from panelot_host.protocol.workflows import DecidedBy
from panelot_host.vocabulary import (
    ApprovalScope,
    ApprovalState,
    Decision,
    Effect,
    GrantScope,
    InteractionState,
    ItemKind,
    RecoveryClass,
    RunState,
    SteeringState,
    StopReason,
    TitleSource,
    ToolCallStatus,
    ToolLevel,
    TurnStatus,
)


class ThreadStats(msgspec.Struct, frozen=True):
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = 0.0
    reasoning_tokens: int = 0  # of output_tokens


class ThreadRecord(msgspec.Struct, frozen=True):
    id: str
    title: str
    title_source: TitleSource
    parent_thread_id: str | None
    forked_from_item_id: str | None
    head_item_id: str | None
    created_at: int
    updated_at: int
    stats: ThreadStats
    last_turn_status: TurnStatus | None = None
    """The status of the thread's latest Turn (None: no Turn yet)."""
    last_run_state: RunState | None = None
    """The state of that Turn's latest Run."""
    tab_group: ThreadTabs | None = None
    """The tabs the thread owns (``store.tabs``), None when it never had any."""


class CallEvidence(msgspec.Struct, frozen=True, rename="camel"):
    """What the user decides an ``uncertain`` call's outcome on (the wire's ``evidence``):
    the call attempted, the target it started on, and, once the shim reconnected, the
    tab's ``lastKnown`` URL and title (or the error resolving it)."""

    attempted: dict[str, Any] | None = None
    target: dict[str, Any] | None = None
    last_known: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET


class ToolCallExtra(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    """A tool call's data beyond its columns, stored as JSON in the item's ``extra``.

    Set when the call is stored: the tool's ``label``, ``level`` and ``effects`` (from its
    descriptor), the arguments' parse error and the provider's own call id when it had to
    be replaced. Set when it starts: its ``recovery`` class and the ``target`` it runs
    against, and when (``started_at``, ms), and what let it through unasked (``allowed_by``
    a grant or a policy rule, ``allowed_because``); ``ended_at`` when it settles, with why a
    call that acts on a page has no frame (``frame_skipped``, issue 30). Set when its
    outcome is unknown: the ``evidence``. Keys are the camelCase
    names rows have always been written with, so rows written before this struct read.
    """

    label: str | None = None
    level: ToolLevel | None = None
    effects: list[Effect] = []
    args_error: str | None = None
    provider_call_id: str | None = None
    recovery: RecoveryClass | None = None
    target: dict[str, Any] | None = None
    evidence: CallEvidence | None = None
    started_at: int | None = None
    ended_at: int | None = None
    decided_by: DecidedBy | None = None  # a workflow run's call: "workflow" or "model"
    frame_skipped: FrameSkip | None = None
    # a call the Gatekeeper let through without asking, on the user's standing decision
    # (a grant) or a policy rule, and its reason in words (the report names the decider)
    allowed_by: AllowedBy | None = None
    allowed_because: str | None = None


class ItemRecord(msgspec.Struct, frozen=True):
    """A stored item. A tool call's extra data is ``call_extra``; the other kinds keep
    theirs in ``extra`` (attachments, thinking blocks, a compaction's counts, a notice's
    code)."""

    id: str
    thread_id: str
    parent_id: str | None
    turn_id: str | None
    kind: ItemKind
    created_at: int
    text: str | None = None
    thinking: str | None = None
    extra: dict[str, Any] = {}
    interrupted: bool = False
    call_id: str | None = None
    name: str | None = None
    args: dict[str, Any] | None = None
    descriptor_digest: str | None = None
    batch_item_id: str | None = None
    batch_index: int | None = None
    status: ToolCallStatus | None = None
    result: dict[str, Any] | None = None
    call_extra: ToolCallExtra = ToolCallExtra()


class TurnUsage(msgspec.Struct, frozen=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = 0.0
    reasoning_tokens: int = 0  # of output_tokens (not added to the total again)

    @property
    def total(self) -> int:
        """What a token budget counts: input, output and cache tokens."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


class TurnRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    status: TurnStatus
    stop_reason: StopReason | None
    error: dict[str, str] | None
    user_item_id: str | None
    context: dict[str, Any]
    usage: TurnUsage
    started_at: int
    ended_at: int | None


class RunRef(msgspec.Struct, frozen=True):
    """Which run: of which Turn, of which thread (what the engine's run code carries)."""

    thread_id: str
    turn_id: str
    run_id: str


class RunRecord(msgspec.Struct, frozen=True):
    id: str
    turn_id: str
    thread_id: str
    state: RunState
    cursor: dict[str, Any]
    environment: dict[str, Any] | None
    environment_digest: str | None
    updated_at: int

    @property
    def ref(self) -> RunRef:
        return RunRef(self.thread_id, self.turn_id, self.id)


class ApprovalRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    turn_id: str
    tool_call_item_id: str
    request: dict[str, Any]
    state: ApprovalState
    decision: Decision | None
    scope: ApprovalScope | None
    message: str | None
    created_at: int
    decided_at: int | None


class InteractionRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    turn_id: str
    tool_call_item_id: str
    prompt: str
    schema: dict[str, Any]
    origin: str
    state: InteractionState
    response: dict[str, Any] | None
    created_at: int
    answered_at: int | None


class SteeringRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    turn_id: str
    text: str
    state: SteeringState
    created_at: int
    admitted_at_call: int | None
    attachments: list[Any] = []


class QueueEntryRecord(msgspec.Struct, frozen=True):
    id: str
    thread_id: str
    position: int
    text: str
    created_at: int


class GrantRecord(msgspec.Struct, frozen=True):
    id: str
    scope: GrantScope
    tool: str
    origin: str | None
    thread_id: str | None
    decision: Decision
    provenance: dict[str, Any]
    created_at: int
    revoked_at: int | None


class UsageRecord(msgspec.Struct, frozen=True):
    thread_id: str
    turn_id: str
    run_id: str
    model: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    created_at: int
    reasoning_tokens: int = 0  # of output_tokens


class CredentialRecord(msgspec.Struct, frozen=True):
    ref: str
    provider: str | None
    backend: str
    fingerprint: str
    created_at: int
    updated_at: int
