"""The service worker's memory over many turns on one native Port: no leaked listeners,
pending requests or routing entries.

Run: .venv/bin/python bench/bench_shim_memory.py [--quick] [--turns N]

One panel drives N turns (default 1,000) round-robin over 10 threads through the worker to
the real host and a fake model (a short streamed answer each), one turn at a time, each
awaited to its ``turn.complete``. The worker's JS heap in use is read over CDP after two
full garbage collections: after a warm-up of 50 turns (the same-run baseline) and after the
N turns; the worker's own tables (pending host requests, panel requests in flight,
subscribed threads, chunked messages open, running tools) are read too. Target: the heap
after N turns within 10 % of the warm-up heap, every table back to its idle size.
"""

from __future__ import annotations

import argparse

from playwright.sync_api import Page, sync_playwright

from _browser import FakeAnthropic, WorkerHeap, connected_panel, launched
from _common import figure, header

DRIVE = """async ([threads, turns, offset]) => {
  const client = panelot.client;
  if (!window.__waiters) {
    window.__waiters = new Map();
    const original = client.onNotification;
    client.onNotification = (method, params) => {
      if (method === "turn.complete") window.__waiters.get(params.turnId)?.(params.status);
      original(method, params);
    };
  }
  for (let i = 0; i < turns; i++) {
    const threadId = threads[(offset + i) % threads.length];
    let done;
    const finished = new Promise((resolve) => (done = resolve));
    const { turnId } = await client.request("turn.submit",
      { commandId: crypto.randomUUID(), threadId, text: `turn ${offset + i}` });
    window.__waiters.set(turnId, done);
    const status = await finished;
    window.__waiters.delete(turnId);
    if (status !== "completed") throw new Error(`turn ${turnId} ended ${status}`);
  }
}"""
THREADS = """async () => {
  const ids = [];
  for (let i = 0; i < 10; i++) {
    const { thread } = await panelot.client.request("thread.create",
      { commandId: crypto.randomUUID(), title: `Memory ${i}` });
    ids.push(thread.id);
  }
  return ids;
}"""


def _drive(panel: Page, threads: list[str], turns: int, offset: int) -> None:
    # a turn.complete can only be awaited once submitted: the waiter is set right after the
    # answer, and turn.complete never comes before it (the fake model needs a request first)
    panel.evaluate(DRIVE, [threads, turns, offset])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100 turns")
    parser.add_argument("--turns", type=int, default=1000)
    options = parser.parse_args()
    turns = 100 if options.quick else options.turns
    header(f"worker memory over {turns} turns on one Port", options.quick)
    model = FakeAnthropic()
    model.start()
    try:
        with sync_playwright() as playwright, launched(playwright, model) as browser:
            panel = connected_panel(browser)
            panel.set_default_timeout(600_000)
            heap = WorkerHeap(browser, panel)
            threads: list[str] = panel.evaluate(THREADS)
            _drive(panel, threads, 50, 0)
            before = heap.used_after_gc()
            _drive(panel, threads, turns, 50)
            after = heap.used_after_gc()
            stats = browser.stats()
    finally:
        model.stop()
    growth = after / before
    figure(
        "worker JS heap after GC",
        after / 1024,
        "KiB",
        baseline=before / 1024,
        baseline_name="after 50 warm-up turns",
        target="within 10 %",
        met=growth <= 1.10,
        extra=f"{turns} turns",
    )
    tables = {k: stats[k] for k in ("pending", "inflight", "openChunks", "running", "threads")}
    idle = tables["pending"] == tables["inflight"] == tables["openChunks"] == tables["running"] == 0
    figure(
        "worker tables after the turns",
        sum(tables.values()),
        "entries",
        target="pending, inflight, chunks, running = 0; threads = 10",
        met=idle and tables["threads"] == 10,
        extra=str(tables),
    )


if __name__ == "__main__":
    main()
