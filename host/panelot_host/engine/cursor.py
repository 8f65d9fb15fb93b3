"""The run cursor: everything a run needs to continue after a crash, stored on its row."""

from __future__ import annotations

from typing import Any

import msgspec

CHANGE_APPROACH_AFTER = 3
DISABLE_TOOLS_AFTER = 5


class RunCursor(msgspec.Struct, rename="camel", kw_only=True):
    """Step counters and the seed's loop state; never anything only memory knows."""

    calls: int = 0  # model calls made
    failure_streak: int = 0  # consecutive tool failures (denials neither count nor reset)
    tools_disabled: bool = False
    steering_cutoff: int = 0  # admission cutoff captured before the latest model call
    model: str = ""
    budget: int | None = None  # tokens for the Turn; None: no budget
    cost_budget: float | None = None  # USD the Turn may reach (its cost so far + budget)
    catalog: dict[str, str] = {}  # tool name -> descriptor digest (the run's catalog)
    browser_tools: list[str] = []
    recovered: bool = False  # settled by recovery; owns its thread until a continuation claim
    token_ratio: float = 0.0  # reported / estimated input tokens (0: not calibrated yet)


def load_cursor(raw: dict[str, Any]) -> RunCursor:
    return msgspec.convert(raw, RunCursor)


def dump_cursor(cursor: RunCursor) -> dict[str, Any]:
    dumped: dict[str, Any] = msgspec.to_builtins(cursor)
    return dumped


def after_tool_result(cursor: RunCursor, *, failure: bool, denial: bool) -> RunCursor:
    """The streak after one settled call: a failure adds one, a success resets it."""
    if denial:
        return cursor
    streak = cursor.failure_streak + 1 if failure else 0
    return msgspec.structs.replace(cursor, failure_streak=streak)


class CursorCell:
    """A running run's cursor as last committed.

    While a driver runs it is the only writer of its run's cursor (ops change a cursor only
    before a driver starts, and recovery before any does), so the driver and its tool steps
    share this copy instead of re-reading the row at every step. Assign ``value`` only after
    the transaction that stored it has committed.
    """

    __slots__ = ("value",)

    def __init__(self, value: RunCursor) -> None:
        self.value = value
