"""Storing a model call's outcome: the assistant message, its tool calls, usage and cost,
thread statistics and the run cursor, in one transaction (`docs/engine.md`, "Agent loop")."""

from __future__ import annotations

import sqlite3
from typing import Any, Literal

from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.engine.cursor import RunCursor, dump_cursor
from panelot_host.engine.finish import TurnFinisher
from panelot_host.engine.models import ResolvedModel
from panelot_host.engine.stream import AssistantDraft, StreamFailed, ToolCallDraft
from panelot_host.engine.workflow_player import call_prefix
from panelot_host.engine.workflow_run import WORKFLOW_TRANSPORT
from panelot_host.protocol.workflows import DecidedBy
from panelot_host.providers.pricing import call_cost
from panelot_host.store import items, threads, turns
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord, ThreadRecord, ToolCallExtra, UsageRecord
from panelot_host.tools.registry import RegisteredTool
from panelot_host.vocabulary import RunState

Outcome = Literal["tools", "continue", "final", "failed"]


def store_response(
    ctx: EngineContext,
    run: RunRef,
    item_id: str,
    draft: AssistantDraft,
    model: ResolvedModel,
    catalog: dict[str, RegisteredTool] | None = None,
    cursor: RunCursor | None = None,
) -> tuple[Outcome, list[ItemRecord]]:
    """Persist one complete model response; what the loop does next, and the tool calls
    it stored (pending, in call order). ``item_id`` is the assistant message's id (its
    deltas streamed under it).

    Tool calls paired with any stop reason but ``tool_use`` are a protocol error: the text
    is kept, no call is stored or run, and the turn fails (kind ``provider``).
    """
    assert draft.stop is not None
    calls = draft.ordered_calls()
    violation = bool(calls) and draft.stop.stop_reason != "tool_use"
    stored_calls = [] if violation else calls
    with ctx.db.transaction() as conn:
        assistant = _insert_assistant(conn, run, item_id, draft, interrupted=False)
        deciders = model.transport == WORKFLOW_TRANSPORT
        records = _insert_calls(conn, run, assistant.id, stored_calls, catalog or {}, deciders)
        head = (records[-1] if records else assistant).id
        thread = record_call_usage(conn, run, draft, model, head)
        state: RunState = "executing_tool" if records else "streaming"
        stored_cursor = dump_cursor(cursor) if cursor else None
        turns.update_run(conn, run.run_id, state=state, cursor=stored_cursor)
    ctx.publish.item_completed(assistant, run.turn_id)
    for record in records:
        ctx.publish.item_started(record, run.turn_id)
    ctx.publish.thread_updated(thread)
    if violation:
        TurnFinisher(ctx, run).fail(
            "provider",
            f"the model made tool calls with stop reason {draft.stop.stop_reason!r} instead of "
            "tool_use (a truncated or malformed response); no tool was run",
        )
        return "failed", []
    if records:
        return "tools", records
    if draft.stop.stop_reason == "pause_turn":
        return "continue", []
    return "final", []


def store_stream_failure(
    ctx: EngineContext, run: RunRef, item_id: str, failed: StreamFailed
) -> None:
    """Keep the text that streamed before a failure or a stop, marked interrupted."""
    draft = failed.draft
    if not draft.started:
        return
    with ctx.db.transaction() as conn:
        assistant = _insert_assistant(conn, run, item_id, draft, interrupted=True)
        threads.set_head(conn, run.thread_id, assistant.id)
    ctx.publish.item_completed(assistant, run.turn_id)


def _insert_assistant(
    conn: sqlite3.Connection, run: RunRef, item_id: str, draft: AssistantDraft, *, interrupted: bool
) -> ItemRecord:
    blocks = [b.stored() for b in draft.thinking_blocks]
    extra: dict[str, Any] = {"thinkingBlocks": blocks} if blocks else {}
    if draft.stop is not None:
        extra["stopReason"] = draft.stop.stop_reason
    record = ItemRecord(
        id=item_id,
        thread_id=run.thread_id,
        parent_id=threads.get(conn, run.thread_id).head_item_id,
        turn_id=run.turn_id,
        kind="assistant",
        created_at=now_ms(),
        text=draft.text,
        thinking=draft.thinking,
        extra=extra,
        interrupted=interrupted,
    )
    items.insert(conn, record)
    return record


def _insert_calls(
    conn: sqlite3.Connection,
    run: RunRef,
    assistant_id: str,
    calls: list[ToolCallDraft],
    catalog: dict[str, RegisteredTool],
    deciders: bool = False,
) -> list[ItemRecord]:
    thread_id, turn_id = run.thread_id, run.turn_id
    records: list[ItemRecord] = []
    taken: set[str] = set()
    parent = assistant_id
    for index, call in enumerate(calls):
        call_id = normalised_call_id(conn, thread_id, call.call_id, taken)
        taken.add(call_id)
        tool = catalog.get(call.name)
        descriptor = tool.descriptor if tool is not None else None
        call_extra = ToolCallExtra(
            label=descriptor.label if descriptor else None,
            level=descriptor.level_for(call.args or {}) if descriptor else None,
            effects=sorted(descriptor.effects) if descriptor else [],
            args_error=call.error or None,
            provider_call_id=call.call_id if call.call_id and call.call_id != call_id else None,
            decided_by=_decider(call.call_id, turn_id) if deciders else None,
        )
        record = ItemRecord(
            id=new_id("itm"),
            thread_id=thread_id,
            parent_id=parent,
            turn_id=turn_id,
            kind="toolCall",
            created_at=now_ms(),
            call_id=call_id,
            name=call.name,
            args=call.args or {},
            descriptor_digest=tool.digest if tool is not None else None,
            batch_item_id=assistant_id,
            batch_index=index,
            status="pending",
            call_extra=call_extra,
        )
        items.insert(conn, record)
        records.append(record)
        parent = record.id
    return records


def _decider(call_id: str, turn_id: str) -> DecidedBy:
    """Who decided a workflow run's call: the player's calls carry its id prefix."""
    return "workflow" if call_id.startswith(call_prefix(turn_id)) else "model"


def normalised_call_id(
    conn: sqlite3.Connection, thread_id: str, provider_id: str, taken: set[str]
) -> str:
    """The provider's id when it is non-empty and unique in the thread, else a new one.

    The same value is stored and sent in every later request, so the provider always
    sees one id per call.
    """
    if (
        provider_id
        and provider_id not in taken
        and not items.call_id_taken(conn, thread_id, provider_id)
    ):
        return provider_id
    return "call_" + new_id("pnl").removeprefix("pnl_")


def record_call_usage(
    conn: sqlite3.Connection, run: RunRef, draft: AssistantDraft, model: ResolvedModel, head: str
) -> ThreadRecord:
    """A model call's usage row, the Turn's and the thread's totals, and the thread's new
    head, in the caller's transaction (an answer, or a compaction's summary)."""
    assert draft.stop is not None
    thread_id, turn_id, run_id = run.thread_id, run.turn_id, run.run_id
    usage = draft.stop.usage
    cost = call_cost(usage if draft.stop.usage_reported else None, model.info)
    turns.record_usage(
        conn,
        UsageRecord(
            thread_id=thread_id,
            turn_id=turn_id,
            run_id=run_id,
            model=model.model,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            cost_usd=cost,
            created_at=now_ms(),
            reasoning_tokens=usage.reasoning_tokens,
        ),
    )
    return threads.add_usage(
        conn,
        thread_id,
        head_item_id=head,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cost_usd=cost,
        reasoning_tokens=usage.reasoning_tokens,
    )
