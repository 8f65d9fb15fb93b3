"""One tool call (`docs/engine.md`, "Agent loop"): Gatekeeper, a persisted approval request,
the validated decision, revalidation right before dispatch, execution, and the result stored
together with the next run state."""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime
from typing import Any

import msgspec

from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.engine.cursor import CursorCell, after_tool_result, dump_cursor
from panelot_host.engine.finish import TurnFinisher
from panelot_host.engine.frames import budget_bytes, store_frames
from panelot_host.engine.page_reads import carried_by, origins_read
from panelot_host.engine.policy import record_from_grant
from panelot_host.engine.recovery import mark_uncertain
from panelot_host.engine.slots import RunSlot
from panelot_host.engine.thread_tabs import foreign_tab, is_users_tab, share_tab, thread_browser
from panelot_host.engine.tool_context import EngineToolContext
from panelot_host.errors import OutcomeUnknown, ToolError
from panelot_host.gatekeeper.denials import decision_denial, user_denial
from panelot_host.gatekeeper.gatekeeper import resolve_target
from panelot_host.gatekeeper.grants import grants_from_approval
from panelot_host.gatekeeper.models import Decision
from panelot_host.protocol.items import AllowedBy
from panelot_host.protocol.tabs import SharedTab
from panelot_host.store import approvals, items, turns
from panelot_host.store import grants as grant_store
from panelot_host.store.ids import new_id
from panelot_host.store.records import ApprovalRecord, ItemRecord, ToolCallExtra
from panelot_host.tools.calls import BoundCall
from panelot_host.tools.catalog import RunCatalog
from panelot_host.tools.descriptor import BrowserBinding
from panelot_host.tools.result import ToolResult, error_result
from panelot_host.tools.target import Target
from panelot_host.vocabulary import ApprovalScope, ToolCallStatus

log = logging.getLogger(__name__)

_decision_decoder = msgspec.json.Decoder(Decision)
_target_decoder = msgspec.json.Decoder(Target)


class RunPaused(Exception):
    """The run paused itself (an uncertain write); its driver stops without settling."""


TOOLS_DISABLED_RESULT = "Tools are disabled for the rest of this turn; nothing was executed."


class ToolStepper:
    """Processes the unsettled tool calls of one run, one at a time, in call order."""

    def __init__(self, ctx: EngineContext, run: RunRef, cursor: CursorCell, slot: RunSlot) -> None:
        self.ctx = ctx
        self.run = run
        self.cursor = cursor
        self.slot = slot

    async def step(self, call: ItemRecord, catalog: RunCatalog, tools_disabled: bool) -> None:
        """Settle ``call``: a result is stored (or the run waits for the user)."""
        if tools_disabled:
            self._settle(call, error_result(TOOLS_DISABLED_RESULT), "failed")
            return
        args_error = call.call_extra.args_error
        if args_error:
            # not valid JSON, not an object, or nested too deeply (providers.toolargs)
            message = (
                f"Invalid arguments for tool `{call.name}`; nothing was executed: {args_error}"
            )
            self._settle(call, error_result(message), "failed")
            return
        bound = catalog.bind(call.name or "", call.args or {})
        if isinstance(bound, ToolResult):
            self._settle(call, bound, "failed")  # unknown tool or invalid arguments
            return
        match call.status:
            case "awaiting_approval":
                await self._await_approval(call, bound)
            case _:
                # pending; or running after a restart: a read/idempotent call (or ask_user,
                # whose stored interaction is reused) runs again through the Gatekeeper
                await self._decide_and_run(call, bound)

    async def _decide_and_run(self, call: ItemRecord, bound: BoundCall) -> None:
        try:
            target = await resolve_target(bound, thread_browser(self.ctx, self.run.thread_id))
        except ToolError as exc:
            self._settle(call, error_result(exc.message), "failed")
            return
        decision = self.ctx.policy.gatekeeper().decide(
            bound,
            target,
            thread_id=self.run.thread_id,
            grants=self.ctx.policy.grants(),
            carried=self._carried(bound, target),
            read_from=self._read_from(),
            foreign_tab=foreign_tab(self.ctx, self.run.thread_id, bound, target),
        )
        match decision.action:
            case "allow":
                await self._execute(call, bound, target, _allowed_by(decision))
            case "deny":
                self._settle(call, decision_denial(bound.name, decision), "denied")
            case _:
                self._ask(call, bound, target, decision)
                await self._await_approval(call, bound)

    def _carried(self, bound: BoundCall, target: Target | None) -> tuple[str, ...]:
        return carried_by(
            self.ctx.db.conn,
            bound,
            target,
            thread_id=self.run.thread_id,
            turn_id=self.run.turn_id,
        )

    def _read_from(self) -> tuple[str, ...]:
        return origins_read(self.ctx.db.conn, self.run.thread_id, self.run.turn_id)

    def _ask(
        self, call: ItemRecord, bound: BoundCall, target: Target | None, decision: Decision
    ) -> None:
        descriptor = bound.tool.descriptor
        request: dict[str, Any] = {
            "tool": {
                "name": bound.name,
                "label": descriptor.label,
                "level": bound.level,
                "effects": sorted(descriptor.effects),
            },
            "args": bound.arguments(),
            "target": _approval_target(target),
            "reason": decision.reason,
            "carried": list(decision.basis.carried) or None,
            "readFrom": list(decision.basis.read_from) or None,
            "tabOwner": decision.basis.foreign_tab,
            "sharesTab": is_users_tab(decision.basis.foreign_tab) or None,
            "delivers": _delivers(bound),
            "userSupplies": descriptor.user_supplies,
            "callId": call.call_id or call.id,
            "decision": msgspec.to_builtins(decision),
            "resolvedTarget": msgspec.to_builtins(target) if target else None,
        }
        request_id = new_id("apr")
        with self.ctx.db.transaction() as conn:
            approvals.add_approval(
                conn,
                request_id=request_id,
                thread_id=self.run.thread_id,
                turn_id=self.run.turn_id,
                tool_call_item_id=call.id,
                request=_without_nulls(request),
            )
            items.set_tool_status(conn, call.id, "awaiting_approval")
            turns.update_run(conn, self.run.run_id, state="awaiting_approval")
            record = approvals.get_approval(conn, request_id)
        self.ctx.publish.run_updated(self.run, "awaiting_approval")
        self.ctx.publish.approval_request(record)

    async def _await_approval(self, call: ItemRecord, bound: BoundCall) -> None:
        approval = await self._decided(call)
        if approval is None:  # the request was lost: decide afresh
            await self._decide_and_run(call, bound)
            return
        if approval.decision != "allow":
            self._settle(call, user_denial(bound.name, approval.message), "denied")
            return
        await self._share_approved_tab(approval)
        await self._revalidate_and_run(call, bound, approval)

    async def _share_approved_tab(self, approval: ApprovalRecord) -> None:
        """Allowing a call on a tab of the user's hands that tab to the thread (the card
        says so): the thread's next calls act on it as on its own."""
        if not approval.request.get("sharesTab"):
            return
        target = msgspec.convert(approval.request.get("resolvedTarget") or {}, Target)
        if target.tab_id is None:
            return
        shared = SharedTab(tab_id=target.tab_id, url=target.url or "", title=target.title or "")
        await share_tab(self.ctx, self.run.thread_id, shared)

    async def _decided(self, call: ItemRecord) -> ApprovalRecord | None:
        """The decided approval of ``call`` (None: lost). While the user decides, the run
        holds no slot; it takes one again (``queued`` until one is free) to continue."""
        approval = approvals.latest_approval_of_call(self.ctx.db.conn, call.id)
        if approval is None or approval.state == "decided":
            return approval
        self.slot.give_back()
        approval = await self._user_decision(call)
        allowed = approval is not None and approval.decision == "allow"
        await self.slot.take("executing_tool" if allowed else "streaming")
        return approval

    async def _user_decision(self, call: ItemRecord) -> ApprovalRecord | None:
        actor = self.ctx.actor(self.run.thread_id)
        while True:
            await actor.wait_for_change()
            approval = approvals.latest_approval_of_call(self.ctx.db.conn, call.id)
            if approval is None or approval.state == "decided":
                return approval

    async def _revalidate_and_run(
        self, call: ItemRecord, bound: BoundCall, approval: ApprovalRecord
    ) -> None:
        prior = msgspec.convert(approval.request["decision"], Decision)
        try:
            target = await resolve_target(bound, thread_browser(self.ctx, self.run.thread_id))
        except ToolError as exc:
            self._settle(call, error_result(exc.message), "failed")
            return
        current = self.ctx.policy.gatekeeper().revalidate(
            prior,
            bound,
            target,
            thread_id=self.run.thread_id,
            grants=self.ctx.policy.grants(),
            approval_request_id=approval.id,
            carried=self._carried(bound, target),
            read_from=self._read_from(),
            foreign_tab=foreign_tab(self.ctx, self.run.thread_id, bound, target),
        )
        match current.action:
            case "allow":
                await self._execute(call, bound, target)
            case "deny":
                self._settle(call, decision_denial(bound.name, current), "denied")
            case _:
                self._ask(call, bound, target, current)
                await self._await_approval(call, bound)

    async def _execute(
        self,
        call: ItemRecord,
        bound: BoundCall,
        target: Target | None,
        allowed: tuple[AllowedBy, str] | None = None,
    ) -> None:
        with self.ctx.db.transaction() as conn:
            started = ToolCallExtra(
                recovery=bound.tool.descriptor.recovery,
                target=msgspec.to_builtins(target) if target is not None else None,
                allowed_by=allowed[0] if allowed else None,
                allowed_because=allowed[1] if allowed else None,
            )
            items.start_call(conn, call.id, started)
            turns.update_run(conn, self.run.run_id, state="executing_tool")
            running = items.get(conn, call.id)
        self.ctx.publish.run_updated(self.run, "executing_tool")
        self.ctx.publish.item_updated(running, self.run.turn_id)
        context = EngineToolContext(self.ctx, self.run, call, target, self.slot)
        try:
            result = await bound.execute(context)
        except OutcomeUnknown as exc:
            await self._outcome_unknown(call, bound, exc)
            return
        status: ToolCallStatus = "failed" if result.is_error else "succeeded"
        await self.ctx.faults.before_result(self.ctx.db, call.id, status)
        self._settle(call, result, status)

    async def _outcome_unknown(
        self, call: ItemRecord, bound: BoundCall, exc: OutcomeUnknown
    ) -> None:
        """The browser's answer was lost after dispatch. A read or idempotent call gets an
        error result (the model may repeat it); a write pauses the run as uncertain until
        the user says what happened (``recovery.resolve``), as after a crash."""
        if bound.tool.descriptor.recovery in ("read", "idempotent"):
            self._settle(call, error_result(f"The browser did not answer: {exc.message}"), "failed")
            return
        with self.ctx.db.transaction() as conn:
            mark_uncertain(conn, items.get(conn, call.id))  # with the target it started on
        self.ctx.publish.item_completed(items.get(self.ctx.db.conn, call.id), self.run.turn_id)
        TurnFinisher(self.ctx, self.run).pause("uncertain")
        raise RunPaused

    def _settle(self, call: ItemRecord, result: ToolResult, status: ToolCallStatus) -> None:
        """Store the result with the next run state (the failure streak) in one transaction,
        and with it the frames the browser captured (``engine.frames``), which never
        enter the result."""
        cursor = after_tool_result(
            self.cursor.value, failure=result.counts_as_failure, denial=result.denied
        )
        with self.ctx.db.transaction() as conn:
            self._store_frames(conn, call, result)
            settled = items.settle_call(conn, call.id, status, _wire_result(result))
            turns.update_run(conn, self.run.run_id, state="streaming", cursor=dump_cursor(cursor))
        self.cursor.value = cursor
        self.ctx.publish.item_completed(settled, self.run.turn_id)

    def _store_frames(self, conn: sqlite3.Connection, call: ItemRecord, result: ToolResult) -> None:
        skipped = result.frame_skipped
        if result.frames:
            budget = budget_bytes(self.ctx.policy.settings())
            if not store_frames(conn, call, result.frames, budget) and skipped is None:
                skipped = "failed"  # none of them could be kept
        if skipped is not None:
            items.set_frame_skipped(conn, call.id, skipped)


def record_approval_grants(
    ctx: EngineContext, approval: ApprovalRecord, scope: ApprovalScope
) -> None:
    """Grants an approval decision creates, stored in the caller's transaction."""
    request = approval.request
    target_data = request.get("resolvedTarget")
    target = msgspec.convert(target_data, Target) if target_data else None
    for grant in grants_from_approval(
        request_id=approval.id,
        thread_id=approval.thread_id,
        tool=request["tool"]["name"],
        level=request["tool"]["level"],
        target=target,
        decision=approval.decision or "deny",
        scope=scope,
        decided_at=datetime.now(tz=UTC),
        tool_call_id=approval.tool_call_item_id,
        new_id=lambda: new_id("grt"),
    ):
        grant_store.add(ctx.db.conn, record_from_grant(grant))
    ctx.policy.grants_changed()


def _wire_result(result: ToolResult) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "content": msgspec.to_builtins(result.content),
        "isError": result.is_error,
    }
    if result.details is not None:
        wire["details"] = result.details
    if result.denied:
        wire["denied"] = True
    return wire


def _approval_target(target: Target | None) -> dict[str, Any]:
    """What the card shows of the target: the origin (a navigation's destination), the tab,
    and for a navigation the URL it loads and where the tab is now."""
    if target is None:
        return {}
    shown = {
        "origin": target.origin,
        "tabId": target.tab_id,
        "title": target.title or None,
        "element": target.element,
    }
    if target.current_origin is not None:
        shown |= {
            "url": target.url,
            "currentUrl": target.current_url,
            "currentOrigin": target.current_origin,
        }
    return _without_nulls(shown)


def _delivers(bound: BoundCall) -> str | None:
    binding = bound.tool.descriptor.binding
    return binding.delivers if isinstance(binding, BrowserBinding) else None


def _without_nulls(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if v is not None}


def _allowed_by(decision: Decision) -> tuple[AllowedBy, str] | None:
    """What let an allowed call through unasked, when it was a decision of someone's (a
    grant of the user's, a policy rule); None for a default (reads, tools that need no
    approval)."""
    match decision.source:
        case "grant":
            return "grant", decision.reason
        case "policy":
            return "policy", decision.reason
        case _:
            return None
