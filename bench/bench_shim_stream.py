"""Host -> panel streaming: text deltas of a fake model answer, from the fake server's write
to the side panel's DOM, in real Chromium.

Run: .venv/bin/python bench/bench_shim_stream.py [--quick] [--deltas N] [--gap-ms G]

The fake Anthropic server writes N ``text_delta`` events (default 5,000, one every G ms,
default 1: far faster than any model streams), each carrying its index; the time of each
write is recorded. In the panel a MutationObserver records when each index first appears in
the answer's DOM, and a PerformanceObserver records every long task (> 50 ms) on the
panel's main thread while it streams. Latency = DOM time - write time (same clock).
Baseline in the same run: the same stream into the host alone (``panelot-host serve`` over
pipes), write -> the host's ``item.delta`` frame read by this process: what the extension
(worker relay + panel rendering) adds is the difference. Targets: p95 <= 50 ms; no long
task over 100 ms.
"""

from __future__ import annotations

import argparse
import queue
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import sync_playwright

from _browser import (
    FakeAnthropic,
    HostProcess,
    Reply,
    connected_panel,
    initialize_params,
    launched,
    median,
    percentile,
    text_events,
)
from _common import figure, header

MARK = re.compile(r"<(\d+)>")
OBSERVE = """() => {
  const bench = { seen: {}, longTasks: [] };
  window.__bench = bench;
  let scanned = 0;
  const log = document.getElementById("log");
  new MutationObserver(() => {
    const now = performance.timeOrigin + performance.now();
    const answers = log.querySelectorAll('li[data-kind="assistant"]');
    const text = answers.length ? answers[answers.length - 1].textContent : "";
    if (text.length < scanned) scanned = 0;
    for (const match of text.slice(scanned).matchAll(/<(\\d+)>/g)) {
      if (!(match[1] in bench.seen)) bench.seen[match[1]] = now;
    }
    scanned = text.length;
  }).observe(log, { subtree: true, childList: true, characterData: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.longTasks.push(entry.duration);
  }).observe({ type: "longtask" });
}"""


class TimedStream:
    """The SSE body: a delta per index, its write time recorded as it is handed over."""

    def __init__(self, deltas: int, gap_s: float) -> None:
        self.deltas, self.gap_s = deltas, gap_s
        self.written: dict[int, float] = {}

    def reply(self) -> Reply:
        return Reply(body=self._body())  # type: ignore[arg-type]  # any iterable works

    def _body(self) -> Iterator[bytes]:
        start, block, *_, stop_block, message_delta, message_stop = text_events(["x"])
        yield start
        yield block
        for index in range(self.deltas):
            (event,) = text_events([f"<{index}>"])[2:3]
            self.written[index] = time.time()
            yield event
            time.sleep(self.gap_s)
        yield stop_block
        yield message_delta
        yield message_stop


def _latencies_ms(written: dict[int, float], seen: dict[int, float]) -> list[float]:
    return [seen[i] - written[i] * 1000 for i in written if i in seen]


def through_panel(model: FakeAnthropic, stream: TimedStream) -> tuple[list[float], list[float]]:
    with sync_playwright() as playwright, launched(playwright, model) as browser:
        panel = connected_panel(browser)
        panel.evaluate(OBSERVE)
        model.plan(stream.reply())
        panel.get_by_role("textbox", name="Message").fill("Stream me")
        panel.get_by_role("button", name="Send").click()
        last = str(stream.deltas - 1)
        panel.wait_for_function(f"() => '{last}' in window.__bench.seen", timeout=120_000)
        result = panel.evaluate("window.__bench")
    seen = {int(k): v for k, v in result["seen"].items()}
    return _latencies_ms(stream.written, seen), result["longTasks"]


def host_alone(model: FakeAnthropic, stream: TimedStream) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="panelot-bench-") as home:
        env = {
            "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "sk-ant-bench",
            "PANELOT_MODEL": "claude-sonnet-4-5",
            "PANELOT_PROVIDER": "anthropic",
        }
        host = HostProcess(Path(home), env=env)
        try:
            host.call("initialize", initialize_params())
            thread = host.call("thread.create", {"commandId": "c1"})["result"]["thread"]["id"]
            model.plan(stream.reply())
            host.send("turn.submit", {"commandId": "c2", "threadId": thread, "text": "Stream"})
            seen: dict[int, float] = {}
            while len(seen) < stream.deltas:
                frame = host._frames.get(timeout=60)
                now = time.time() * 1000
                if frame is None:
                    raise RuntimeError("the host closed its output")
                delta = (frame.get("params") or {}).get("delta") or {}
                for match in MARK.finditer(delta.get("text", "")):
                    seen.setdefault(int(match.group(1)), now)
        except queue.Empty as exc:
            raise RuntimeError("the host stopped streaming") from exc
        finally:
            host.kill()
    return _latencies_ms(stream.written, seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="500 deltas")
    parser.add_argument("--deltas", type=int, default=5000)
    parser.add_argument("--gap-ms", type=float, default=1.0)
    options = parser.parse_args()
    deltas = 500 if options.quick else options.deltas
    header(f"streaming {deltas} text deltas: fake model write -> panel DOM", options.quick)
    model = FakeAnthropic()
    model.start()
    try:
        baseline = host_alone(model, TimedStream(deltas, options.gap_ms / 1000))
        panel, long_tasks = through_panel(model, TimedStream(deltas, options.gap_ms / 1000))
    finally:
        model.stop()
    p95 = percentile(panel, 95)
    figure(
        "delta latency to the panel DOM, p95",
        p95,
        "ms",
        baseline=percentile(baseline, 95),
        baseline_name="host alone (pipes)",
        target="<= 50 ms",
        met=p95 <= 50,
        extra=f"{len(panel)}/{deltas} deltas seen",
    )
    figure(
        "delta latency to the panel DOM, median",
        median(panel),
        "ms",
        baseline=median(baseline),
        baseline_name="host alone (pipes)",
    )
    longest = max(long_tasks, default=0.0)
    figure(
        "longest panel main-thread task while streaming",
        longest,
        "ms",
        target="<= 100 ms",
        met=longest <= 100,
        extra=f"{len(long_tasks)} tasks over 50 ms",
    )


if __name__ == "__main__":
    main()
