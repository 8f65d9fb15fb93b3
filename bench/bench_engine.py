"""Engine: durable tool steps per second, scripted model + a no-op L0 read tool.

Run: .venv/bin/python bench/bench_engine.py [--quick] [--profile]

T=20 turns x K=10 tool steps on one thread: in each turn the scripted model calls the
no-op tool once per model call, 10 times in sequence, then ends with a text (11 model
calls). Each turn goes through ``DirectTransport`` (``turn.submit`` -> ``turn.complete``).
A warm-up turn on another thread comes first.

Baseline (same run, same folder): the minimal SQLite commits the seed implies, 1 at
admission + 1 per model call + 2 per tool step = 32 small INSERT/UPDATE commits per turn
on a WAL database with ``synchronous=FULL`` (measured before and after the engine; the
mean is used). Targets: steps/s >= 50 % of that floor; per-step cost flat as the thread
grows (last turn <= 1.2x the first; judged on the median of the first 3 vs the last 3
turns, the single-turn ratio is printed too). Then the SQLite statements and COMMITs the
engine actually issues per tool step (trace callback on its connection), and the same
turn on a thread that already holds 10,000 items: its second turn there, held to the same
1.2x (the first also reads the long branch once into the history cache; it is printed).
"""

from __future__ import annotations

import argparse
import cProfile
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import anyio

from _common import (
    ToolSteps,
    figure,
    header,
    median,
    profile_lines,
    scripted_host,
    seed_profile,
    verdict,
)
from panelot_host.server.transport import DirectTransport

FLOOR_SHARE_TARGET = 0.5
FLAT_TARGET = 1.2


class Driver:
    """Submits turns through a ``DirectTransport`` and waits for their ``turn.complete``."""

    def __init__(self, client: DirectTransport) -> None:
        self.client = client
        self.done: dict[str, dict[str, Any]] = {}
        self.changed = anyio.Event()
        client.on_event(self._on_event)
        self.submitted = 0

    def _on_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "turn.complete":
            self.done[params["turnId"]] = params
            self.changed.set()

    async def new_thread(self) -> str:
        self.submitted += 1
        created = await self.client.send("thread.create", {"commandId": f"c{self.submitted}"})
        thread_id: str = created["thread"]["id"]
        return thread_id

    async def turn(self, thread_id: str) -> float:
        """Seconds from ``turn.submit`` to its ``turn.complete``."""
        self.submitted += 1
        start = time.perf_counter()
        result = await self.client.send(
            "turn.submit",
            {
                "commandId": f"s{self.submitted}",
                "threadId": thread_id,
                "text": f"Run the checks, round {self.submitted}.",
            },
        )
        turn_id = result["turnId"]
        with anyio.fail_after(60):
            while turn_id not in self.done:
                self.changed = anyio.Event()
                await self.changed.wait()
        elapsed = time.perf_counter() - start
        status = self.done[turn_id]["status"]
        if status != "completed":
            raise RuntimeError(f"turn {turn_id} ended {status}: {self.done[turn_id]}")
        return elapsed


def commit_floor(folder: Path, turns: int, steps: int) -> float:
    """Seconds for the commits T turns imply: 1 + (K + 1) + 2K small commits per turn."""
    path = folder / "floor.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE row (id INTEGER PRIMARY KEY, state TEXT, body TEXT)")
    body = "x" * 200

    def commit(sql: str, args: tuple[Any, ...]) -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(sql, args)
        conn.execute("COMMIT")

    insert = "INSERT INTO row (state, body) VALUES (?, ?)"
    start = time.perf_counter()
    for _ in range(turns):
        commit(insert, ("admitted", body))  # admission
        for _ in range(steps):
            commit(insert, ("model call", body))  # one model call's result
            commit(insert, ("tool running", body))  # tool step: the call is durable
            commit("UPDATE row SET state = ? WHERE id = last_insert_rowid()", ("done",))
        commit(insert, ("final model call", body))
    elapsed = time.perf_counter() - start
    conn.close()
    return elapsed


class StatementCounter:
    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()

    def __call__(self, statement: str) -> None:
        words = statement.lstrip().split(None, 2)
        head = " ".join(words[:2]).upper() if words else ""
        kind = head if head.startswith("BEGIN") else head.split(" ")[0]
        self.kinds[kind] += 1


async def run(home: Path, turns: int, steps: int, long_thread: str, profile: bool) -> None:
    async with scripted_host(home, ToolSteps(steps)) as (host, client):
        driver = Driver(client)
        await driver.turn(await driver.new_thread())  # warm-up

        floor_before = commit_floor(home, turns, steps)
        thread_id = await driver.new_thread()
        per_turn = [await driver.turn(thread_id) for _ in range(turns)]
        floor_after = commit_floor(home, turns, steps)

        total = sum(per_turn)
        rate = turns * steps / total
        floor = (floor_before + floor_after) / 2
        floor_rate = turns * steps / floor
        commits = turns * (2 + 3 * steps)
        print(
            f"{turns} turns x {steps} tool steps ({steps + 1} model calls per turn); "
            f"engine {total:.2f} s; floor {commits} commits in {floor_before:.2f} s before, "
            f"{floor_after:.2f} s after the engine ({floor / commits * 1000:.2f} ms per commit)"
        )
        print("per-turn time per tool step (ms):")
        print("  " + " ".join(f"{t / steps * 1000:.1f}" for t in per_turn))
        figure(
            "durable tool steps per second",
            rate,
            "steps/s",
            baseline=floor_rate,
            baseline_name="commit floor",
            target=f">= {FLOOR_SHARE_TARGET:.0%} of the floor",
            met=rate >= FLOOR_SHARE_TARGET * floor_rate,
            extra=f"{rate / floor_rate:.0%} of the floor; {total / (turns * steps) * 1000:.2f} "
            f"ms per step vs {floor / (turns * steps) * 1000:.2f} ms",
        )
        head = median(per_turn[:3]) / steps * 1000
        tail = median(per_turn[-3:]) / steps * 1000
        figure(
            "per-step cost, last 3 turns (median) vs first 3",
            tail,
            "ms",
            baseline=head,
            baseline_name="first 3",
            target=f"<= {FLAT_TARGET}x",
            met=tail <= FLAT_TARGET * head,
            extra=f"single turns: last {per_turn[-1] / steps * 1000:.2f} ms vs first "
            f"{per_turn[0] / steps * 1000:.2f} ms = {per_turn[-1] / per_turn[0]:.2f}x "
            f"({verdict(per_turn[-1] <= FLAT_TARGET * per_turn[0])})",
        )

        assert host.profile is not None
        counter = StatementCounter()
        host.profile.db.conn.set_trace_callback(counter)
        await driver.turn(thread_id)
        host.profile.db.conn.set_trace_callback(None)
        kinds = counter.kinds
        statements = sum(kinds.values())
        print(
            f"\nSQLite statements of one traced turn ({steps} steps, {steps + 1} model calls): "
            + ", ".join(f"{k} {v}" for k, v in kinds.most_common())
        )
        figure(
            "SQLite COMMITs per tool step (engine, one turn / K)",
            kinds["COMMIT"] / steps,
            "commits",
            baseline=(2 + 3 * steps) / steps,
            baseline_name="seed's minimum",
            extra=f"{kinds['COMMIT']} commits per turn vs {2 + 3 * steps}; "
            f"{statements / steps:.0f} statements per step",
        )

        first_long = await driver.turn(long_thread)
        long_time = await driver.turn(long_thread)
        figure(
            "per-step cost on a thread already holding the long branch",
            long_time / steps * 1000,
            "ms",
            baseline=median(per_turn) / steps * 1000,
            baseline_name="median turn above",
            target=f"<= {FLAT_TARGET}x",
            met=long_time <= FLAT_TARGET * median(per_turn),
            extra=f"its second turn; the first also reads the branch once into the history "
            f"cache: {first_long / steps * 1000:.2f} ms per step",
        )

        if profile:
            fresh = await driver.new_thread()
            await print_profile("one turn on a fresh thread", driver.turn(fresh))
            await print_profile("one turn on the long thread", driver.turn(long_thread))


async def print_profile(label: str, work: Awaitable[float], top: int = 15) -> None:
    """cProfile of ``work`` (the event loop runs in this thread, so it sees the engine)."""
    profiler = cProfile.Profile()
    profiler.enable()
    elapsed = await work
    profiler.disable()
    for order in ("tottime", "cumulative"):
        print(f"\ncProfile of {label} ({elapsed * 1000:.0f} ms profiled), top {top} by {order}:")
        for line in profile_lines(profiler, order, top):
            print(f"  {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the smoke test")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile")
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--steps", type=int, default=10)
    options = parser.parse_args()
    turns, steps, long_items = (
        (4, 3, 300) if options.quick else (options.turns, options.steps, 10_000)
    )
    header(f"Engine: durable tool steps, T={turns} turns x K={steps} steps", options.quick)
    with tempfile.TemporaryDirectory(prefix="panelot-bench-engine-") as tmp:
        home = Path(tmp)
        long_thread = seed_profile(home, long_items)
        print(f"(a second thread of {long_items:,} items is seeded for the last figure)")
        anyio.run(run, home, turns, steps, long_thread, options.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
