"""Recovery torture: kill -9 the real host 200+ times and check the store after every kill.

Run: .venv/bin/python bench/bench_torture.py [--kills 200] [--seed 1] [--controls 8]
     [--quick]

The harness (``tests/torture/harness.py``) drives ``panelot-host serve`` through a scripted
workload (threads, turns mixing ``browser_read``/``browser_click``, approvals, steering,
queue, renames), SIGKILLs it at random instants (also during start-up and recovery),
restarts it on the same data and checks integrity, acknowledged commands, tool results,
writes run twice, usage sums, steering, thread.open and every provider request. Target:
0 violations.

Negative controls (``--controls N``, 0 to skip): N runs of 6 kills per failpoint, once with
kills aimed at the broken path and once at random instants; a control passes when the
matching check reports the failpoint.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.torture.harness import Report, run_torture

from _common import verdict

CONTROLS = [
    ("ack_before_commit", "steer_ack", "ack_lost"),
    ("split_result_state", "invoke_answered", "tool_result"),
    ("rerun_write", "write_invoked", "write_twice"),
]


def main_run(kills: int, seed: int) -> Report:
    print(f"torture: {kills} kills, seed {seed}, no failpoint ...", flush=True)
    report = run_torture(kills, seed)
    print(report.summary())
    print(f"FIGURE kills survived: {report.kills_survived}/{report.kills}")
    print(f"FIGURE acknowledgements checked: {report.acks_checked}")
    print(
        f"FIGURE ack verifications (every ack, after every later kill): {report.ack_verifications}"
    )
    print(f"FIGURE provider requests checked: {report.requests_checked}")
    print(f"FIGURE tool executions in the shim: {report.executions}")
    print(f"FIGURE writes re-run after a chosen retry: {report.writes_rerun}")
    print(
        f"FIGURE violations: {len(report.violations)} | target 0 {verdict(not report.violations)}"
    )
    print(f"FIGURE time: {report.seconds:.1f} s ({report.seconds / max(kills, 1):.2f} s per kill)")
    triggers: dict[str, int] = {}
    for point in report.kill_points:
        trigger = point.split(" after ")[1].split(" #")[0]
        triggers[trigger] = triggers.get(trigger, 0) + 1
    print("kill points by trigger:", dict(sorted(triggers.items())))
    print("acknowledged commands:", dict(sorted(report.acks_by_method.items())))
    return report


def controls(runs: int, seed: int) -> bool:
    """Each failpoint must be caught by its check; prints how often it is."""
    print(f"\nnegative controls: {runs} runs x 6 kills per failpoint and kill placement")
    print("| failpoint | kills | runs that caught it | violations of its class (per kill) |")
    print("|---|---|---|---|")
    all_caught = True
    for failpoint, trigger, kind in CONTROLS:
        for placement, triggers in ((f"aimed ({trigger})", [trigger]), ("random", None)):
            caught, found, kills = 0, 0, 0
            for n in range(runs):
                report = run_torture(6, seed + n, [failpoint], triggers=triggers)
                hits = sum(1 for v in report.violations if v.kind == kind)
                caught += hits > 0
                found += hits
                kills += report.kills
            print(
                f"| `{failpoint}` | {placement} | {caught}/{runs} | "
                f"{found} ({found / kills:.2f}) |",
                flush=True,
            )
            all_caught = all_caught and caught > 0
    return all_caught


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--controls", type=int, default=8, help="runs per failpoint")
    parser.add_argument("--quick", action="store_true", help="3 kills, 1 control run")
    options = parser.parse_args()
    kills, runs = (3, 1) if options.quick else (options.kills, options.controls)
    started = time.monotonic()
    report = main_run(kills, options.seed)
    caught = controls(runs, options.seed) if runs else True
    print(f"\ntotal {time.monotonic() - started:.0f} s")
    return 0 if not report.violations and caught else 1


if __name__ == "__main__":
    sys.exit(main())
