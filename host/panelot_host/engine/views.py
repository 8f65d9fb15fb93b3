"""Store records -> protocol structs: what clients see of stored state."""

from __future__ import annotations

import base64
import functools
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgspec

from panelot_host.protocol import common, entities, items
from panelot_host.protocol import frames as frame_wire
from panelot_host.protocol.workflows import WorkflowRunRecord
from panelot_host.store.frames import FrameRecord
from panelot_host.store.records import (
    ApprovalRecord,
    InteractionRecord,
    ItemRecord,
    QueueEntryRecord,
    RunRecord,
    SteeringRecord,
    ThreadRecord,
    ToolCallExtra,
    TurnRecord,
)
from panelot_host.vocabulary import RunState, TurnStatus

_result_decoder = msgspec.json.Decoder(common.ToolResult)
_ID_FALLBACK = "none"
T = TypeVar("T")


def iso(ms: int) -> str:
    """Epoch milliseconds -> ``2025-01-31T12:34:56.789Z``."""
    return f"{_iso_second(ms // 1000)}.{ms % 1000:03d}Z"


@functools.lru_cache(maxsize=4096)
def _iso_second(seconds: int) -> str:
    # A pure function, memoised: items are created in bursts, so a 10,000-item snapshot
    # formats far fewer distinct seconds than items (formatting was its largest cost).
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")


def thread_view(record: ThreadRecord) -> entities.Thread:
    stats = record.stats
    return entities.Thread(
        id=record.id,
        title=record.title,
        title_source=record.title_source,
        created_at=iso(record.created_at),
        updated_at=iso(record.updated_at),
        stats=entities.ThreadStats(
            turns=stats.turns,
            input_tokens=stats.input_tokens,
            output_tokens=stats.output_tokens,
            cache_read_tokens=stats.cache_read_tokens,
            cache_write_tokens=stats.cache_write_tokens,
            cost_usd=stats.cost_usd,
            reasoning_tokens=stats.reasoning_tokens,
        ),
        parent_thread_id=record.parent_thread_id,
        forked_from_item_id=record.forked_from_item_id,
        status=thread_status(record.last_turn_status, record.last_run_state),
        tab_group=record.tab_group,
    )


_WAITING: dict[RunState | None, entities.ThreadStatus] = {
    "queued": "waiting",  # for a free slot (``engine.slots``)
    "awaiting_approval": "awaiting_approval",
    "awaiting_interaction": "awaiting_answer",
    "budget_paused": "budget_paused",
    "paused_uncertain": "paused_uncertain",
    "interrupted": "interrupted",  # left by a restart, resumable
}


def thread_status(
    turn_status: TurnStatus | None, run_state: RunState | None
) -> entities.ThreadStatus:
    """A thread's status from its latest Turn's status and that Turn's Run state."""
    match turn_status:
        case None | "completed":
            return "idle"
        case "interrupted" | "failed":
            return turn_status
        case "paused":
            return "paused_uncertain" if run_state == "paused_uncertain" else "budget_paused"
        case _:
            return _WAITING.get(run_state, "running")


def _iso_or_none(ms: object) -> str | None:
    return iso(ms) if isinstance(ms, int) else None


def tool_result_view(result: dict[str, Any] | None) -> common.ToolResult | None:
    if result is None:
        return None
    return msgspec.convert(result, common.ToolResult)


def item_view(record: ItemRecord, frames: Sequence[FrameRecord] = ()) -> items.Item:
    """The item; a tool call with ``frames``, its stored frames (``store.frames.of_items``)."""
    base: dict[str, Any] = {
        "id": record.id,
        "turn_id": record.turn_id or _ID_FALLBACK,
        "created_at": iso(record.created_at),
        "parent_id": record.parent_id,
    }
    extra = record.extra
    match record.kind:
        case "user":
            attachments = msgspec.convert(extra.get("attachments", []), list[items.ImageAttachment])
            return items.UserItem(**base, text=record.text or "", attachments=attachments)
        case "steering":
            return items.SteeringItem(**base, text=record.text or "")
        case "assistant":
            return items.AssistantItem(
                **base,
                text=record.text or "",
                thinking=record.thinking,
                interrupted=record.interrupted,
            )
        case "toolCall":
            call_extra = record.call_extra
            return items.ToolCallItem(
                **base,
                call_id=record.call_id or "",
                name=record.name or "",
                args=record.args or {},
                status=record.status or "pending",
                result=tool_result_view(record.result),
                label=call_extra.label,
                level=call_extra.level,
                effects=call_extra.effects,
                evidence=_evidence(call_extra) if record.status == "uncertain" else None,
                target=_target(call_extra),
                started_at=_iso_or_none(call_extra.started_at),
                ended_at=_iso_or_none(call_extra.ended_at),
                decided_by=call_extra.decided_by,
                frames=[frame_info(f) for f in frames],
                frame_skipped=call_extra.frame_skipped,
                allowed_by=call_extra.allowed_by,
                allowed_because=call_extra.allowed_because,
            )
        case "compaction":
            return items.CompactionItem(
                **base,
                summary=record.text or "",
                through_item_id=str(extra.get("throughItemId", _ID_FALLBACK)),
                covered_items=int(extra.get("coveredItems", 0)),
                tokens_before=int(extra.get("tokensBefore", 0)),
                tokens_after=int(extra.get("tokensAfter", 0)),
                model=str(extra.get("model", "")),
            )
        case _:
            shown = extra.get("userText")
            return items.NoticeItem(
                **base,
                code=str(extra.get("code", "notice")),
                text=record.text or "",
                user_text=shown if isinstance(shown, str) else None,
            )


def _target(call_extra: ToolCallExtra) -> common.Target | None:
    """The target a call started on; one stored by an older release in another shape is
    left out rather than failing the whole view."""
    if call_extra.target is None:
        return None
    try:
        return msgspec.convert(call_extra.target, common.Target)
    except msgspec.ValidationError:
        return None


def _evidence(call_extra: ToolCallExtra) -> dict[str, Any] | None:
    evidence = call_extra.evidence
    return None if evidence is None else msgspec.to_builtins(evidence)


def frame_info(record: FrameRecord) -> frame_wire.FrameInfo:
    """A stored frame as a toolCall item lists it (no image)."""
    meta = record.meta
    return frame_wire.FrameInfo(
        id=record.id,
        phase=record.phase,  # type: ignore[arg-type]
        width=record.width,
        height=record.height,
        url=record.url,
        captured_at=iso(record.captured_at),
        mark=_meta(meta.get("mark"), frame_wire.FrameMark),
        typed=meta.get("typed") if isinstance(meta.get("typed"), str) else None,
    )


def frame_view(record: FrameRecord) -> frame_wire.Frame:
    """A stored frame with its image (``frame.get``)."""
    info = frame_info(record)
    meta = record.meta
    blurred, title = meta.get("blurred"), meta.get("title")
    return frame_wire.Frame(
        **{f: getattr(info, f) for f in info.__struct_fields__},
        thread_id=record.thread_id,
        turn_id=record.turn_id,
        item_id=record.item_id,
        mime=record.mime,  # type: ignore[arg-type]
        data=base64.b64encode(record.image).decode("ascii"),
        title=title if isinstance(title, str) else "",
        viewport=_meta(meta.get("viewport"), frame_wire.FrameViewport),
        blurred=blurred if isinstance(blurred, int) else 0,
    )


def _meta(value: Any, kind: type[T]) -> T | None:
    if value is None:
        return None
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError:
        return None  # stored by another release in another shape: left out


def steering_view(record: SteeringRecord) -> items.SteeringItem:
    return items.SteeringItem(
        id=record.id, turn_id=record.turn_id, created_at=iso(record.created_at), text=record.text
    )


def turn_view(record: TurnRecord) -> entities.Turn:
    usage = record.usage
    context = record.context
    return entities.Turn(
        id=record.id,
        status=record.status,
        user_item_id=record.user_item_id or _ID_FALLBACK,
        started_at=iso(record.started_at),
        cost_usd=usage.cost_usd,
        usage=common.Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            reasoning_tokens=usage.reasoning_tokens,
        ),
        stop_reason=record.stop_reason,
        error=msgspec.convert(record.error, common.TurnError) if record.error else None,
        ended_at=iso(record.ended_at) if record.ended_at else None,
        model=context.get("model"),
        token_budget=context.get("tokenBudget"),
        pause_reason=context.get("pauseReason") if record.status == "paused" else None,
        cost_budget_usd=context.get("costBudgetUsd"),
        budget_reached=context.get("budgetReached") if record.status == "paused" else None,
        workflow=workflow_record(context),
    )


def workflow_record(context: dict[str, Any]) -> WorkflowRunRecord | None:
    """The workflow run's record of a Turn's ``context`` (None: not a workflow run)."""
    if "workflow" not in context:
        return None
    spec = context["workflow"]
    stored = context.get("workflowRecord") or {
        "workflowId": spec["id"],
        "name": spec["definition"].get("name", ""),
        "trigger": spec.get("trigger", "user"),
    }
    return msgspec.convert(stored, WorkflowRunRecord)


def run_view(record: RunRecord, wait_reason: str | None = None) -> entities.Run:
    """The run (``wait_reason``: why a ``queued`` run waits for a slot)."""
    return entities.Run(
        id=record.id, turn_id=record.turn_id, state=record.state, wait_reason=wait_reason
    )


def queue_view(records: list[QueueEntryRecord]) -> list[entities.QueueEntry]:
    return [
        entities.QueueEntry(id=r.id, position=index, text=r.text, created_at=iso(r.created_at))
        for index, r in enumerate(records)
    ]


def approval_view(record: ApprovalRecord) -> entities.ApprovalRequest:
    request = record.request
    return entities.ApprovalRequest(
        request_id=record.id,
        tool_call_id=record.tool_call_item_id,
        tool=msgspec.convert(request["tool"], common.ToolInfo),
        args=request.get("args", {}),
        target=msgspec.convert(request.get("target", {}), common.Target),
        turn_id=record.turn_id,
        created_at=iso(record.created_at),
        carried=list(request.get("carried") or []),
        read_from=list(request.get("readFrom") or []),
        delivers=request.get("delivers"),
        reason=request.get("reason"),
        user_supplies=request.get("userSupplies"),
        call_id=request.get("callId"),
        tab_owner=request.get("tabOwner"),
        shares_tab=bool(request.get("sharesTab")),
    )


def interaction_view(record: InteractionRecord) -> entities.InteractionRequest:
    return entities.InteractionRequest(
        interaction_id=record.id,
        prompt=record.prompt,
        schema=record.schema,
        tool_call_id=record.tool_call_item_id,
        created_at=iso(record.created_at),
    )
