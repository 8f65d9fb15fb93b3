"""The agent loop of one run (seed sections 1-3): model calls and tool steps until a final
response, driven from the stored run state so it can continue after a crash.

Each step writes its outcome, with the next run state, in one transaction; events follow
the commit. The driver reads the run's cursor once when it starts and then keeps it in
memory (while it runs it is the cursor's only writer), so a crash at any point leaves the
stored state it would have continued from.
"""

from __future__ import annotations

import functools
import logging

import anyio
import msgspec

from panelot_host.engine import prompts
from panelot_host.engine.actor import StopCause
from panelot_host.engine.context import DEFAULT_MAX_TOKENS, EngineContext
from panelot_host.engine.cursor import (
    CHANGE_APPROACH_AFTER,
    DISABLE_TOOLS_AFTER,
    CursorCell,
    RunCursor,
    dump_cursor,
    load_cursor,
)
from panelot_host.engine.finish import TurnFinisher
from panelot_host.engine.history import TurnHistory, build_messages, without_result_images
from panelot_host.engine.models import ResolvedModel
from panelot_host.engine.response import store_response, store_stream_failure
from panelot_host.engine.stream import AssistantDraft, StreamFailed, stream_model_call
from panelot_host.engine.tool_step import RunPaused, ToolStepper
from panelot_host.errors import PanelotError, ProviderError, StoreError
from panelot_host.providers.types import (
    Message,
    ModelRequest,
    RetryNotice,
    TextPart,
    UserMessage,
)
from panelot_host.store import items, steering, threads, turns
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord
from panelot_host.tools.capabilities import reject_image_history
from panelot_host.tools.catalog import RunCatalog, recovered_run_catalog

log = logging.getLogger(__name__)

UNSETTLED = ("pending", "awaiting_approval", "running")


class RunDriver:
    """Drives one run of a thread until it completes, pauses, fails or is stopped."""

    def __init__(self, ctx: EngineContext, thread_id: str, turn_id: str, run_id: str) -> None:
        self.ctx = ctx
        self.thread_id = thread_id
        self.turn_id = turn_id
        self.run_id = run_id
        self.finish = TurnFinisher(ctx, thread_id, turn_id, run_id)
        self._draft: AssistantDraft | None = None
        self._draft_item_id: str | None = None
        self._model: ResolvedModel | None = None
        self._catalog: RunCatalog | None = None
        self._pending_cursor: RunCursor | None = None  # advanced, stored with the response
        self._cell = CursorCell(RunCursor())  # loaded from the run's row when the loop starts
        self._checked_prefix: tuple[list[Message], list[Message]] | None = None
        self._turn_history = TurnHistory()

    async def __call__(self) -> None:
        actor = self.ctx.actor(self.thread_id)
        try:
            await self._loop()
        except RunPaused:
            return  # already paused and released, with its events sent
        except anyio.get_cancelled_exc_class():
            self._settle_stopped(actor.stop_cause)  # synchronous: no await to cancel
            raise
        except PanelotError as exc:
            self._fail(exc.kind, exc.message)
        except Exception as exc:
            log.exception("run %s failed unexpectedly", self.run_id)
            self._fail("internal", f"the engine failed unexpectedly ({type(exc).__name__})")

    def _fail(self, kind: str, message: str) -> None:
        """End the Turn ``failed``; when even that cannot be stored, leave the run as it is
        for recovery rather than let the error escape and stop the host."""
        try:
            self.finish.fail(kind, message)
        except StoreError:
            log.exception(
                "run %s: its failure could not be stored; recovery settles it", self.run_id
            )

    # ------------------------------------------------------------ the loop

    async def _loop(self) -> None:
        cell = self._cell = CursorCell(
            load_cursor(turns.get_run(self.ctx.db.conn, self.run_id).cursor)
        )
        stepper = ToolStepper(self.ctx, self.thread_id, self.turn_id, self.run_id, cell)
        calls = self._unsettled_calls()  # left by a restart, or awaiting approval
        while True:
            cursor = cell.value
            if calls:
                for call in calls:  # each is settled when step returns
                    await stepper.step(call, self._run_catalog(cursor), cursor.tools_disabled)
                calls = []
                continue
            if self._budget_reached(cursor):
                self.finish.pause("budget")
                return
            draft = await self._model_call(cursor)
            if draft is None:
                return
            catalog = dict(self._run_catalog(cursor).tools)
            pending, self._pending_cursor = self._pending_cursor, None
            outcome, calls = store_response(
                self.ctx, self._ids(), draft, self._resolved(cursor), catalog, pending
            )
            if pending is not None:
                cell.value = pending
            self._draft = None
            if outcome in ("tools", "continue"):
                continue
            if outcome == "failed":
                return
            if self._pending_steering():
                continue  # an acknowledged steering message arrived: one more request
            self.finish.complete(draft.stop.stop_reason if draft.stop else "end_turn")
            return

    def _ids(self) -> tuple[str, str, str, str]:
        assert self._draft_item_id is not None
        return self.thread_id, self.turn_id, self.run_id, self._draft_item_id

    def _resolved(self, cursor: RunCursor) -> ResolvedModel:
        if self._model is None:
            self._model = self.ctx.models.resolve(cursor.model or None)
        return self._model

    def _run_catalog(self, cursor: RunCursor) -> RunCatalog:
        """The run's catalog: bound once, from its snapshot, to one registry generation."""
        if self._catalog is None:
            capabilities = self._resolved(cursor).capabilities
            generation = self.ctx.registry.current
            self._catalog = recovered_run_catalog(generation, capabilities, cursor.catalog)
        return self._catalog

    def _unsettled_calls(self) -> list[ItemRecord]:
        return items.of_turn(self.ctx.db.conn, self.thread_id, self.turn_id, statuses=UNSETTLED)

    def _budget_reached(self, cursor: RunCursor) -> bool:
        if cursor.budget is None:
            return False
        return turns.get_turn(self.ctx.db.conn, self.turn_id).usage.total >= cursor.budget

    def _pending_steering(self) -> bool:
        return bool(steering.pending_steering(self.ctx.db.conn, self.turn_id))

    # ------------------------------------------------------------ one model call

    async def _model_call(self, cursor: RunCursor) -> AssistantDraft | None:
        model = self._resolved(cursor)
        cursor = self._admit_steering(cursor)
        request = self._request(cursor, model)
        item_id = new_id("itm")
        self._draft, self._draft_item_id = AssistantDraft(), item_id
        placeholder = ItemRecord(
            id=item_id,
            thread_id=self.thread_id,
            parent_id=None,
            turn_id=self.turn_id,
            kind="assistant",
            created_at=now_ms(),
        )
        self.ctx.publish.item_started(placeholder, self.turn_id)
        try:
            return await stream_model_call(
                model.provider, request, self._draft, self._delta, self._retry_notice
            )
        except StreamFailed as failed:
            store_stream_failure(self.ctx, self._ids(), failed)
            self._draft = None
            self.finish.fail("provider", failed.error.message)
            return None

    def _delta(self, field: str, text: str) -> None:
        assert self._draft_item_id is not None
        self.ctx.publish.delta(self.thread_id, self.turn_id, self._draft_item_id, field, text)

    def _retry_notice(self, notice: RetryNotice) -> None:
        text = (
            f"The model is unavailable ({notice.reason}); retrying in {notice.delay_s:.0f} s, "
            f"attempt {notice.attempt}/{notice.max_attempts}."
        )
        self._add_notice("provider_retry", text)

    def _admit_steering(self, cursor: RunCursor) -> RunCursor:
        """Capture the admission cutoff and materialise the steering admitted up to it.

        Without steering or a notice to store, nothing is written here: the advanced cursor
        is stored with the model call's response (one commit per model call)."""
        db = self.ctx.db
        conn = db.conn
        unstored = self.ctx.unstored_steering.pop(self.turn_id, [])  # failpoint only
        cutoff = steering.steering_cutoff(conn)
        admitted = steering.pending_steering_upto(conn, self.turn_id, cutoff)
        cursor = self._next_call_cursor(cursor, cutoff)
        if not (unstored or admitted or self._due_notice(cursor)):
            self._pending_cursor = cursor
            return cursor
        added: list[ItemRecord] = []
        with db.transaction() as conn:
            for item_id, text in unstored:
                steering.add_steering(
                    conn,
                    steering_id=item_id,
                    thread_id=self.thread_id,
                    turn_id=self.turn_id,
                    text=text,
                )
            cutoff = steering.steering_cutoff(conn)
            head = threads.get(conn, self.thread_id).head_item_id
            for message in steering.pending_steering_upto(conn, self.turn_id, cutoff):
                item = ItemRecord(
                    id=message.id,
                    thread_id=self.thread_id,
                    parent_id=head,
                    turn_id=self.turn_id,
                    kind="steering",
                    created_at=message.created_at,
                    text=message.text,
                )
                items.insert(conn, item)
                steering.mark_admitted(conn, message.id, cursor.calls)
                head = item.id
                added.append(item)
            added.extend(self._streak_notices(cursor, head))
            if added:
                threads.set_head(conn, self.thread_id, added[-1].id)
            cursor = msgspec.structs.replace(cursor, steering_cutoff=cutoff)
            turns.update_run(conn, self.run_id, state="streaming", cursor=dump_cursor(cursor))
        self._pending_cursor = None
        self._cell.value = cursor
        for item in added:
            self.ctx.publish.item_started(item, self.turn_id)
            self.ctx.publish.item_completed(item, self.turn_id)
        return cursor

    def _due_notice(self, cursor: RunCursor) -> tuple[str, str] | None:
        """The failure-streak notice this model call owes the user (once per Turn each)."""
        streak = cursor.failure_streak
        if streak >= DISABLE_TOOLS_AFTER:
            code, text = "tools_disabled", prompts.TOOLS_DISABLED.format(n=streak)
        elif streak == CHANGE_APPROACH_AFTER:
            code, text = "change_approach", prompts.CHANGE_APPROACH.format(n=streak)
        else:
            return None
        given = items.has_notice(self.ctx.db.conn, self.thread_id, self.turn_id, code)
        return None if given else (code, text)

    def _next_call_cursor(self, cursor: RunCursor, cutoff: int) -> RunCursor:
        disable = cursor.failure_streak >= DISABLE_TOOLS_AFTER
        return msgspec.structs.replace(
            cursor,
            calls=cursor.calls + 1,
            steering_cutoff=cutoff,
            tools_disabled=cursor.tools_disabled or disable,
        )

    def _streak_notices(self, cursor: RunCursor, head: str | None) -> list[ItemRecord]:
        due = self._due_notice(cursor)
        if due is None:
            return []
        notice = self._notice_record(*due, head)
        items.insert(self.ctx.db.conn, notice)
        return [notice]

    def _notice_record(self, code: str, text: str, parent: str | None) -> ItemRecord:
        return ItemRecord(
            id=new_id("itm"),
            thread_id=self.thread_id,
            parent_id=parent,
            turn_id=self.turn_id,
            kind="notice",
            created_at=now_ms(),
            text=text,
            extra={"code": code},
        )

    def _add_notice(self, code: str, text: str) -> None:
        with self.ctx.db.transaction() as conn:
            head = threads.get(conn, self.thread_id).head_item_id
            notice = self._notice_record(code, text, head)
            items.insert(conn, notice)
            threads.set_head(conn, self.thread_id, notice.id)
        self.ctx.publish.item_started(notice, self.turn_id)
        self.ctx.publish.item_completed(notice, self.turn_id)

    def _request(self, cursor: RunCursor, model: ResolvedModel) -> ModelRequest:
        prefix, current = self._history()
        nudge = _nudge(cursor)
        if nudge:
            current.append(UserMessage(content=[TextPart(nudge)]))
        messages = [*self._checked_prefix_of(prefix, model), *_fitted(current, model)]
        tools = [] if cursor.tools_disabled else self._run_catalog(cursor).specs()
        max_tokens = model.info.max_output_tokens or DEFAULT_MAX_TOKENS
        return ModelRequest(
            model=model.model,
            system=self.ctx.system_prompt,
            messages=_non_empty(messages),
            tools=tools,
            max_tokens=min(max_tokens, 16384),
        )

    def _checked_prefix_of(self, prefix: list[Message], model: ResolvedModel) -> list[Message]:
        """The part before this Turn, fitted to the model once per run (see ``_fitted``),
        so a model call costs what this Turn added, not the whole thread."""
        cached = self._checked_prefix
        if cached is None or cached[0] is not prefix:
            cached = self._checked_prefix = (prefix, _fitted(prefix, model))
        return cached[1]

    def _history(self) -> tuple[list[Message], list[Message]]:
        """The branch as messages: the part before this Turn comes from a cache keyed by its
        last item (items are never rewritten), and this Turn's part is extended by the items
        stored since the last model call, so a model call costs what was added, not the
        thread or the Turn so far."""
        conn = self.ctx.db.conn
        prefix_end = self._prefix_end
        cached = self.ctx.history_cache.get(self.thread_id)
        if cached is None or cached[0] != prefix_end:
            cached = (prefix_end, self._prefix_messages(prefix_end, cached))
            self.ctx.history_cache[self.thread_id] = cached
        turn = self._turn_history
        added = items.of_turn(conn, self.thread_id, self.turn_id, after=turn.last_item_id)
        return cached[1], turn.messages(added)

    @functools.cached_property
    def _prefix_end(self) -> str | None:
        """The item before this Turn's user message: the end of the cached prefix."""
        conn = self.ctx.db.conn
        user_item_id = turns.get_turn(conn, self.turn_id).user_item_id
        return items.get(conn, user_item_id).parent_id if user_item_id else None

    def _prefix_messages(
        self, prefix_end: str | None, cached: tuple[str | None, list[Message]] | None
    ) -> list[Message]:
        """Extend the cached prefix by the items stored after it when they continue it
        (the previous Turn); else rebuild the branch (another branch was selected)."""
        conn = self.ctx.db.conn
        if cached is not None and cached[0] is not None and prefix_end is not None:
            delta = items.continuation(conn, self.thread_id, cached[0], prefix_end)
            if delta is not None:
                return [*cached[1], *build_messages(delta)]
        return build_messages(items.iter_branch(conn, prefix_end))

    # ------------------------------------------------------------ stop

    def _settle_stopped(self, cause: StopCause) -> None:
        """Keep what streamed; settle the run for the user's interrupt or for recovery."""
        # ``_draft`` is cleared as soon as the response is stored: a draft here never was
        draft = self._draft
        if draft is not None and self._draft_item_id is not None and draft.started:
            stopped = StreamFailed(ProviderError("stopped"), draft)
            store_stream_failure(self.ctx, self._ids(), stopped)
        if cause is StopCause.INTERRUPT:
            self.finish.interrupted()
        else:
            self.finish.suspend()


def _fitted(messages: list[Message], model: ResolvedModel) -> list[Message]:
    """Fit history to the model's capabilities before the provider call: images in tool
    results become a note for a model without vision (e.g. an MCP tool returned one);
    images the user sent are refused with ``CapabilityError``."""
    fitted = messages if model.capabilities.vision else without_result_images(messages)
    reject_image_history(fitted, model.capabilities)
    return fitted


def _nudge(cursor: RunCursor) -> str | None:
    if cursor.tools_disabled:
        return prompts.TOOLS_DISABLED.format(n=max(cursor.failure_streak, DISABLE_TOOLS_AFTER))
    if cursor.failure_streak >= CHANGE_APPROACH_AFTER:
        return prompts.CHANGE_APPROACH.format(n=cursor.failure_streak)
    return None


def _non_empty(messages: list[Message]) -> list[Message]:
    return messages or [UserMessage(content=[TextPart("(empty conversation)")])]
