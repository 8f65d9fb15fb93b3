"""Timeline capture (issue 30): the same 20-action browsing turn with frames captured and
with capture off, in the same run.

Run: .venv/bin/python bench/bench_capture.py [--quick] [--latency-ms MS] [--rounds N]

Real Chromium with the extension and the real host (the end-to-end tests' harness). The
panel opens first, then a loopback page in the tab the window shows (Chrome captures only
that tab). The turn: a snapshot, then 20 actions on the page (typing into ten fields,
clicking a counter ten times), then the answer: 22 model calls. The model is the tests'
fake Anthropic server, each answer held back ``--latency-ms`` (default 1000 ms: a fast
real model, as in bench_workflow) before it streams. Every call is allowed by a policy
rule, and threads act on the user's tab without asking (``actOnUnownedTabs``).
``captureFrames`` is switched off and on between turns; the rounds alternate which goes
first, and each figure is the median of its turns.

Figure: the turn's wall time with capture against without (target: at most 1.15x), and
the frames stored per turn (21: one before the first action, one after each).
"""

from __future__ import annotations

import argparse
import itertools
from typing import Any

from playwright.sync_api import sync_playwright

from _browser import (
    FakeAnthropic,
    PacedScript,
    Step,
    act_on,
    connected_panel,
    launched,
    median,
    plain,
    rpc,
    serve_html,
    timed_turn,
)
from _common import figure, header

TARGET_RATIO = 1.15
FIELDS = 10
_ids = itertools.count()

PAGE = (
    "<!doctype html><title>Form</title><main><h1>Twenty actions</h1>"
    + "".join(f"<p><label>Field {n} <input></label></p>" for n in range(1, FIELDS + 1))
    + '<p><button onclick="this.nextElementSibling.textContent = ++window.n || (window.n = 1)">'
    "Count</button> <output>0</output></p></main>"
)


class FormFiller(PacedScript):
    """The turn as a model does it: a snapshot, then ten fields typed and ten clicks."""

    def __init__(self, tab: int, latency_s: float) -> None:
        super().__init__(latency_s)
        self.tab = tab

    def steps(self, call: str) -> list[Step]:
        tab = self.tab
        return [
            plain(call, "browser_snapshot", tabId=tab),
            *[
                act_on(call, "browser_type", "textbox", f"Field {n}", tabId=tab, text=f"value {n}")
                for n in range(1, FIELDS + 1)
            ],
            *[act_on(call, "browser_click", "button", "Count", tabId=tab)] * 10,
        ]


def _frames(opened: dict[str, Any]) -> int:
    return sum(len(i.get("frames") or []) for i in opened["items"] if i["kind"] == "toolCall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round instead of three")
    parser.add_argument("--latency-ms", type=float, default=1000.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds = 1 if args.quick else args.rounds
    header("timeline capture (issue 30)", args.quick)
    model = FakeAnthropic()
    model.start()
    try:
        with (
            serve_html(lambda _path: PAGE) as site,
            sync_playwright() as playwright,
            launched(playwright, model) as browser,
        ):
            panel = connected_panel(browser)
            rules = {"decision": "allow"}
            rpc(
                panel,
                "settings.update",
                {"commandId": "bench-rules", "policyRules": [rules], "actOnUnownedTabs": True},
            )
            page = browser.context.new_page()  # the tab the window shows: Chrome captures it
            page.goto(f"{site}/form")
            tab = browser.worker().evaluate(
                "async (url) => (await chrome.tabs.query({})).find((t) => t.url === url).id",
                f"{site}/form",
            )
            filler = FormFiller(tab, args.latency_ms / 1000)
            print(f"model latency per answer: {args.latency_ms:.0f} ms; 22 answers per turn")
            times: dict[bool, list[float]] = {True: [], False: []}
            stored: list[int] = []
            for n in range(rounds):
                for capture in (n % 2 == 0, n % 2 != 0):
                    rpc(
                        panel,
                        "settings.update",
                        {"commandId": f"bench-{next(_ids)}", "captureFrames": capture},
                    )
                    page.reload()
                    elapsed, opened = timed_turn(panel, model, filler, "Fill the form")
                    times[capture].append(elapsed)
                    if capture:
                        stored.append(_frames(opened))
                    else:
                        assert _frames(opened) == 0, "frames captured with capture off"
            on, off = median(times[True]), median(times[False])
            figure(
                "frames stored per 20-action turn",
                min(stored),
                "",
                target="21",
                met=min(stored) == 21,
            )
            figure(
                "20-action turn with capture, wall time",
                on,
                "s",
                baseline=off,
                baseline_name="the same turn with capture off",
                target=f"<= {TARGET_RATIO}x",
                met=on <= TARGET_RATIO * off,
            )
    finally:
        model.stop()


if __name__ == "__main__":
    main()
