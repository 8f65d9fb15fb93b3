"""The host's domain vocabulary: item kinds, statuses and states as ``Literal`` types.

One definition for every layer: the protocol's structs (``protocol.common`` re-exports
these names, so the wire values are the ones below), the store's records and the engine's
code all use these types, so a value read from the store is already the wire's type.
Standard library only: it sits below ``protocol`` and ``store``, which both import it.

The run state machine (``docs/engine.md``, "Run states") is ``RUN_TRANSITIONS``: the
states a run may move to from each state. ``store.turns.update_run`` is the only writer
of a run's state and refuses any other move with ``IllegalTransition``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, get_args

ItemKind = Literal["user", "steering", "assistant", "toolCall", "compaction", "notice"]
"""``kind`` of an item (the protocol's tag of each item struct)."""

StopReason = Literal["end_turn", "max_tokens", "stop_sequence", "content_filter"]
TurnEndStatus = Literal["completed", "interrupted", "failed"]
TurnStatus = Literal["running", "paused", "completed", "interrupted", "failed"]
"""``running`` and ``paused`` (budget or uncertain tool call) are the live states."""

RunState = Literal[
    "queued",
    "streaming",
    "awaiting_approval",
    "awaiting_interaction",
    "executing_tool",
    "paused_uncertain",
    "budget_paused",
    "interrupted",
    "completed",
    "failed",
]

ToolCallStatus = Literal[
    "pending",
    "awaiting_approval",
    "running",
    "succeeded",
    "failed",
    "denied",
    "uncertain",
    "interrupted",
]

ToolLevel = Literal["L0", "L1", "L2"]
Effect = Literal["read", "write", "navigate", "network", "external"]
RecoveryClass = Literal["idempotent", "read", "write", "remote"]

Decision = Literal["allow", "deny"]
ApprovalScope = Literal["once", "thread", "origin"]
GrantScope = Literal["thread", "origin", "global"]
RecoveryOutcome = Literal["succeeded", "failed", "retry"]
PauseReason = Literal["budget", "uncertain", "needs_model"]
"""Why a Turn paused; ``needs_model`` (extension): a workflow run diverged and no model is
configured to take over (resumed by ``run.resume`` once one is)."""
BudgetKind = Literal["tokens", "cost"]
"""Which budget paused a Turn: its token budget or its budget in money."""
TitleSource = Literal["fallback", "model", "user"]
InteractionAction = Literal["accept", "decline", "cancel"]
"""How the user answered an ``interaction.request`` (MCP elicitation's actions)."""

ApprovalState = Literal["pending", "decided", "cancelled"]
InteractionState = Literal["pending", "answered", "cancelled"]
SteeringState = Literal["pending", "admitted"]
"""States of the approval, interaction and steering rows (the tables' CHECK constraints)."""

RUN_STATES: Final[tuple[RunState, ...]] = get_args(RunState)
INITIAL_RUN_STATES: Final[frozenset[RunState]] = frozenset({"queued", "streaming"})
FINAL_RUN_STATES: Final[frozenset[RunState]] = frozenset({"completed", "failed"})
ACTIVE_TURN_STATUSES: Final[tuple[TurnStatus, ...]] = ("running", "paused")

RUN_TRANSITIONS: Final[Mapping[RunState, frozenset[RunState]]] = {
    # Staying in a state is allowed: the cursor is written with it at each step.
    # ``queued``: waiting for one of the engine's slots (``maxParallelTurns``); a run enters
    # it from a state it works in, or as the user's answer ends a wait, and leaves it for
    # the state it continues in (after a restart, recovery may find a cut write:
    # ``paused_uncertain``).
    "queued": frozenset(
        {
            "queued",
            "streaming",
            "executing_tool",
            "awaiting_approval",
            "awaiting_interaction",
            "paused_uncertain",
            "interrupted",
            "failed",
        }
    ),
    "streaming": frozenset(
        {
            "streaming",
            "queued",
            "executing_tool",
            "awaiting_approval",
            "budget_paused",
            "interrupted",
            "completed",
            "failed",
        }
    ),
    "awaiting_approval": frozenset(
        {"awaiting_approval", "executing_tool", "streaming", "queued", "interrupted", "failed"}
    ),
    "executing_tool": frozenset(
        {
            "executing_tool",
            "streaming",
            "queued",
            "awaiting_approval",
            "awaiting_interaction",
            "paused_uncertain",
            "interrupted",
            "failed",
        }
    ),
    "awaiting_interaction": frozenset(
        {"awaiting_interaction", "executing_tool", "streaming", "queued", "interrupted", "failed"}
    ),
    # A paused or interrupted run resumes (run.resume, recovery.resolve) or is interrupted.
    "paused_uncertain": frozenset(
        {"paused_uncertain", "executing_tool", "streaming", "interrupted", "failed"}
    ),
    "budget_paused": frozenset({"budget_paused", "streaming", "interrupted", "failed"}),
    "interrupted": frozenset(
        {"interrupted", "streaming", "executing_tool", "paused_uncertain", "failed"}
    ),
    "completed": frozenset({"completed"}),
    "failed": frozenset({"failed"}),
}


def run_sources(target: RunState) -> tuple[RunState, ...]:
    """The states a run may be in to move to ``target`` (the table read backwards)."""
    return tuple(state for state in RUN_STATES if target in RUN_TRANSITIONS[state])
