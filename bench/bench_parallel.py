"""Parallel threads (issue 26): N threads run the same browsing turn at once, each in its
own tab, against the same N turns run one after another, in the same run.

Run: .venv/bin/python bench/bench_parallel.py [--quick] [--latency-ms MS]

Real Chromium with the extension and the real host (the end-to-end tests' harness). The
browsing turn: open a loopback page in a new tab, snapshot it, click its button three
times, read it, answer; six model calls. The model is the tests' fake Anthropic server,
each answer held back ``--latency-ms`` (default 400 ms: a fast real model) before it
streams, since a real turn waits on its model far longer than on the browser. Every call
is allowed by a policy rule (the benchmark measures running, not asking).

For N = 1, 2, 4: the sequential baseline runs N turns (N threads) one after the other; the
parallel run starts the N turns at once and waits for all. ``maxParallelTurns`` is set to
4, so that N = 4 all run; a last figure runs N = 4 under the default of 3 (the fourth
waits for a slot). Target (issue 26): at N = 4, at most 0.5x the sequential time.
"""

from __future__ import annotations

import argparse
import itertools
import time

from playwright.sync_api import Page, sync_playwright

from _browser import (
    Browser,
    FakeAnthropic,
    PacedScript,
    Step,
    act_on,
    connected_panel,
    launched,
    plain,
    rpc,
    serve_html,
)
from _common import figure, header

PAGE = """<!doctype html><title>Counter</title><main><h1>Counter</h1>
<button onclick="this.dataset.n = (+(this.dataset.n || 0) + 1);
  document.getElementById('out').textContent = this.dataset.n">Count</button>
<p id="out">0</p></main>"""
TARGET_RATIO = 0.5
_ids = itertools.count()


class BrowsingModel(PacedScript):
    """Answers every thread's requests from the same six-step script, by the step its
    history has reached."""

    def __init__(self, site: str, latency_s: float) -> None:
        super().__init__(latency_s)
        self.site = site

    def steps(self, call: str) -> list[Step]:
        return [
            plain(call, "browser_tab_new", url=f"{self.site}/counter"),
            plain(call, "browser_snapshot"),
            *[act_on(call, "browser_click", "button", "Count")] * 3,
            plain(call, "browser_read"),
        ]


def _threads(panel: Page, count: int) -> list[str]:
    made = []
    for _ in range(count):
        created = rpc(panel, "thread.create", {"commandId": f"bench-{next(_ids)}"})
        made.append(created["thread"]["id"])
    return made


def _run(panel: Page, model: FakeAnthropic, browsing: BrowsingModel, threads: list[str]) -> float:
    """Start a turn in each of ``threads`` at once; seconds until all completed."""
    model.plan(*([browsing.reply] * (7 * len(threads))))
    started = time.perf_counter()
    turns = [
        rpc(
            panel,
            "turn.submit",
            {"commandId": f"bench-{next(_ids)}", "threadId": t, "text": "Count three times"},
        )["turnId"]
        for t in threads
    ]
    pending = dict(zip(threads, turns, strict=True))
    while pending:
        for thread_id, turn_id in list(pending.items()):
            turn = rpc(panel, "thread.open", {"threadId": thread_id})["turn"]
            if turn["id"] == turn_id and turn["status"] in ("completed", "failed", "interrupted"):
                assert turn["status"] == "completed", turn
                del pending[thread_id]
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    with model._lock:
        model.plans.clear()  # what a run did not use
    return elapsed


def _close_tabs(browser: Browser) -> None:
    browser.worker().evaluate(
        "async () => { const tabs = await chrome.tabs.query({url: 'http://127.0.0.1/*'});"
        " await Promise.all(tabs.map((t) => chrome.tabs.remove(t.id))); }"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1 and 2 only, once")
    parser.add_argument("--latency-ms", type=float, default=400.0)
    args = parser.parse_args()
    header("parallel threads (issue 26)", args.quick)
    counts = [1, 2] if args.quick else [1, 2, 4]
    model = FakeAnthropic()
    model.start()
    try:
        with (
            serve_html(lambda _path: PAGE) as site,
            sync_playwright() as playwright,
            launched(playwright, model) as browser,
        ):
            browsing = BrowsingModel(site, args.latency_ms / 1000)
            panel = connected_panel(browser)
            rpc(
                panel,
                "settings.update",
                {"commandId": "bench-rules", "policyRules": [{"decision": "allow"}]},
            )
            rpc(panel, "settings.update", {"commandId": "bench-max", "maxParallelTurns": 4})
            print(f"model latency per answer: {args.latency_ms:.0f} ms; six answers per turn")
            for n in counts:
                sequential = sum(_run(panel, model, browsing, _threads(panel, 1)) for _ in range(n))
                _close_tabs(browser)
                parallel = _run(panel, model, browsing, _threads(panel, n))
                _close_tabs(browser)
                at_target = n == 4
                figure(
                    f"{n} thread{'s' if n > 1 else ''} at once, wall time",
                    parallel,
                    "s",
                    baseline=sequential,
                    baseline_name=f"{n} turn{'s' if n > 1 else ''} one after another",
                    target=f"<= {TARGET_RATIO}x at 4 threads" if at_target else None,
                    met=parallel <= TARGET_RATIO * sequential if at_target else None,
                )
            if not args.quick:
                rpc(
                    panel,
                    "settings.update",
                    {"commandId": "bench-default", "maxParallelTurns": None},
                )
                sequential = sum(_run(panel, model, browsing, _threads(panel, 1)) for _ in range(4))
                _close_tabs(browser)
                capped = _run(panel, model, browsing, _threads(panel, 4))
                figure(
                    "4 threads, at most 3 at once (the default), wall time",
                    capped,
                    "s",
                    baseline=sequential,
                    baseline_name="4 turns one after another",
                )
    finally:
        model.stop()


if __name__ == "__main__":
    main()
