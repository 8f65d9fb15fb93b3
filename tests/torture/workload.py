"""The scripted workload of one host process's lifetime (a round), until it is killed.

Start: ``initialize`` (the host recovers the store), the policy once, then a recovery
pass: ``thread.open`` every thread (a failure is a violation), answer pending approvals,
resolve uncertain calls (sometimes with ``retry``) and ``run.resume`` interrupted runs.
Then random actions: create and rename threads, submit turns whose directives mix
``browser_read`` and ``browser_click``, steer running turns, enqueue behind them,
occasionally interrupt; approvals are answered as they arrive.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import msgspec
from tests.torture.client import HostClient, HostDied, RpcFailure
from tests.torture.killer import Killer
from tests.torture.ledger import Ledger
from tests.torture.shim import BROWSER_TOOLS, ORIGINS

LIVE_TURN = ("running", "paused")
MAX_LIVE_THREADS = 3
TURNS_PER_THREAD = 10  # then the thread is retired (still opened and checked)
POLICY = [{"tool": "browser_click", "origin": ORIGINS[2], "decision": "allow"}]


class ThreadState(msgspec.Struct):
    id: str
    active_turn: str | None = None
    turns: int = 0


class World(msgspec.Struct):
    """What the harness knows across rounds."""

    threads: dict[str, ThreadState] = {}
    counter: int = 0
    policy_acked: bool = False
    start_s: float = 0.5  # spawn to the end of the last full recovery pass

    def next(self) -> int:
        self.counter += 1
        return self.counter

    def live(self) -> list[ThreadState]:
        return [t for t in self.threads.values() if t.turns < TURNS_PER_THREAD]


class Driver:
    """Runs one round against ``client``; returns when the host dies or time is up."""

    def __init__(
        self,
        client: HostClient,
        world: World,
        ledger: Ledger,
        killer: Killer | None,
        rng: random.Random,
    ) -> None:
        self.client, self.world, self.ledger = client, world, ledger
        self.killer, self.rng = killer, rng

    def run(self, fallback_s: float) -> None:
        """The round; ``HostDied`` ends it (the expected way)."""
        assert self.killer is not None
        started = time.monotonic()
        self.start()
        while not self.client.dead.is_set():
            if time.monotonic() - started > fallback_s:
                self.killer.fallback()
            self._act()
            self.killer.notify("action")
            self._pump(self.rng.uniform(0.0, 0.06))

    # ------------------------------------------------------------ start and recovery

    def start(self) -> None:
        """``initialize``, the policy (until acknowledged once), the recovery pass."""
        params = {
            "protocolVersion": 1,
            "client": {"name": "torture", "version": "0"},
            "capabilities": {"browserTools": BROWSER_TOOLS},
        }
        self.client.call("initialize", params, timeout=15.0)
        if not self.world.policy_acked:
            done = self._command("settings.update", {"policyRules": POLICY}, "policy")
            self.world.policy_acked = done is not None
        self.recovery_pass()
        self.world.start_s = time.monotonic() - self.client.spawned_at

    def recovery_pass(self) -> None:
        """Open every thread (each must open) and settle what recovery left waiting."""
        listed = self.client.call("thread.list", {"limit": 200})
        ids = [t["id"] for t in listed["threads"]]
        ids += [i for i in self.world.threads if i not in ids]
        for thread_id in ids:
            try:
                snapshot = self.client.call("thread.open", {"threadId": thread_id})
            except RpcFailure as failure:
                self.ledger.violation(
                    "thread_open",
                    f"thread.open {thread_id} failed after a restart: {failure.kind}: {failure}",
                )
                continue
            self._adopt(thread_id, snapshot)

    def _adopt(self, thread_id: str, snapshot: dict[str, Any]) -> None:
        state = self.world.threads.setdefault(thread_id, ThreadState(thread_id))
        turn, run = snapshot.get("turn"), snapshot.get("run")
        live = turn is not None and turn["status"] in LIVE_TURN
        state.active_turn = turn["id"] if live and turn is not None else None
        for approval in snapshot.get("pendingApprovals", []):
            self._answer_approval(approval["requestId"])
        if not live or run is None:
            return
        if run["state"] == "interrupted":
            self._command("run.resume", {"threadId": thread_id, "runId": run["id"]})
        elif run["state"] == "paused_uncertain":
            for item in snapshot["items"]:
                if item["kind"] == "toolCall" and item["status"] == "uncertain":
                    self._resolve(item["id"])

    def _resolve(self, item_id: str) -> None:
        outcome = self.rng.choices(["succeeded", "failed", "retry"], weights=[4, 3, 3])[0]
        self._command("recovery.resolve", {"toolCallId": item_id, "outcome": outcome})

    # ------------------------------------------------------------ actions

    def _act(self) -> None:
        live = self.world.live()
        busy = [t for t in live if t.active_turn]
        idle = [t for t in live if not t.active_turn]
        roll = self.rng.random()
        if len(live) < MAX_LIVE_THREADS and (not live or roll < 0.15):
            self._create()
        elif roll < 0.22 and live:
            self._rename(self.rng.choice(live))
        elif roll < 0.55 and idle:
            self._submit(self.rng.choice(idle))
        elif roll < 0.75 and busy:
            self._steer(self.rng.choice(busy))
        elif roll < 0.88 and busy:
            self._enqueue(self.rng.choice(busy))
        elif roll < 0.9 and busy:
            self._interrupt(self.rng.choice(busy))

    def _create(self) -> None:
        n = self.world.next()
        result = self._command("thread.create", {"title": f"thread {n}"})
        if result is not None:
            thread_id = result["thread"]["id"]
            self.world.threads.setdefault(thread_id, ThreadState(thread_id))

    def _rename(self, state: ThreadState) -> None:
        title = f"renamed {self.world.next()}"
        self._command("thread.rename", {"threadId": state.id, "title": title})

    def _submit(self, state: ThreadState) -> None:
        text = self._turn_text("turn")
        try:
            result = self._command("turn.submit", {"threadId": state.id, "text": text}, raw=True)
        except RpcFailure as failure:
            if failure.kind == "turn_active":
                self._enqueue(state)
            else:
                self.ledger.rejected("turn.submit", failure)
            return
        if result is not None:
            state.active_turn = result["turnId"]
            state.turns += 1

    def _steer(self, state: ThreadState) -> None:
        assert state.active_turn is not None
        params = {
            "threadId": state.id,
            "expectedTurnId": state.active_turn,
            "text": f"steer#{self.world.next()}",
        }
        if self._command("turn.steer", params) is not None and self.killer is not None:
            self.killer.notify("steer_ack")

    def _enqueue(self, state: ThreadState) -> None:
        params = {"threadId": state.id, "text": self._turn_text("queued")}
        if self._command("turn.enqueue", params) is not None:
            state.turns += 1

    def _interrupt(self, state: ThreadState) -> None:
        try:
            self.client.call("turn.interrupt", {"threadId": state.id})
        except RpcFailure as failure:
            self.ledger.rejected("turn.interrupt", failure)

    def _turn_text(self, label: str) -> str:
        n = self.world.next()
        parts = [f"{label} {n}", f"[[pace {self.rng.uniform(0.0, 0.03):.3f}]]"]
        for _ in range(self.rng.randint(1, 3)):
            tool = self.rng.choice(["browser_read", "browser_click"])
            args: dict[str, Any] = {"tabId": self.rng.choice(list(ORIGINS))}
            if tool == "browser_click":
                args["ref"] = f"e{self.rng.randint(1, 9)}"
            parts.append(f"[[{tool} {json.dumps(args)}]]")
        parts.append(f"[[text answer {n}]]")
        return " ".join(parts)

    # ------------------------------------------------------------ events and commands

    def _pump(self, seconds: float) -> None:
        """Handle events for ``seconds`` (approvals are answered, turn states tracked)."""
        deadline = time.monotonic() + seconds
        while not self.client.dead.is_set():
            left = deadline - time.monotonic()
            event = self.client.next_event(max(0.0, left))
            if event is None:
                return
            self._on_event(event)

    def _on_event(self, event: dict[str, Any]) -> None:
        params = event.get("params") or {}
        state = self.world.threads.get(params.get("threadId", ""))
        match event["method"]:
            case "approval.request":
                self._answer_approval(params["requestId"])
            case "turn.started" if state is not None:
                state.active_turn = params["turnId"]
            case "turn.complete" if state is not None and state.active_turn == params["turnId"]:
                state.active_turn = None
            case _:
                pass

    def _answer_approval(self, request_id: str) -> None:
        decision = "allow" if self.rng.random() < 0.85 else "deny"
        scope = "once" if self.rng.random() < 0.9 else "thread"
        params = {"requestId": request_id, "decision": decision, "scope": scope}
        self._command("approval.response", params)

    def _command(
        self, method: str, params: dict[str, Any], command_id: str = "", *, raw: bool = False
    ) -> dict[str, Any] | None:
        """A command with a fresh ``commandId``; ``raw`` re-raises ``RpcFailure``."""
        cid = command_id or f"k{self.ledger.kill_no}-{self.world.next()}-{method}"
        full = {"commandId": cid, **params}
        if not raw:
            return self.ledger.command(self.client, method, full)
        return self.ledger.command_raw(self.client, method, full)


__all__ = ["Driver", "HostDied", "ThreadState", "World"]
