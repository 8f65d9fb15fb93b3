"""Fault injection (like etcd's failpoints): the engine's seams for breaking it on purpose.

The engine calls a ``FaultHook`` at a few points and never asks which fault is on: the
base class injects none and is what production runs. ``Failpoints`` overrides the seams
for the points ``PANELOT_FAILPOINTS`` (a comma list) names: the kill -9 torture harness
enables each in turn to show that its checks see that class of bug. Never set in
production; the host logs a warning when any is on.

- ``ack_before_commit``: ``turn.steer`` is acknowledged before the steering message is
  stored (it is written only at the next model-call boundary);
- ``split_result_state``: a tool call's status is committed in one transaction and its
  result and the run state in a later one;
- ``rerun_write``: recovery treats a cut-off write call as safe to run again.

One is not a bug but a way to die: ``unexpected_exception`` makes the served host raise
an unexpected exception when it receives SIGUSR1 (``server.native``), so the torture
harness can check that such a crash settles like any other stop.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping

import anyio

from panelot_host.store import items, steering
from panelot_host.store.db import Database
from panelot_host.vocabulary import RecoveryClass, ToolCallStatus

log = logging.getLogger(__name__)

KNOWN = frozenset(
    {"ack_before_commit", "split_result_state", "rerun_write", "unexpected_exception"}
)


class FaultHook:
    """The seams where a fault can be injected; this base injects none."""

    def store_steering(
        self, conn: sqlite3.Connection, *, steering_id: str, thread_id: str, turn_id: str, text: str
    ) -> None:
        """Store a steering message in the caller's transaction (``turn.steer``)."""
        steering.add_steering(
            conn, steering_id=steering_id, thread_id=thread_id, turn_id=turn_id, text=text
        )

    def before_model_call(self, db: Database, turn_id: str) -> None:
        """Called at each model-call boundary, before the steering is admitted."""

    async def before_result(self, db: Database, call_id: str, status: ToolCallStatus) -> None:
        """Called after a tool ran, before its result and status are stored."""

    def recovery_class(self, declared: RecoveryClass) -> RecoveryClass:
        """How recovery treats a call cut off by the last process's end."""
        return declared


NO_FAULTS = FaultHook()


def enabled_failpoints(environ: Mapping[str, str]) -> frozenset[str]:
    """The failpoints ``PANELOT_FAILPOINTS`` names (a warning is logged when any is);
    raises ``ValueError`` for an unknown name."""
    names = {n.strip() for n in environ.get("PANELOT_FAILPOINTS", "").split(",") if n.strip()}
    unknown = names - KNOWN
    if unknown:
        raise ValueError(f"unknown failpoints {sorted(unknown)}; known: {sorted(KNOWN)}")
    if names:
        log.warning("FAILPOINTS ENABLED (the engine is broken on purpose): %s", sorted(names))
    return frozenset(names)


class Failpoints(FaultHook):
    """The faults named in ``enabled``, each a bug the torture harness must catch."""

    def __init__(self, enabled: frozenset[str]) -> None:
        self.enabled = enabled
        self._unstored: dict[str, list[tuple[str, str, str]]] = {}  # turn -> steering

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> FaultHook:
        """The hook for ``PANELOT_FAILPOINTS``: ``NO_FAULTS`` when it names none."""
        names = enabled_failpoints(environ)
        return cls(names) if names else NO_FAULTS

    def on(self, name: str) -> bool:
        return name in self.enabled

    def store_steering(
        self, conn: sqlite3.Connection, *, steering_id: str, thread_id: str, turn_id: str, text: str
    ) -> None:
        if not self.on("ack_before_commit"):
            super().store_steering(
                conn, steering_id=steering_id, thread_id=thread_id, turn_id=turn_id, text=text
            )
            return
        # the bug: acknowledged now, kept in memory until the next model call
        self._unstored.setdefault(turn_id, []).append((steering_id, thread_id, text))

    def before_model_call(self, db: Database, turn_id: str) -> None:
        unstored = self._unstored.pop(turn_id, [])
        if unstored:
            with db.transaction() as conn:
                for steering_id, thread_id, text in unstored:
                    super().store_steering(
                        conn,
                        steering_id=steering_id,
                        thread_id=thread_id,
                        turn_id=turn_id,
                        text=text,
                    )

    async def before_result(self, db: Database, call_id: str, status: ToolCallStatus) -> None:
        if self.on("split_result_state"):
            with db.transaction() as conn:  # the bug: the status without its result
                items.set_tool_status(conn, call_id, status)
            await anyio.sleep(0.05)

    def recovery_class(self, declared: RecoveryClass) -> RecoveryClass:
        if self.on("rerun_write") and declared == "write":
            return "read"  # the bug: a write whose outcome is unknown runs again on resume
        return declared
