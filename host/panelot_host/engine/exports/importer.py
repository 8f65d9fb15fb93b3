"""A thread export document back as a new thread (``thread.import``): checked against the
document's structs, then every row given a new id (parent links, a compaction's last
item, approvals' calls and the Turns' items remapped), timestamps kept, and stored in one
transaction. A Turn still running when it was exported is stored ``interrupted``; a
request still pending, ``cancelled``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

import msgspec

from panelot_host.errors import InvalidParams
from panelot_host.protocol import items as wire
from panelot_host.protocol.thread_export import (
    THREAD_EXPORT_FORMAT,
    THREAD_EXPORT_VERSION,
    ExportApproval,
    ExportTurn,
    ThreadExportDocument,
)
from panelot_host.store.records import (
    ApprovalRecord,
    ItemRecord,
    RunRecord,
    ThreadRecord,
    ThreadStats,
    ToolCallExtra,
    TurnRecord,
    TurnUsage,
    UsageRecord,
)
from panelot_host.store.turns import ENDED_RUN_STATES
from panelot_host.vocabulary import RunState

MAX_DEPTH: Final = 64
"""Deepest nesting of arrays and objects a document may hold (tool arguments and results
nest a few levels; much deeper is not an export)."""
_ROOT: Final = "$.params.document"
_ACTIVE: Final = frozenset({"running", "paused"})
_ENDED_AS: Final[dict[str, RunState]] = {"completed": "completed", "failed": "failed"}


class ImportedRows(msgspec.Struct, frozen=True, kw_only=True):
    """What an import stores, in the order it is stored."""

    thread: ThreadRecord
    items: list[ItemRecord]
    head_item_id: str | None
    turns: list[TurnRecord]
    runs: list[RunRecord]
    usage: list[UsageRecord]
    approvals: list[ApprovalRecord]


def decode(document: dict[str, Any]) -> ThreadExportDocument:
    """The document, checked; raises ``InvalidParams`` (with the path of what is wrong)."""
    _check_depth(document)
    try:
        decoded = msgspec.convert(document, ThreadExportDocument)
    except msgspec.ValidationError as exc:
        text = str(exc)
        path = text.rsplit(" - at `", 1)[-1].rstrip("`") if " - at `" in text else "$"
        raise InvalidParams(
            f"not a Panelot thread export ({THREAD_EXPORT_FORMAT} version "
            f"{THREAD_EXPORT_VERSION}): {text}",
            [{"path": _ROOT + path.removeprefix("$"), "message": text.split(" - at `")[0]}],
        ) from None
    _check_links(decoded)
    return decoded


def _check_depth(document: dict[str, Any]) -> None:
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidParams(
                f"not a Panelot thread export: it nests deeper than {MAX_DEPTH} levels",
                [{"path": _ROOT, "message": f"nested deeper than {MAX_DEPTH} levels"}],
            )
        children = value.values() if isinstance(value, dict) else value
        if isinstance(value, dict | list):
            stack.extend((child, depth + 1) for child in children)


def _check_links(document: ThreadExportDocument) -> None:
    """Every id a document refers to is one of its own, each defined once, parents first."""
    errors: list[dict[str, str]] = []
    seen: set[str] = set()
    turn_ids = [t.id for t in document.turns]
    for index, turn_id in enumerate(turn_ids):
        if turn_id in turn_ids[:index]:
            errors.append(_error(f"turns[{index}].id", f"turn {turn_id!r} appears twice"))
    whole = document.turn_id is None
    for index, item in enumerate(document.items):
        where = f"items[{index}]"
        if item.id in seen:
            errors.append(_error(f"{where}.id", f"item {item.id!r} appears twice"))
        if item.parent_id is not None and item.parent_id not in seen and whole:
            errors.append(_error(f"{where}.parentId", "names no item before it"))
        if item.turn_id not in turn_ids and item.turn_id != "none":
            errors.append(_error(f"{where}.turnId", "names no turn of the document"))
        seen.add(item.id)
    if document.head_item_id is not None and document.head_item_id not in seen:
        errors.append(_error("headItemId", "names no item of the document"))
    for index, approval in enumerate(document.approvals):
        if approval.tool_call_id not in seen:
            errors.append(_error(f"approvals[{index}].toolCallId", "names no item"))
        if approval.turn_id not in turn_ids:
            errors.append(_error(f"approvals[{index}].turnId", "names no turn of the document"))
    if errors:
        raise InvalidParams("the thread export is not consistent: " + errors[0]["message"], errors)


def _error(path: str, message: str) -> dict[str, str]:
    return {"path": f"{_ROOT}.{path}", "message": message}


def ms(timestamp: str) -> int:
    """``2025-01-31T12:34:56.789Z`` -> epoch milliseconds."""
    try:
        return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        raise InvalidParams(
            f"not a timestamp: {timestamp!r}", [{"path": _ROOT, "message": "bad timestamp"}]
        ) from None


def rows(document: ThreadExportDocument, new_id: Callable[[str], str]) -> ImportedRows:
    """The rows of ``document`` as a new thread, every id fresh."""
    ids: dict[str, str] = {}

    def fresh(old: str | None, prefix: str) -> str | None:
        if old is None:
            return None
        if old not in ids:
            ids[old] = new_id(prefix)
        return ids[old]

    thread_id = new_id("thr")
    for turn in document.turns:
        fresh(turn.id, "trn")
    stored = _items(document.items, thread_id, fresh, ids)
    turns = [_turn(t, thread_id, ids) for t in document.turns]
    runs = [_run(t, thread_id, ids, new_id("run")) for t in document.turns]
    run_of = {r.turn_id: r.id for r in runs}
    usage = [
        UsageRecord(
            thread_id=thread_id,
            turn_id=ids[t.id],
            run_id=run_of[ids[t.id]],
            model=c.model,
            input_tokens=c.input_tokens,
            output_tokens=c.output_tokens,
            cache_read_tokens=c.cache_read_tokens,
            cache_write_tokens=c.cache_write_tokens,
            cost_usd=c.cost_usd,
            created_at=ms(c.created_at),
            reasoning_tokens=c.reasoning_tokens,
        )
        for t in document.turns
        for c in t.model_calls
    ]
    asked = [a for a in document.approvals if a.request is not None]
    return ImportedRows(
        thread=_thread(document, thread_id),
        items=stored,
        head_item_id=ids.get(document.head_item_id or ""),
        turns=turns,
        runs=runs,
        usage=usage,
        approvals=[
            _approval(a, thread_id, ids, new_id("apr"), document.exported_at) for a in asked
        ],
    )


def _thread(document: ThreadExportDocument, thread_id: str) -> ThreadRecord:
    view = document.thread
    stats = view.stats
    return ThreadRecord(
        id=thread_id,
        title=view.title,
        title_source=view.title_source,
        parent_thread_id=None,
        forked_from_item_id=None,
        head_item_id=None,
        created_at=ms(view.created_at),
        updated_at=ms(view.updated_at),
        stats=ThreadStats(
            turns=len(document.turns) if document.turn_id is not None else stats.turns,
            input_tokens=stats.input_tokens,
            output_tokens=stats.output_tokens,
            cache_read_tokens=stats.cache_read_tokens,
            cache_write_tokens=stats.cache_write_tokens,
            cost_usd=stats.cost_usd,
            reasoning_tokens=stats.reasoning_tokens,
        )
        if document.turn_id is None
        else _turn_stats(document.turns),
    )


def _turn_stats(turns: list[ExportTurn]) -> ThreadStats:
    """A Turn's export: the new thread's totals are the Turn's."""
    costs = [t.cost_usd for t in turns]
    return ThreadStats(
        turns=len(turns),
        input_tokens=sum(t.usage.input_tokens for t in turns),
        output_tokens=sum(t.usage.output_tokens for t in turns),
        cache_read_tokens=sum(t.usage.cache_read_tokens for t in turns),
        cache_write_tokens=sum(t.usage.cache_write_tokens for t in turns),
        cost_usd=None if None in costs else sum(c or 0.0 for c in costs),
        reasoning_tokens=sum(t.usage.reasoning_tokens for t in turns),
    )


Fresh = Callable[[str | None, str], str | None]


def _items(
    found: list[wire.Item], thread_id: str, fresh: Fresh, ids: dict[str, str]
) -> list[ItemRecord]:
    stored: list[ItemRecord] = []
    batches: dict[str, int] = {}  # the assistant item of each call's message -> calls so far
    last_assistant: dict[str, str] = {}  # item id -> nearest assistant item above it
    for item in found:
        parent = ids.get(item.parent_id) if item.parent_id is not None else None
        new = fresh(item.id, "itm") or ""
        above = last_assistant.get(parent or "")
        if isinstance(item, wire.AssistantItem):
            last_assistant[new] = new
        elif above is not None and isinstance(item, wire.ToolCallItem):
            last_assistant[new] = above
        record = _item(item, new, thread_id, parent, ids)
        if isinstance(item, wire.ToolCallItem) and above is not None:
            index = batches.get(above, 0)
            batches[above] = index + 1
            record = msgspec.structs.replace(record, batch_item_id=above, batch_index=index)
        stored.append(record)
    return stored


def _item(
    item: wire.Item, new: str, thread_id: str, parent: str | None, ids: dict[str, str]
) -> ItemRecord:
    base = ItemRecord(
        id=new,
        thread_id=thread_id,
        parent_id=parent,
        turn_id=ids.get(item.turn_id),
        kind="user",
        created_at=ms(item.created_at),
    )
    replace = msgspec.structs.replace
    match item:
        case wire.UserItem():
            attachments = msgspec.to_builtins(item.attachments)
            extra = {"attachments": attachments} if attachments else {}
            return replace(base, kind="user", text=item.text, extra=extra)
        case wire.SteeringItem():
            return replace(base, kind="steering", text=item.text)
        case wire.AssistantItem():
            return replace(
                base,
                kind="assistant",
                text=item.text,
                thinking=item.thinking,
                interrupted=item.interrupted,
            )
        case wire.ToolCallItem():
            return _call(base, item)
        case wire.CompactionItem():
            extra = {
                "throughItemId": ids.get(item.through_item_id),
                "coveredItems": item.covered_items,
                "tokensBefore": item.tokens_before,
                "tokensAfter": item.tokens_after,
                "model": item.model,
            }
            return replace(base, kind="compaction", text=item.summary, extra=extra)
        case _:
            notice = {"code": item.code, "userText": item.user_text}
            extra = {k: v for k, v in notice.items() if v is not None}
            return replace(base, kind="notice", text=item.text, extra=extra)


def _call(base: ItemRecord, item: wire.ToolCallItem) -> ItemRecord:
    extra = ToolCallExtra(
        label=item.label,
        level=item.level,
        effects=list(item.effects),
        target=msgspec.to_builtins(item.target) if item.target is not None else None,
        started_at=ms(item.started_at) if item.started_at else None,
        ended_at=ms(item.ended_at) if item.ended_at else None,
        decided_by=item.decided_by,
        allowed_by=item.allowed_by,
        allowed_because=item.allowed_because,
    )
    return msgspec.structs.replace(
        base,
        kind="toolCall",
        call_id=item.call_id,
        name=item.name,
        args=item.args,
        status=item.status,
        result=msgspec.to_builtins(item.result) if item.result is not None else None,
        call_extra=extra,
    )


def _turn(turn: ExportTurn, thread_id: str, ids: dict[str, str]) -> TurnRecord:
    context: dict[str, Any] = {
        "model": turn.model,
        "tokenBudget": turn.token_budget,
        "costBudgetUsd": turn.cost_budget_usd,
    }
    if turn.workflow is not None:
        record = msgspec.to_builtins(turn.workflow)
        spec = {"id": turn.workflow.workflow_id, "definition": {"name": turn.workflow.name}}
        context.update(workflow={**spec, "trigger": turn.workflow.trigger}, workflowRecord=record)
    active = turn.status in _ACTIVE
    return TurnRecord(
        id=ids[turn.id],
        thread_id=thread_id,
        status="interrupted" if active else turn.status,
        stop_reason=turn.stop_reason,
        error=msgspec.to_builtins(turn.error) if turn.error is not None else None,
        user_item_id=ids.get(turn.user_item_id),
        context={k: v for k, v in context.items() if v is not None},
        usage=TurnUsage(
            input_tokens=turn.usage.input_tokens,
            output_tokens=turn.usage.output_tokens,
            cache_read_tokens=turn.usage.cache_read_tokens,
            cache_write_tokens=turn.usage.cache_write_tokens,
            cost_usd=turn.cost_usd,
            reasoning_tokens=turn.usage.reasoning_tokens,
        ),
        started_at=ms(turn.started_at),
        ended_at=ms(turn.ended_at) if turn.ended_at else (ms(turn.started_at) if active else None),
    )


def _run(turn: ExportTurn, thread_id: str, ids: dict[str, str], run_id: str) -> RunRecord:
    """The Turn's Run, ended: as exported when it had ended, else as its Turn ended (a
    Turn still running when exported is ``interrupted``)."""
    state: RunState = _ENDED_AS.get(turn.status, "interrupted")
    if turn.run_state in ENDED_RUN_STATES and turn.status not in _ACTIVE:
        state = turn.run_state
    return RunRecord(
        id=run_id,
        turn_id=ids[turn.id],
        thread_id=thread_id,
        state=state,
        cursor={"model": turn.model} if turn.model else {},
        environment=None,
        environment_digest=None,
        updated_at=ms(turn.ended_at or turn.started_at),
    )


def _approval(
    approval: ExportApproval, thread_id: str, ids: dict[str, str], request_id: str, when: str
) -> ApprovalRecord:
    """A request the user was asked; ``when``: its time if the document has none."""
    request = approval.request
    assert request is not None  # only the requests the user was asked are stored
    shown = msgspec.to_builtins(request)
    kept = {
        k: v
        for k, v in shown.items()
        if k not in ("requestId", "toolCallId", "turnId", "createdAt")
    }
    created = ms(request.created_at or approval.decided_at or when)
    return ApprovalRecord(
        id=request_id,
        thread_id=thread_id,
        turn_id=ids[approval.turn_id],
        tool_call_item_id=ids[approval.tool_call_id],
        request=kept,
        state="cancelled" if approval.state == "pending" else approval.state,
        decision=approval.decision,
        scope=approval.scope,
        message=approval.message,
        created_at=created,
        decided_at=ms(approval.decided_at) if approval.decided_at else None,
    )
