"""One MCP tool call in flight: its deadline, progress, and the elicitations it owns."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import mcp_types as mt
import pydantic

from panelot_host.errors import ToolError
from panelot_host.tools.context import ToolContext
from panelot_host.tools.mcp.masking import OutputMask

log = logging.getLogger(__name__)


class CallDeadline:
    """An inactivity timeout with a hard cap, as a cancel scope around the call.

    The call is cancelled after ``idle_s`` without news: each progress notification
    restarts that window, but never beyond ``max_s`` after the start. Time spent waiting
    for the user (an elicitation) counts for neither: the clock is paused meanwhile.
    """

    def __init__(self, idle_s: float, max_s: float) -> None:
        now = anyio.current_time()
        self._idle = idle_s
        self._cap = now + max_s
        self._paused = 0
        self.scope = anyio.CancelScope(deadline=min(now + idle_s, self._cap))

    @property
    def expired(self) -> bool:
        """Whether the deadline (not an outer cancellation) ended the call."""
        return self.scope.cancelled_caught

    def extend(self) -> None:
        """News from the server: restart the inactivity window (up to the cap)."""
        if not self._paused:
            self.scope.deadline = min(anyio.current_time() + self._idle, self._cap)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the clock while the block waits for a person."""
        started = anyio.current_time()
        self._paused += 1
        self.scope.deadline = math.inf
        try:
            yield
        finally:
            self._paused -= 1
            self._cap += anyio.current_time() - started
            self.extend()


class InFlight:
    """A call the connection is running for a tool's ``execute`` (with its context)."""

    def __init__(
        self, server: str, context: ToolContext, deadline: CallDeadline, mask: OutputMask
    ) -> None:
        self._server = server
        self._mask = mask
        self.context = context
        self.deadline = deadline
        self._asks: set[anyio.CancelScope] = set()

    async def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """The SDK's progress callback: extend the deadline, report to the engine (masked)."""
        self.deadline.extend()
        self.context.report_progress(self._mask.text(progress_text(progress, total, message)))

    async def elicit(self, params: mt.ElicitRequestFormParams) -> mt.ElicitResult:
        """Ask the user through the call's context (question and schema masked); a decline
        or cancel maps to MCP's.

        ``ToolError`` from ``ask_user`` (the user declined or cancelled) -> ``decline``;
        the call ending first (timeout, interrupt) -> ``cancel``.
        """
        prompt = self._mask.text(f"The MCP server “{self._server}” asks: {params.message}")
        schema: dict[str, Any] = self._mask.value(dict(params.requested_schema))
        values: dict[str, Any] | None = None
        with anyio.CancelScope() as scope, self.deadline.paused():
            self._asks.add(scope)
            try:
                values = await self.context.ask_user(prompt, schema)
            except ToolError:
                return mt.ElicitResult(action="decline")
            finally:
                self._asks.discard(scope)
        if values is None:
            return mt.ElicitResult(action="cancel")
        return _accepted(values)

    def finish(self) -> None:
        """The call is over: stop asking the user on its behalf."""
        for scope in self._asks:
            scope.cancel()


def _accepted(values: dict[str, Any]) -> mt.ElicitResult:
    try:
        return mt.ElicitResult(action="accept", content=values)
    except pydantic.ValidationError:
        log.warning("an elicitation answer was not flat primitive values; declined")
        return mt.ElicitResult(action="decline")


def progress_text(progress: float, total: float | None, message: str | None) -> str:
    """``"message (3/5)"``, ``"3/5"`` or ``"3"``."""
    count = _number(progress) + (f"/{_number(total)}" if total is not None else "")
    return f"{message} ({count})" if message else count


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
