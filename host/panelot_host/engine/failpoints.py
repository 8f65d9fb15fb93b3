"""Fault-injection points (like etcd's failpoints) that break the engine on purpose.

Off unless ``PANELOT_FAILPOINTS`` (a comma list) names them: the kill -9 torture harness
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
from collections.abc import Mapping

import msgspec

log = logging.getLogger(__name__)

KNOWN = frozenset(
    {"ack_before_commit", "split_result_state", "rerun_write", "unexpected_exception"}
)


class Failpoints(msgspec.Struct, frozen=True):
    enabled: frozenset[str] = frozenset()

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Failpoints:
        names = {n.strip() for n in environ.get("PANELOT_FAILPOINTS", "").split(",") if n.strip()}
        unknown = names - KNOWN
        if unknown:
            raise ValueError(f"unknown failpoints {sorted(unknown)}; known: {sorted(KNOWN)}")
        if names:
            log.warning("FAILPOINTS ENABLED (the engine is broken on purpose): %s", sorted(names))
        return cls(frozenset(names))

    def on(self, name: str) -> bool:
        return name in self.enabled
