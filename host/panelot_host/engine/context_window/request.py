"""The request of a run's model call (``docs/engine.md``, "Agent loop"): the session
context fitted to the model's capabilities, superseded page state elided, compacted first
when it nears the model's input budget; and the token ratio the provider's counts teach.

The loop drives the run and asks ``RequestBuilder`` once per model call (again, forced,
when the provider answers that the prompt is too long).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import msgspec

from panelot_host.engine import prompts
from panelot_host.engine.context import EngineContext, RunRef
from panelot_host.engine.context_window.compaction import (
    COMPACT_AT,
    FORCED_TAIL,
    KEEP_TAIL,
    CompactionFailed,
    Compactor,
    item_cost,
    plan,
)
from panelot_host.engine.context_window.elision import Elider, Marks
from panelot_host.engine.context_window.history import without_result_images
from panelot_host.engine.context_window.session_context import SessionContext
from panelot_host.engine.context_window.tokens import (
    ModelLimits,
    TokenEstimator,
    calibrated_ratio,
    effective_ratio,
    message_tokens,
    model_limits,
)
from panelot_host.engine.cursor import CHANGE_APPROACH_AFTER, DISABLE_TOOLS_AFTER, RunCursor
from panelot_host.engine.models import ResolvedModel, reasoning_options
from panelot_host.engine.stream import AssistantDraft
from panelot_host.errors import ContextOverflow
from panelot_host.providers.types import (
    Message,
    ModelRequest,
    TextPart,
    ToolResultMessage,
    UserMessage,
)
from panelot_host.store import items
from panelot_host.tools.capabilities import reject_image_history
from panelot_host.tools.catalog import RunCatalog

log = logging.getLogger(__name__)

RETRY_GROWTH = 1.1  # a failed compaction is tried again once the context grew by 10 %

Notice = Callable[[str, str], None]  # (code, text): a notice the run stores and shows


class CheckedPrefix(msgspec.Struct, frozen=True):
    """The part before the Turn (the list object the session context gave) and the same
    fitted to the model (``fitted``): made once per run, not per model call."""

    prefix: list[Message]
    fitted: list[Message]


class RequestBuilder:
    """The requests of one run's model calls, and their token account.

    ``catalog`` gives the run's tools for a cursor (bound once per run by the driver);
    ``notice`` stores a notice on the branch (a compaction that failed)."""

    def __init__(
        self,
        ctx: EngineContext,
        run: RunRef,
        catalog: Callable[[RunCursor], RunCatalog],
        notice: Notice,
    ) -> None:
        self.ctx = ctx
        self.run = run
        self._catalog = catalog
        self._notice = notice
        self._session = SessionContext(ctx, run.thread_id, run.turn_id)
        self._estimator = TokenEstimator()
        self._elider = Elider()
        self._checked_prefix: CheckedPrefix | None = None
        self._raw_estimate = 0  # of the request being answered, to calibrate the ratio
        self._compact_after = 0  # after a compaction found nothing or failed: try again past

    async def fitted(
        self, cursor: RunCursor, model: ResolvedModel, *, forced: bool = False
    ) -> ModelRequest:
        """The request of this model call, compacted first when its context passed
        ``COMPACT_AT`` of the model's input budget (``forced``: the provider said the
        prompt is too long; raises ``ContextOverflow`` when nothing more can be done).
        ``cursor`` is the run's current one: its ratio scales the estimate."""
        limits = model_limits(model.info, self.ctx.policy.settings())
        request, raw = self._request(cursor, model, limits)
        ratio = effective_ratio(cursor.token_ratio)
        due = raw * ratio > COMPACT_AT * limits.input_budget and raw > self._compact_after
        if forced or due:
            tail = (FORCED_TAIL if forced else KEEP_TAIL) * limits.input_budget / ratio
            try:
                if await self._compact(request, model, int(tail), int(raw * ratio)):
                    request, raw = self._request(cursor, model, limits)
                elif forced:
                    raise ContextOverflow(self.overflow_message(model, ""))
                else:
                    self._compact_after = int(raw * RETRY_GROWTH)  # nothing older to cover
            except CompactionFailed as failed:
                if forced:
                    reason = f" (summarizing failed: {failed.reason})"
                    raise ContextOverflow(self.overflow_message(model, reason)) from None
                log.warning("run %s: compaction failed: %s", self.run.run_id, failed.reason)
                self._compact_after = int(raw * RETRY_GROWTH)
                self._notice("compaction_failed", f"Could not summarize older turns: "
                             f"{failed.reason}")  # fmt: skip
        self._raw_estimate = raw
        log.debug(
            "run %s: context ~%d tokens (raw %d x %.2f) of %d input budget, %d messages",
            self.run.run_id, int(raw * ratio), raw, ratio, limits.input_budget,
            len(request.messages),
        )  # fmt: skip
        return request

    def calibrated(self, cursor: RunCursor, draft: AssistantDraft) -> RunCursor:
        """``cursor`` with the estimate's ratio learnt from the input tokens the provider
        reported for the last request (``cursor`` itself when nothing changes); stored with
        the response, so a continued run decides the same way."""
        if draft.stop is None or not draft.stop.usage_reported:
            return cursor
        ratio = calibrated_ratio(cursor.token_ratio, self._raw_estimate, draft.stop.usage)
        if ratio == cursor.token_ratio:
            return cursor
        return msgspec.structs.replace(cursor, token_ratio=ratio)

    def overflow_message(self, model: ResolvedModel, reason: str) -> str:
        """What the user is told when the context cannot fit ``model``'s window."""
        window = model_limits(model.info, self.ctx.policy.settings()).context_window
        return prompts.CONTEXT_OVERFLOW.format(model=model.model, window=window, reason=reason)

    async def _compact(
        self, request: ModelRequest, model: ResolvedModel, tail: int, estimate: int
    ) -> bool:
        """Store a compaction of the oldest turns; False when there is nothing to cover."""
        compactor = Compactor(self.ctx, self.run)
        boundary = self._session.boundary
        results = {
            m.call_id: message_tokens(m)
            for m in request.messages
            if isinstance(m, ToolResultMessage)
        }
        covered = plan(compactor.region(boundary), item_cost(results), tail)
        if covered is None:
            return False
        previous = items.get(self.ctx.db.conn, boundary.item_id) if boundary else None
        record = await compactor.compact(covered, previous, model, estimate)
        self._session.compacted(record)
        self._checked_prefix = None
        return True

    def _request(
        self, cursor: RunCursor, model: ResolvedModel, limits: ModelLimits
    ) -> tuple[ModelRequest, int]:
        """The request from the session context (superseded page state elided), and its
        raw token estimate."""
        prefix, current = self._session.messages()
        nudge = _nudge(cursor)
        if nudge:
            current.append(UserMessage(content=[TextPart(nudge)]))
        compacted = self._session.boundary is not None
        elided = self._session.elided(
            self._elider,
            self._checked_prefix_of(prefix, model),
            _fitted(current, model),
            Marks.of_budget(limits.input_budget, after_compaction=compacted),
            self._estimator.of,
        )
        tools = [] if cursor.tools_disabled else self._catalog(cursor).specs()
        reasoning = reasoning_options(
            model.model, self.ctx.policy.settings(), limits.max_output_tokens
        )
        request = ModelRequest(
            model=model.model,
            system=self.ctx.system_prompt,
            messages=_non_empty(elided.messages),
            tools=tools,
            max_tokens=limits.max_output_tokens,
            thinking_budget=reasoning.thinking_budget,
            reasoning_effort=reasoning.effort,
            stable_prefix=elided.stable if elided.messages else 0,
        )
        self._estimator.forget_unless(request.messages)
        head = self._estimator.head(request.system, tools)
        size = elided.size if elided.messages else self._estimator.messages(request.messages)
        return request, head + size

    def _checked_prefix_of(self, prefix: list[Message], model: ResolvedModel) -> list[Message]:
        """The part before this Turn, fitted to the model once per run (see ``_fitted``),
        so a model call costs what this Turn added, not the whole thread."""
        checked = self._checked_prefix
        if checked is None or checked.prefix is not prefix:
            checked = self._checked_prefix = CheckedPrefix(prefix, _fitted(prefix, model))
        return checked.fitted


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
