"""Panel -> worker -> host -> worker -> panel round trip of ``thread.list``, real Chromium.

Run: .venv/bin/python bench/bench_shim_roundtrip.py [--quick] [--runs N]

The clock runs in the side panel page (``performance.now()``) around
``panelot.client.request("thread.list", {limit: 50})``, one request at a time, over a
profile with 20 threads. Baseline in the same run: the same page, worker and request against
an echo host (``bench/_echo_host.py``: answers every request at once, standard library only),
so the ratio is what the real host adds to the extension's own relay. Target: median <= 2x
the echo's median.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from _browser import (
    FakeAnthropic,
    HostProcess,
    connected_panel,
    initialize_params,
    launched,
    median,
    percentile,
)
from _common import figure, header

TIMED = """async (n) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await panelot.client.request("thread.list", { limit: 50 });
    times.push(performance.now() - start);
  }
  return times;
}"""


def _round_trips(panel: Page, runs: int) -> list[float]:
    panel.evaluate(TIMED, 50)  # warm-up: JIT, SQLite page cache
    times: list[float] = panel.evaluate(TIMED, runs)
    return times


def host_alone(runs: int) -> list[float]:
    """The same request to ``panelot-host serve`` over pipes from this process: the host's
    own share of the round trip (no browser)."""
    with tempfile.TemporaryDirectory(prefix="panelot-bench-") as home:
        host = HostProcess(Path(home))
        try:
            host.call("initialize", initialize_params())
            for i in range(20):
                host.call("thread.create", {"commandId": f"c{i}", "title": f"Thread {i}"})
            times = []
            for i in range(50 + runs):
                start = time.perf_counter()
                host.call("thread.list", {"limit": 50})
                if i >= 50:
                    times.append((time.perf_counter() - start) * 1000)
            return times
        finally:
            host.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100 round trips per host")
    parser.add_argument("--runs", type=int, default=1000)
    options = parser.parse_args()
    runs = 100 if options.quick else options.runs
    header(
        "shim round trip: panel -> worker -> host -> worker -> panel (thread.list)", options.quick
    )
    model = FakeAnthropic()
    model.start()
    try:
        with sync_playwright() as playwright:
            with launched(playwright, model) as browser:
                panel = connected_panel(browser)
                panel.evaluate("""async () => { for (let i = 0; i < 20; i++)
                    await panelot.client.request("thread.create",
                        { commandId: crypto.randomUUID(), title: `Thread ${i}` }); }""")
                real = _round_trips(panel, runs)
            with launched(playwright, model, echo_host=True) as browser:
                echo = _round_trips(connected_panel(browser), runs)
    finally:
        model.stop()
    alone = host_alone(runs)
    ratio = median(real) / median(echo)
    figure(
        "thread.list round trip, median",
        median(real),
        "ms",
        baseline=median(echo),
        baseline_name="echo host",
        target="<= 2x the echo",
        met=ratio <= 2.0,
        extra=f"{runs} requests",
    )
    figure(
        "thread.list round trip, p95",
        percentile(real, 95),
        "ms",
        baseline=percentile(echo, 95),
        baseline_name="echo host",
    )
    figure(
        "thread.list, host alone over pipes (no browser), median",
        median(alone),
        "ms",
        baseline=median(echo),
        baseline_name="echo host through the extension",
    )


if __name__ == "__main__":
    main()
