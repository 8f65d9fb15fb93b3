"""**extension** The thread export document (issue 30): what ``thread.export`` answers with
``format: json`` and ``thread.import`` takes back. Versioned (``format``, ``version``); its
JSON Schema is generated from these structs (``thread_export_schema``) and committed as
``schema/thread-export.schema.json``.

A document holds a thread (or one of its Turns): every item of every branch, each after
its parent, as the protocol's ``Item`` structs; the Turns with their usage, cost and
model calls; the approvals, with their decision and who decided (the user on a card, a
standing grant, a policy rule); the frames captured around browser actions, described
without their images. Secrets are masked before a document is built.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec
from msgspec import Meta

from panelot_host.protocol.common import CostUsd, Id, Timestamp, TokenCount
from panelot_host.protocol.entities import ApprovalRequest, Thread, Turn
from panelot_host.protocol.frames import FrameInfo, FrameMime
from panelot_host.protocol.items import Item
from panelot_host.vocabulary import ApprovalScope, ApprovalState, Decision, RunState

THREAD_EXPORT_FORMAT: Final = "panelot.thread-export"
THREAD_EXPORT_VERSION: Final = 1

DecidedBy = Literal["user", "grant", "policy"]
"""Who decided a call: the user (on an approval card), a standing decision the user gave
before (a grant), or a policy rule."""


class ExportHost(msgspec.Struct, rename="camel", forbid_unknown_fields=True, kw_only=True):
    """The host that wrote the document."""

    version: Annotated[str, Meta(max_length=100)]


class ModelCall(msgspec.Struct, rename="camel", forbid_unknown_fields=True, kw_only=True):
    """One model call of a Turn: its model, tokens and cost (null: no known price)."""

    model: Annotated[str, Meta(max_length=500)]
    input_tokens: TokenCount = 0
    output_tokens: TokenCount = 0
    cache_read_tokens: TokenCount = 0
    cache_write_tokens: TokenCount = 0
    cost_usd: CostUsd | None = None
    created_at: Timestamp
    reasoning_tokens: TokenCount = 0  # of output_tokens (absent in older exports: 0)


class ExportTurn(Turn, forbid_unknown_fields=True, kw_only=True):
    """A Turn as ``thread.open`` shows it, with the state of its Run and its model calls."""

    run_state: RunState | None = None
    model_calls: list[ModelCall] = []


class ExportApproval(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """A tool call the Gatekeeper asked the user about (``request``, as the card showed
    it), or one it decided without asking (no ``request``: a grant or a policy rule
    denied it, or allowed it, ``reason`` saying which). ``toolCallId`` is the toolCall
    item's id."""

    tool_call_id: Id
    turn_id: Id
    state: ApprovalState = "decided"
    decision: Decision | None = None
    scope: ApprovalScope | None = None
    decided_by: DecidedBy | None = None
    message: Annotated[str, Meta(max_length=10_000)] | None = None
    request: ApprovalRequest | None = None
    decided_at: Timestamp | None = None
    reason: Annotated[str, Meta(max_length=10_000)] | None = None


class ExportFrame(FrameInfo, forbid_unknown_fields=True, kw_only=True):
    """A stored frame without its image: which call and Turn it belongs to, and what the
    page was."""

    item_id: Id
    turn_id: Id
    mime: FrameMime
    title: str = ""
    blurred: Annotated[int, Meta(ge=0)] = 0


class ThreadExportDocument(
    msgspec.Struct, rename="camel", forbid_unknown_fields=True, kw_only=True
):
    """A thread (or, with ``turnId``, one of its Turns) as ``thread.export`` writes it.

    ``items``: every item of every branch (of the Turn, with ``turnId``), each after its
    parent; ``headItemId`` ends the selected branch."""

    format: Literal["panelot.thread-export"]
    version: Literal[1]
    exported_at: Timestamp
    host: ExportHost
    thread: Thread
    head_item_id: Id | None = None
    turn_id: Id | None = None
    turns: list[ExportTurn]
    items: list[Item]
    approvals: list[ExportApproval] = []
    frames: list[ExportFrame] = []
