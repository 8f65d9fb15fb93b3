"""Recovery (`docs/engine.md`, "Recovery"; `docs/protocol.md`, "Semantics clients rely on"):
settle what the last process left, driven by the stored run state and cursor, never by a
view derived from other rows.

- an interrupted model stream, or a run that waited for a slot -> ``interrupted``
  (resumable with ``run.resume``);
- a tool call that started with no stored result -> re-run on ``run.resume`` when its
  recovery class is ``read`` or ``idempotent``; ``paused_uncertain`` for ``write`` until
  ``recovery.resolve``, with evidence; a lost ``remote`` call (MCP elicitation) gets a
  result telling the model to repeat it only when safe;
- approvals and interactions keep waiting (their tables), budget pauses stay paused;
- a run waiting for the user whose question was answered before the process stopped (the
  answer stored, the run not yet woken) -> ``interrupted``, its cut calls classified as
  above: ``run.resume`` applies the stored answer (an allowed call passes the Gatekeeper
  again before it runs); left waiting, it would wait for a card no one can see;
- nothing calls a model by itself after a restart.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import msgspec

from panelot_host.engine.context import EngineContext
from panelot_host.engine.cursor import dump_cursor, load_cursor
from panelot_host.store import approvals, items, turns
from panelot_host.store.records import CallEvidence, ItemRecord, RunRecord
from panelot_host.tools.context import BrowserBridge
from panelot_host.vocabulary import RecoveryClass, RunState

log = logging.getLogger(__name__)

LIVE_STATES: tuple[RunState, ...] = (
    "queued",
    "streaming",
    "executing_tool",
    "awaiting_approval",
    "awaiting_interaction",
    "paused_uncertain",
    "budget_paused",
    "interrupted",
)
REMOTE_LOST = (
    "This call was cut off when Panelot stopped, and a remote call cannot be resumed: its "
    "outcome is unknown. Repeat it only if that is safe."
)


def settle_on_start(ctx: EngineContext) -> list[str]:
    """Settle every run the previous process left unfinished; return their thread ids."""
    recovered = []
    for run in turns.runs_in_states(ctx.db.conn, LIVE_STATES):
        turn = turns.get_turn(ctx.db.conn, run.turn_id)
        if turn.status not in turns.ACTIVE_TURN_STATUSES:
            continue
        with ctx.db.transaction() as conn:
            state = _settle_run(ctx, conn, run)
            cursor = load_cursor(turns.get_run(conn, run.id).cursor)
            cursor.recovered = True
            turns.update_run(conn, run.id, state=state, cursor=dump_cursor(cursor))
            if state == "paused_uncertain":
                turns.set_turn_status(conn, run.turn_id, "paused")
                turns.update_turn_context(
                    conn, run.turn_id, {**turn.context, "pauseReason": "uncertain"}
                )
        log.info("recovered run %s of thread %s as %s", run.id, run.thread_id, state)
        recovered.append(run.thread_id)
    return recovered


def _settle_run(ctx: EngineContext, conn: sqlite3.Connection, run: RunRecord) -> RunState:
    match run.state:
        case "streaming":
            return "interrupted"
        case "executing_tool" | "interrupted" | "queued":  # queued: perhaps amid a tool call
            return _settle_cut_calls(ctx, conn, run) or "interrupted"
        case "awaiting_approval" | "awaiting_interaction" if not _still_asks(conn, run):
            return _settle_cut_calls(ctx, conn, run) or "interrupted"
        case _:
            return run.state  # waiting for the user, or paused: unchanged


def _still_asks(conn: sqlite3.Connection, run: RunRecord) -> bool:
    """Whether the run's Turn has an approval or a question the user has not answered."""
    turn_ids = {a.turn_id for a in approvals.pending_approvals(conn, run.thread_id)}
    turn_ids |= {i.turn_id for i in approvals.pending_interactions(conn, run.thread_id)}
    return run.turn_id in turn_ids


def _settle_cut_calls(
    ctx: EngineContext, conn: sqlite3.Connection, run: RunRecord
) -> RunState | None:
    """Classify the calls that were running; ``paused_uncertain`` if a write was among them."""
    outcome: RunState | None = None
    for call in running_calls(conn, run):
        recovery = ctx.faults.recovery_class(_recovery_class(ctx, call))
        if recovery == "write":
            mark_uncertain(conn, call)
            outcome = "paused_uncertain"
        elif recovery == "remote" and not approvals.interaction_of_call(
            conn, call.id, origin="ask_user"
        ):
            result: dict[str, Any] = {"content": REMOTE_LOST, "isError": True}
            items.set_tool_status(conn, call.id, "failed", result)
    return outcome


def mark_uncertain(conn: sqlite3.Connection, call: ItemRecord) -> None:
    """A started write whose outcome is unknown waits for the user (``recovery.resolve``),
    with the evidence to decide on: what was attempted, against which target."""
    attempted = {"tool": call.name, "args": call.args}
    evidence = CallEvidence(attempted=attempted, target=call.call_extra.target)
    items.set_evidence(conn, call.id, evidence)
    items.set_tool_status(conn, call.id, "uncertain")


def running_calls(conn: sqlite3.Connection, run: RunRecord) -> list[ItemRecord]:
    """The run's calls that started and have no result (a running Turn's items are one
    chain on the thread's branch: no branch walk, so start-up costs the Turn, not the
    thread)."""
    return items.of_turn(conn, run.thread_id, run.turn_id, statuses=("running",))


def _recovery_class(ctx: EngineContext, call: ItemRecord) -> RecoveryClass:
    recorded = call.call_extra.recovery
    if recorded is not None:
        return recorded
    tool = ctx.registry.current.get(call.name or "")
    return tool.descriptor.recovery if tool is not None else "write"


async def refresh_evidence(ctx: EngineContext, bridge: BrowserBridge) -> None:
    """The shim (re)connected: record the current URL and title of each uncertain browser
    call's tab as evidence for the user's decision."""
    for call in items.with_status(ctx.db.conn, "uncertain"):
        evidence = call.call_extra.evidence or CallEvidence()
        tab_id = (evidence.target or {}).get("tabId")
        if tab_id is None:
            continue
        try:
            now = await bridge.resolve_target(call.name or "", {"tabId": tab_id})
        except Exception as exc:  # the tab may be gone: that is evidence too
            last_known: dict[str, Any] = {"error": str(exc)}
        else:
            last_known = {"url": now.url, "title": now.title, "origin": now.origin}
        with ctx.db.transaction() as conn:
            updated_evidence = msgspec.structs.replace(evidence, last_known=last_known)
            items.set_evidence(conn, call.id, updated_evidence)
            updated = items.get(conn, call.id)
        ctx.publish.item_completed(updated, call.turn_id or "")
