"""Events: the params of host -> client notifications (`docs/protocol.md`, "Events
(host -> client notifications)").

Every thread-scoped event carries ``threadId`` and ``seq`` (per thread, strictly
increasing, stored). ``$/chunk`` and ``$/error`` are connection-level and carry neither.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from panelot_host.protocol.common import (
    ApprovalScope,
    BudgetKind,
    CostBudgetUsd,
    CostUsd,
    Decision,
    Id,
    InteractionAction,
    PauseReason,
    RunState,
    Seq,
    StopReason,
    TurnEndStatus,
    TurnError,
    Usage,
)
from panelot_host.protocol.entities import (
    ApprovalRequest,
    InteractionRequest,
    QueueEntry,
    Thread,
)
from panelot_host.protocol.items import Item
from panelot_host.protocol.workflows import WorkflowRunRecord


class ThreadEvent(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Base of thread-scoped events."""

    thread_id: Id
    seq: Seq


class ThreadUpdatedEvent(ThreadEvent, kw_only=True):
    """``thread.updated``: title or stats changed."""

    thread: Thread


class TurnStartedEvent(ThreadEvent, kw_only=True):
    """``turn.started``: the first event of a Turn."""

    turn_id: Id
    run_id: Id
    user_item_id: Id


class ItemStartedEvent(ThreadEvent, kw_only=True):
    """``item.started``: an item appeared (possibly still growing by ``item.delta``)."""

    turn_id: Id
    item: Item


class ItemCompletedEvent(ThreadEvent, kw_only=True):
    """``item.completed``: the item's final state."""

    turn_id: Id
    item: Item


class ItemUpdatedEvent(ThreadEvent, kw_only=True):
    """``item.updated`` (extension): an item changed before completing. Sent when a tool
    call starts running: ``status`` ``running``, ``startedAt`` and ``target`` set, so a
    client can say what is being done, and where, while it runs."""

    turn_id: Id
    item: Item


class ItemDelta(msgspec.Struct, rename="camel", omit_defaults=True):
    """Exactly one of: ``text`` / ``thinking`` (appended to the assistant item's field) or
    ``progress`` (a tool's progress report, replacing the previous one)."""

    text: str | None = None
    thinking: str | None = None
    progress: str | dict[str, Any] | None = None


class ItemDeltaEvent(ThreadEvent, kw_only=True):
    """``item.delta``: incremental content of a started item."""

    turn_id: Id
    item_id: Id
    delta: ItemDelta


class ApprovalRequestEvent(ApprovalRequest, kw_only=True):
    """``approval.request``: a tool call waits for ``approval.response``."""

    thread_id: Id
    seq: Seq


class ApprovalResolvedEvent(ApprovalRequestEvent, kw_only=True):
    """``approval.resolved``: the request's fields plus the decision (by any client)."""

    decision: Decision
    scope: ApprovalScope
    cancelled: bool = False
    """Extension: the request was withdrawn (its Turn was interrupted or failed) before the
    user decided; ``decision`` is then ``deny`` and nothing was executed."""


class InteractionRequestEvent(InteractionRequest, kw_only=True):
    """``interaction.request``: a question waits for ``interaction.response``."""

    thread_id: Id
    seq: Seq


class InteractionResolvedEvent(InteractionRequestEvent, kw_only=True):
    """``interaction.resolved``: the request's fields; ``action`` is an extension.
    The answered values are not repeated."""

    action: InteractionAction = "accept"


class QueueUpdatedEvent(ThreadEvent, kw_only=True):
    """``queue.updated``: the whole queue after any change."""

    queue: list[QueueEntry]


class RunUpdatedEvent(ThreadEvent, kw_only=True):
    """``run.updated``: the run changed state."""

    run_id: Id
    state: RunState
    turn_id: Id | None = None
    """Extension."""
    wait_reason: str | None = None
    """Extension: with ``state`` ``queued``, why the run waits for a slot, in words for the
    user (``maxParallelTurns`` Turns already run); absent otherwise."""


class TurnPausedEvent(ThreadEvent, kw_only=True):
    """``turn.paused``: a budget reached, or a tool outcome is uncertain."""

    turn_id: Id
    reason: PauseReason
    run_id: Id | None = None
    """Extension: the run to pass to ``run.resume``."""
    budget_reached: BudgetKind | None = None
    """Extension: with ``reason`` budget, which budget was reached (tokens or cost)."""
    cost_budget_usd: CostBudgetUsd | None = None
    """Extension: the Turn's budget in US dollars, if any (what a plain resume gives again)."""
    cost_usd: CostUsd | None = None
    """Extension: with ``reason`` budget, the Turn's cost so far (null: unknown)."""


class TurnCompleteEvent(ThreadEvent, kw_only=True):
    """``turn.complete``: sent after every write of the Turn committed; the thread is idle.
    ``costUsd`` is always present (null when the price is unknown). ``workflow``: a
    workflow run's record, as ``Turn.workflow`` (absent for any other Turn)."""

    turn_id: Id
    status: TurnEndStatus
    usage: Usage
    cost_usd: CostUsd | None
    stop_reason: StopReason | None = None
    error: TurnError | None = None
    workflow: WorkflowRunRecord | None = None


class ChunkEvent(msgspec.Struct, rename="camel"):
    """``$/chunk``: slice ``index`` of ``count`` of a too-large message's JSON text."""

    chunk_id: Annotated[str, Meta(min_length=1, max_length=256)]
    index: Annotated[int, Meta(ge=0)]
    count: Annotated[int, Meta(ge=1)]
    data: str


AuthorityKind = Literal[
    "base_url", "credential_origin", "mcp_command", "mcp_url", "policy_allow", "policy_loosened"
]


class AuthorityChange(msgspec.Struct, rename="camel", frozen=True):
    """One change that lets something happen with less asking or reach further."""

    kind: AuthorityKind
    summary: str


class AuthorityWidenedEvent(msgspec.Struct, rename="camel"):
    """``authority.widened`` (extension, connection-level, to every connection): a
    ``settings.update`` or ``credentials.set`` just widened what the agent may do without
    asking or where a key goes (model requests to a new origin, a command MCP server that
    runs as the user or its new environment variables and directory, a policy rule that
    allows without approval, a rule that denied or asked removed or loosened, a key bound
    to a new origin). The panel shows it, so a bug or a confused click cannot widen
    authority silently."""

    command_id: str
    changes: list[AuthorityChange]


class ErrorEvent(msgspec.Struct, rename="camel", omit_defaults=True):
    """``$/error``: a framing-level problem (the frame had no readable id).

    ``code`` is a JSON-RPC code (see ``jsonrpc``); ``kind`` (extension) names the problem
    for machines: ``parse_error``, ``invalid_request``, ``frame_too_large``,
    ``truncated_frame``.
    """

    code: int
    message: str
    kind: str | None = None
