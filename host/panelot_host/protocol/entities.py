"""Entities shared by op results, events and snapshots: threads, turns, runs, queue
entries, approvals, interactions and grants.

The host builds them; clients decoding them should ignore unknown fields, since a newer
host may add optional ones.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from panelot_host.protocol.common import (
    ApprovalScope,
    BudgetKind,
    CostBudgetUsd,
    CostUsd,
    Decision,
    GrantScope,
    Id,
    PauseReason,
    RunState,
    StopReason,
    Target,
    Timestamp,
    TitleSource,
    TokenBudget,
    TokenCount,
    ToolInfo,
    TurnError,
    TurnStatus,
    Usage,
)
from panelot_host.protocol.items import Item, SteeringItem
from panelot_host.protocol.tabs import ThreadTabs
from panelot_host.protocol.workflows import WorkflowRunRecord


class ThreadStats(msgspec.Struct, rename="camel"):
    """Running totals over a thread's Turns. ``costUsd`` is null once any model call of the
    thread had no known price (never a made-up 0), like a Turn's ``costUsd``."""

    turns: TokenCount = 0
    input_tokens: TokenCount = 0
    output_tokens: TokenCount = 0
    cache_read_tokens: TokenCount = 0
    cache_write_tokens: TokenCount = 0
    cost_usd: CostUsd | None = 0.0
    reasoning_tokens: TokenCount = 0  # extension: of outputTokens, the hidden reasoning


ThreadStatus = Literal[
    "idle",
    "running",
    "waiting",
    "awaiting_approval",
    "awaiting_answer",
    "budget_paused",
    "paused_uncertain",
    "interrupted",
    "failed",
]
"""What a thread is doing, from its latest Turn and that Turn's Run (extension): ``idle``
(no Turn, or the last one completed), ``running``, ``waiting`` for a free slot (its Run is
``queued``: ``maxParallelTurns`` Turns already run; ``Run.waitReason`` says so), waiting
for the user (``awaiting_approval``, ``awaiting_answer``), paused until ``run.resume``
(``budget_paused``) or ``recovery.resolve`` (``paused_uncertain``), or the last Turn ended
``interrupted`` or ``failed`` (an interrupted Turn left by a restart can be resumed)."""


class Thread(msgspec.Struct, rename="camel", kw_only=True):
    """A conversation. ``parentThreadId``/``forkedFromItemId`` are null unless forked."""

    id: Id
    title: str
    title_source: TitleSource
    created_at: Timestamp
    updated_at: Timestamp
    stats: ThreadStats = msgspec.field(default_factory=ThreadStats)
    parent_thread_id: Id | None = None
    forked_from_item_id: Id | None = None
    status: ThreadStatus = "idle"
    """Extension: what the thread is doing (``thread.updated`` follows its changes)."""
    tab_group: ThreadTabs | None = None
    """Extension: the browser tabs the thread owns and its tab group (null: none yet)."""


class Turn(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """One user message and everything the engine did for it.

    ``costUsd`` is always present and null when the price is unknown.
    """

    id: Id
    status: TurnStatus
    user_item_id: Id
    started_at: Timestamp
    cost_usd: CostUsd | None
    usage: Usage = Usage()
    stop_reason: StopReason | None = None
    error: TurnError | None = None
    ended_at: Timestamp | None = None
    model: str | None = None
    """Extension: the model the Turn runs on."""
    token_budget: TokenBudget | None = None
    """Extension: the Turn's token budget, if any."""
    cost_budget_usd: CostBudgetUsd | None = None
    """Extension: the Turn's budget in US dollars, if any (per start or resume)."""
    budget_reached: BudgetKind | None = None
    """Extension: while paused for its budget, which one was reached."""
    pause_reason: PauseReason | None = None
    """Extension: set while ``status`` is ``paused``."""
    workflow: WorkflowRunRecord | None = None
    """Extension: on a workflow run's Turn (``workflow.run``), which steps were replayed
    without the model and where the run diverged (from there on the model decided)."""


class Run(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """The execution of a Turn; ``state`` follows architecture.md's run state machine."""

    id: Id
    turn_id: Id
    state: RunState
    wait_reason: str | None = None
    """Extension: with ``state`` ``queued``, why the Run waits, in words for the user (e.g.
    "3 tasks are already running; this one starts when one of them finishes")."""


class QueueEntry(msgspec.Struct, rename="camel", kw_only=True):
    """A message waiting to start a Turn after the current one (at most 8 per thread)."""

    id: Id
    position: TokenCount
    text: str
    created_at: Timestamp


class ApprovalRequest(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """A tool call waiting for the user's decision (also a ``thread.open`` pending entry)."""

    request_id: Id
    tool_call_id: Id
    tool: ToolInfo
    args: dict[str, Any]
    target: Target = Target()
    turn_id: Id | None = None
    """Extension: the Turn the call belongs to."""
    created_at: Timestamp | None = None
    """Extension."""
    carried: list[str] = []
    """Extension: text the Turn read from pages that the URL this call loads would carry
    to its destination. Such a call is always asked; the card shows this text."""
    read_from: list[str] = []
    """Extension: the origins whose page content the Turn read since the user's last
    message, other than the one this call delivers into (types into, clicks on, loads).
    Such a call is always asked, whatever grant covers its target; the card names them."""
    delivers: str | None = None
    """Extension: for a call that puts the model's input into its target, how, in words
    ("types into", "clicks on", "loads a page of"); the card's sentence with ``readFrom``."""
    reason: str | None = None
    """Extension: why the Gatekeeper asks, in words."""
    user_supplies: Literal["files"] | None = None
    """Extension: what the user gives on the card for this call only (``files``: picked
    for ``browser_upload_file``); only a one-time allow, with them, or a deny fits."""
    call_id: str | None = None
    """Extension: the ``callId`` that ``browser.invoke`` will carry for this call; what the
    user supplies reaches the shim keyed by it, never through the host."""
    tab_owner: str | None = None
    """Extension: whose tab the call acts on, in words ("your active tab", "a tab of the
    thread “Taxes”"), when the thread does not own it: such a call is always asked."""
    shares_tab: bool = False
    """Extension: allowing the call hands that tab (one of the user's) to the thread: it
    joins the thread's tab group, and the thread's later calls on it are not asked for it."""


class InteractionRequest(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """A question to the user (``ask_user``, MCP elicitation); ``schema`` describes
    the ``values`` that ``interaction.response`` must carry (a JSON Schema object)."""

    interaction_id: Id
    prompt: str
    schema: dict[str, Any]
    tool_call_id: Id | None = None
    """Extension: the tool call that asked."""
    created_at: Timestamp | None = None
    """Extension."""


class Grant(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """A standing permission the user gave (or a standing denial)."""

    id: Id
    scope: GrantScope
    tool: str
    """A tool name or pattern (``*`` wildcards)."""
    decision: Decision
    created_at: Timestamp
    origin: str | None = None
    thread_id: Id | None = None


class BranchChoice(msgspec.Struct, rename="camel", kw_only=True):
    """One of the sibling items at a branch point and the branch ``thread.selectBranch``
    selects for it: ``headItemId``, the newest item stored below it (or itself)."""

    item_id: Id
    head_item_id: Id


class BranchPoint(msgspec.Struct, rename="camel", kw_only=True):
    """An item of the selected branch that has siblings (a message sent again from the same
    place): ``choices`` holds it and its siblings, oldest first."""

    item_id: Id
    choices: list[BranchChoice]


class DecidedApproval(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """How the user answered the approval request of a tool call (``toolCallId``: the
    toolCall item, as in ``ApprovalRequest``)."""

    tool_call_id: Id
    decision: Decision
    scope: ApprovalScope | None = None


class ThreadSnapshot(msgspec.Struct, rename="camel", kw_only=True):
    """The ``thread.open`` (and ``thread.selectBranch``) result: everything a client needs
    to render a thread and continue from it. Events that follow have ``seq > lastSeq``."""

    thread: Thread
    items: list[Item]
    """The selected branch, oldest first."""
    turn: Turn | None
    run: Run | None
    pending_approvals: list[ApprovalRequest]
    pending_interactions: list[InteractionRequest]
    queue: list[QueueEntry]
    pending_steering: list[SteeringItem]
    """Acknowledged steering not yet admitted to a model call."""
    last_seq: TokenCount
    turns: list[Turn] = []
    """Extension: the thread's Turns, oldest first, for usage and cost per Turn."""
    branches: list[BranchPoint] = []
    """Extension: the items of the selected branch that have siblings, oldest first."""
    decided_approvals: list[DecidedApproval] = []
    """Extension (issue 30): the thread's answered approval requests, oldest first, so a
    turn's timeline marks the calls the user allowed or denied after a reload too."""
