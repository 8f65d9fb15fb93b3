"""What the harness sent and what the host acknowledged (a response received), and the
violations found so far."""

from __future__ import annotations

from typing import Any

import msgspec
from tests.torture.client import HostClient, RpcFailure

# error kinds a well-behaved host may answer the workload with (races the harness causes)
EXPECTED_KINDS = frozenset(
    {
        "stale_turn",
        "turn_active",
        "thread_busy",
        "invalid_state",
        "queue_full",
        "not_found",
        "conflict",
    }
)


class Violation(msgspec.Struct, frozen=True):
    kill_no: int  # the kill after which it was seen (0: before the first kill)
    kind: str  # integrity, ack_lost, tool_result, write_twice, thread_open, usage, ...
    detail: str

    def __str__(self) -> str:
        return f"after kill {self.kill_no}: [{self.kind}] {self.detail}"


class Sent(msgspec.Struct, frozen=True):
    kill_no: int
    method: str
    params: dict[str, Any]


class Ack(msgspec.Struct, frozen=True):
    kill_no: int
    method: str
    params: dict[str, Any]
    result: dict[str, Any]

    @property
    def command_id(self) -> str:
        return str(self.params["commandId"])


class Ledger:
    """Commands sent and acknowledged over the whole torture run, plus the violations."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self.acks: list[Ack] = []
        self.violations: list[Violation] = []
        self.kill_no = 0

    def violation(self, kind: str, detail: str) -> None:
        self.violations.append(Violation(self.kill_no, kind, detail))

    def command(
        self, client: HostClient, method: str, params: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Send a command; record it and, once answered, its acknowledgement.

        Returns the result, or None for an expected error (an unexpected one is a
        violation); raises ``HostDied``.
        """
        try:
            return self.command_raw(client, method, params)
        except RpcFailure as failure:
            self.rejected(method, failure)
            return None

    def command_raw(
        self, client: HostClient, method: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        """As ``command``, but an error response raises ``RpcFailure``."""
        self.sent.append(Sent(self.kill_no, method, params))
        result = client.call(method, params)
        self.acks.append(Ack(self.kill_no, method, params, result))
        return result

    def rejected(self, method: str, failure: RpcFailure) -> None:
        if failure.kind not in EXPECTED_KINDS:
            self.violation("host_error", f"{method} failed with {failure.kind}: {failure}")

    def sent_after_last_ack(self, method: str, key: str, value: str) -> list[Sent]:
        """The ``method`` commands for ``params[key] == value`` from the last acknowledged
        one on (all of them when none was acknowledged)."""
        matching = [s for s in self.sent if s.method == method and s.params.get(key) == value]
        acked = {a.command_id for a in self.acks if a.method == method}
        last = max((i for i, s in enumerate(matching) if s.params["commandId"] in acked), default=0)
        return matching[last:]
