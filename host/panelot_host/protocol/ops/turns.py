"""Turn ops: submit, steer, enqueue, queue edits, interrupt, approvals, interactions,
resume and recovery."""

from __future__ import annotations

import binascii
from typing import Annotated, Any

from msgspec import Meta

from panelot_host.protocol.common import (
    ApprovalScope,
    CommandId,
    CostBudgetUsd,
    Decision,
    Id,
    InteractionAction,
    RecoveryOutcome,
    Text,
    TokenBudget,
    TokenCount,
)
from panelot_host.protocol.entities import QueueEntry
from panelot_host.protocol.items import ImageAttachment
from panelot_host.protocol.ops._base import EmptyResult, Params, Result
from panelot_host.protocol.tabs import SharedTab

MAX_ATTACHMENTS = 20


class TurnSubmitParams(Params, kw_only=True):
    """Start a Turn. ``text`` may be empty only when ``attachments`` is not."""

    command_id: CommandId
    thread_id: Id
    text: Annotated[str, Meta(max_length=1_000_000)]
    attachments: Annotated[list[ImageAttachment], Meta(max_length=MAX_ATTACHMENTS)] = []
    model: Annotated[str, Meta(min_length=1, max_length=200)] | None = None
    token_budget: TokenBudget | None = None
    cost_budget_usd: CostBudgetUsd | None = None
    """Extension: US dollars the Turn may spend; ``capability`` when the model's price is
    unknown. Default: the ``defaultCostBudgetUsd`` setting."""
    share_tab: SharedTab | None = None
    """Extension: the tab active in the user's window as they sent the message; when the
    ``shareActiveTab`` setting is on, the host hands it to the thread (as
    ``thread.shareTab``), else it is ignored."""

    def __post_init__(self) -> None:
        if not self.text and not self.attachments:
            raise ValueError("text must not be empty when there are no attachments")
        for index, attachment in enumerate(self.attachments):
            try:
                binascii.a2b_base64(attachment.data, strict_mode=True)
            except (binascii.Error, ValueError):
                raise ValueError(f"attachments[{index}].data is not valid base64") from None


class TurnSubmitResult(Result, kw_only=True):
    turn_id: Id


class TurnSteerParams(Params, kw_only=True):
    command_id: CommandId
    thread_id: Id
    expected_turn_id: Id
    text: Text


class TurnSteerResult(Result, kw_only=True):
    item_id: Id


class TurnEnqueueParams(Params, kw_only=True):
    command_id: CommandId
    thread_id: Id
    text: Text


class TurnEnqueueResult(Result, kw_only=True):
    entry_id: Id
    position: TokenCount


class QueueUpdateParams(Params, kw_only=True):
    """Edit a queued entry's text and/or (extension) move it to ``position``."""

    command_id: CommandId
    thread_id: Id
    entry_id: Id
    text: Text | None = None
    position: Annotated[int, Meta(ge=0)] | None = None


class QueueRemoveParams(Params, kw_only=True):
    """Remove a queued entry. ``text`` is accepted for symmetry with ``queue.update``
    (protocol.md lists it for both) and ignored."""

    command_id: CommandId
    thread_id: Id
    entry_id: Id
    text: str | None = None


class QueueResult(Result, kw_only=True):
    """``{queue}``: the thread's queue after the change, in order."""

    queue: list[QueueEntry]


QueueUpdateResult = QueueResult
QueueRemoveResult = QueueResult


class TurnInterruptParams(Params, kw_only=True):
    thread_id: Id
    turn_id: Id | None = None


TurnInterruptResult = EmptyResult


class ApprovalResponseParams(Params, kw_only=True):
    command_id: CommandId
    request_id: Id
    decision: Decision
    scope: ApprovalScope
    message: Annotated[str, Meta(max_length=10_000)] | None = None


ApprovalResponseResult = EmptyResult


class InteractionResponseParams(Params, kw_only=True):
    """Answer an interaction. ``action`` (extension, as MCP elicitation): ``accept`` with
    ``values`` matching the request's schema, or ``decline``/``cancel``."""

    command_id: CommandId
    interaction_id: Id
    values: dict[str, Any] = {}
    action: InteractionAction = "accept"


InteractionResponseResult = EmptyResult


class RunResumeParams(Params, kw_only=True):
    command_id: CommandId
    thread_id: Id
    run_id: Id
    token_budget: TokenBudget | None = None
    cost_budget_usd: CostBudgetUsd | None = None
    """Extension: US dollars the Turn may spend beyond what it has spent."""


RunResumeResult = EmptyResult


class RecoveryResolveParams(Params, kw_only=True):
    command_id: CommandId
    tool_call_id: Id
    outcome: RecoveryOutcome


RecoveryResolveResult = EmptyResult
