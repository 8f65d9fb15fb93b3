"""The export document of a thread, or of one of its Turns, from the store (unmasked:
``masking`` masks it before any format is rendered)."""

from __future__ import annotations

import sqlite3

import msgspec

import panelot_host
from panelot_host.engine import views
from panelot_host.errors import NotFound
from panelot_host.protocol.frames import FrameMark
from panelot_host.protocol.thread_export import (
    THREAD_EXPORT_FORMAT,
    THREAD_EXPORT_VERSION,
    DecidedBy,
    ExportApproval,
    ExportFrame,
    ExportHost,
    ExportTurn,
    ModelCall,
    ThreadExportDocument,
)
from panelot_host.store import frames, items, thread_copy, threads, turns
from panelot_host.store.frames import FrameRecord
from panelot_host.store.ids import now_ms
from panelot_host.store.records import (
    ApprovalRecord,
    ItemRecord,
    ThreadRecord,
    TurnRecord,
    UsageRecord,
)


def build_document(
    conn: sqlite3.Connection, thread_id: str, turn_id: str | None = None
) -> ThreadExportDocument:
    """The thread ``thread_id`` (with ``turn_id``: that Turn alone) as an export document.

    Raises:
        NotFound: no such thread, or the Turn is not one of its Turns.
    """
    record = threads.get(conn, thread_id)
    turn_records = [turns.get_turn(conn, t.id) for t in turns.of_thread(conn, thread_id)]
    if turn_id is not None:
        turn_records = [t for t in turn_records if t.id == turn_id]
        if not turn_records:
            raise NotFound(f"turn {turn_id!r} is not in thread {thread_id!r}")
    kept = {t.id for t in turn_records}
    stored = [
        i for i in thread_copy.all_items(conn, thread_id) if turn_id is None or i.turn_id in kept
    ]
    calls = [i.id for i in stored if i.kind == "toolCall"]
    usage = [u for u in thread_copy.usage_of(conn, thread_id) if u.turn_id in kept]
    asked = [a for a in thread_copy.approvals_of(conn, thread_id) if a.turn_id in kept]
    return ThreadExportDocument(
        format=THREAD_EXPORT_FORMAT,
        version=THREAD_EXPORT_VERSION,
        exported_at=views.iso(now_ms()),
        host=ExportHost(version=panelot_host.__version__),
        thread=views.thread_view(record),
        head_item_id=record.head_item_id if turn_id is None else _turn_head(conn, stored, record),
        turn_id=turn_id,
        turns=[_turn(conn, t, usage) for t in turn_records],
        items=[views.item_view(i) for i in stored],
        approvals=_approvals(asked, stored),
        frames=[_frame(f) for fs in frames.of_items(conn, calls).values() for f in fs],
    )


def _turn_head(
    conn: sqlite3.Connection, stored: list[ItemRecord], record: ThreadRecord
) -> str | None:
    """A Turn's export ends its branch at the Turn's last item on the thread's selected
    branch (or its newest item)."""
    on_branch = set(items.branch_ids(conn, record.id, record.head_item_id))
    chosen = [i.id for i in stored if i.id in on_branch] or [i.id for i in stored]
    return chosen[-1] if chosen else None


def _turn(conn: sqlite3.Connection, record: TurnRecord, usage: list[UsageRecord]) -> ExportTurn:
    view = views.turn_view(record)
    run = turns.run_of_turn(conn, record.id)
    calls = [
        ModelCall(
            model=u.model,
            input_tokens=u.input_tokens,
            output_tokens=u.output_tokens,
            cache_read_tokens=u.cache_read_tokens,
            cache_write_tokens=u.cache_write_tokens,
            cost_usd=u.cost_usd,
            created_at=views.iso(u.created_at),
            reasoning_tokens=u.reasoning_tokens,
        )
        for u in usage
        if u.turn_id == record.id
    ]
    fields = {f: getattr(view, f) for f in view.__struct_fields__}
    return ExportTurn(**fields, run_state=run.state if run else None, model_calls=calls)


def _approvals(asked: list[ApprovalRecord], stored: list[ItemRecord]) -> list[ExportApproval]:
    """The requests the user was asked, then the calls a grant or a rule decided unasked
    (refused, or let through)."""
    found = [
        ExportApproval(
            tool_call_id=a.tool_call_item_id,
            turn_id=a.turn_id,
            state=a.state,
            decision=a.decision,
            scope=a.scope,
            decided_by="user" if a.state == "decided" else None,
            message=a.message,
            request=views.approval_view(a),
            decided_at=views.iso(a.decided_at) if a.decided_at else None,
        )
        for a in asked
    ]
    answered = {a.tool_call_item_id for a in asked if a.state == "decided"}
    for item in stored:
        if item.id in answered or item.kind != "toolCall":
            continue
        by = _refused_by(item)
        if by is not None:
            found.append(
                ExportApproval(
                    tool_call_id=item.id,
                    turn_id=item.turn_id or "none",
                    decision="deny",
                    decided_by=by,
                )
            )
        elif item.call_extra.allowed_by is not None:
            found.append(
                ExportApproval(
                    tool_call_id=item.id,
                    turn_id=item.turn_id or "none",
                    decision="allow",
                    decided_by=item.call_extra.allowed_by,
                    reason=item.call_extra.allowed_because,
                )
            )
    return found


def _refused_by(item: ItemRecord) -> DecidedBy | None:
    """Who refused a call the Gatekeeper denied without asking (``gatekeeper.denials``:
    ``deniedBy`` ``user`` is the user's standing decision, a grant)."""
    if item.kind != "toolCall" or item.status != "denied":
        return None
    details = (item.result or {}).get("details")
    denied_by = details.get("deniedBy") if isinstance(details, dict) else None
    return {"user": "grant", "policy": "policy"}.get(str(denied_by))  # type: ignore[return-value]


def _frame(record: FrameRecord) -> ExportFrame:
    meta = record.meta
    return ExportFrame(
        id=record.id,
        phase=record.phase,  # type: ignore[arg-type]
        width=record.width,
        height=record.height,
        url=record.url,
        captured_at=views.iso(record.captured_at),
        mark=msgspec.convert(meta["mark"], FrameMark) if meta.get("mark") else None,
        typed=meta.get("typed"),
        item_id=record.item_id,
        turn_id=record.turn_id,
        mime=record.mime,  # type: ignore[arg-type]
        title=str(meta.get("title") or ""),
        blurred=int(meta.get("blurred") or 0),
    )
