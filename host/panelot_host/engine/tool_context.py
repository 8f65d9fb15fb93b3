"""The ``ToolContext`` a tool runs with: progress, the user (interactions), the browser."""

from __future__ import annotations

from typing import Any

import anyio

from panelot_host.engine.actor import StopCause
from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.engine.frames import capture_frames
from panelot_host.engine.slots import RunSlot
from panelot_host.engine.thread_tabs import thread_browser
from panelot_host.errors import ToolError
from panelot_host.store import approvals, turns
from panelot_host.store.ids import new_id
from panelot_host.store.records import InteractionRecord, ItemRecord
from panelot_host.tools.context import BrowserBridge
from panelot_host.tools.target import Target


class EngineToolContext:
    """One call's context; ``ask_user`` persists the question and waits for the answer."""

    def __init__(
        self,
        ctx: EngineContext,
        run: RunRef,
        call: ItemRecord,
        target: Target | None,
        slot: RunSlot,
    ) -> None:
        self._ctx = ctx
        self._run = run
        self._call = call
        self._target = target
        self._slot = slot

    @property
    def call_id(self) -> str:
        return self._call.call_id or self._call.id

    @property
    def thread_id(self) -> str:
        return self._run.thread_id

    @property
    def turn_id(self) -> str:
        return self._run.turn_id

    @property
    def turn_started_ms(self) -> int:
        return turns.get_turn(self._ctx.db.conn, self.turn_id).started_at

    @property
    def capture_frames(self) -> bool:
        return capture_frames(self._ctx.policy.settings())

    @property
    def target(self) -> Target | None:
        return self._target

    @property
    def browser(self) -> BrowserBridge | None:
        return thread_browser(self._ctx, self.thread_id)

    def report_progress(self, progress: str) -> None:
        self._ctx.publish.delta(self.thread_id, self.turn_id, self._call.id, "progress", progress)

    async def ask_user(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        """Open an interaction, wait for its (once-claimed) answer and return the values.
        While the user answers, the run holds no slot; it takes one again (``queued``
        until one is free) to continue.

        Raises ``ToolError`` when the user declines or cancels.
        """
        # after a restart the call runs again: its stored question (claimed once) is reused
        existing = approvals.interaction_of_call(self._ctx.db.conn, self._call.id)
        interaction_id = existing.id if existing else self._open(prompt, schema)
        try:
            record = approvals.get_interaction(self._ctx.db.conn, interaction_id)
            if record.state == "pending":
                self._slot.give_back()
                record = await self._answer(interaction_id)
                await self._slot.take("executing_tool")
        except anyio.get_cancelled_exc_class():
            self._withdraw(interaction_id)
            raise
        with self._ctx.db.transaction() as conn:
            turns.update_run(conn, self._run.run_id, state="executing_tool")
        self._ctx.publish.run_updated(self._run, "executing_tool")
        response = record.response or {}
        if record.state != "answered" or response.get("action", "accept") != "accept":
            raise ToolError("the user declined to answer")
        values: dict[str, Any] = response.get("values", {})
        return values

    async def _answer(self, interaction_id: str) -> InteractionRecord:
        actor = self._ctx.actor(self.thread_id)
        while True:
            await actor.wait_for_change()
            record = approvals.get_interaction(self._ctx.db.conn, interaction_id)
            if record.state != "pending":
                return record

    def _withdraw(self, interaction_id: str) -> None:
        """The call ended while its question was open (e.g. an MCP call timed out): the
        question is withdrawn, and every client is told. Synchronous: safe while cancelled."""
        if self._ctx.actor(self.thread_id).stop_cause is not StopCause.NONE:
            return  # the Turn's own stop withdraws its questions with the Turn
        with self._ctx.db.transaction() as conn:
            withdrawn = approvals.withdraw_interaction(conn, interaction_id)
        if not withdrawn:
            return  # answered meanwhile
        self._ctx.publish.interaction_resolved(
            approvals.get_interaction(self._ctx.db.conn, interaction_id), "cancel"
        )

    def _open(self, prompt: str, schema: dict[str, Any]) -> str:
        interaction_id = new_id("int")
        with self._ctx.db.transaction() as conn:
            approvals.add_interaction(
                conn,
                interaction_id=interaction_id,
                thread_id=self.thread_id,
                turn_id=self.turn_id,
                tool_call_item_id=self._call.id,
                prompt=prompt,
                schema=schema,
            )
            turns.update_run(conn, self._run.run_id, state="awaiting_interaction")
            record = approvals.get_interaction(conn, interaction_id)
        self._ctx.publish.run_updated(self._run, "awaiting_interaction")
        self._ctx.publish.interaction_request(record)
        return interaction_id
