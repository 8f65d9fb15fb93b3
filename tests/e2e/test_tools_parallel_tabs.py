"""Parallel turns, in the worker (issue 26): a new tab opens in the background, so the
user's tab stays in front; two calls on different tabs run at the same time, two on the
same tab one after the other. Order and overlap are told by events (the text a call waits
for appears when the test says so), never by a clock."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from .fake_model import FakeAnthropic
from .harness import Browser
from .tool_driver import invoke, open_tab, run_tools
from .tool_pages import serve_tool_pages

ACTIVE = "async (id) => (await chrome.tabs.get(id)).active"
PANEL_TAB = "async (url) => (await chrome.tabs.query({})).find((t) => t.url.startsWith(url)).id"

# Each browser_wait_for the worker runs logs when it starts and ends (the test's probe).
PROBE = """() => {
  const tool = panelot.table.tools.get("browser_wait_for");
  const run = tool.run;
  globalThis.probe = { log: [], results: {} };
  tool.run = async (args, ctx) => {
    probe.log.push(`start ${args.text}`);
    try {
      return await run.call(tool, args, ctx);
    } finally {
      probe.log.push(`end ${args.text}`);
    }
  };
}"""
# Start the calls in this order, without waiting for them.
START = """(calls) => {
  for (const [tabId, text] of calls) {
    const args = {tabId, text, timeMs: 60000};
    const call = {callId: text, tool: "browser_wait_for", args};
    panelot.table
      .invoke(call, new AbortController().signal)
      .then((result) => (probe.results[text] = result));
  }
}"""
# The probe's log once it has this many entries (bounded: a call that never comes fails).
LOG_OF = """async (count) => {
  const until = Date.now() + 30000;
  while (probe.log.length < count && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return probe.log;
}"""


def _say(page: Page, text: str) -> None:
    page.evaluate("(text) => document.body.append(text)", text)


def _results(browser: Browser) -> dict[str, Any]:
    results: dict[str, Any] = browser.worker().evaluate("() => probe.results")
    return results


def test_a_new_tab_opens_in_the_background_and_the_users_tab_stays_in_front(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        _page, other = open_tab(browser, f"{site}/login")
        results, _asked = run_tools(
            browser,
            model,
            [
                ("browser_tab_new", {"url": f"{site}/links"}),
                ("browser_tab_select", {"tabId": other}),
            ],
        )
        worker = browser.worker()
        panel_tab = worker.evaluate(PANEL_TAB, f"chrome-extension://{browser.ext_id}/")
        opened = next(p for p in browser.context.pages if p.url == f"{site}/links")
        opened_tab = worker.evaluate(
            "async (url) => (await chrome.tabs.query({url})).map((t) => t.id)", opened.url
        )[0]
        # the user was looking at the side panel's page: it is still the active tab
        assert worker.evaluate(ACTIVE, panel_tab) is True
        assert worker.evaluate(ACTIVE, opened_tab) is False
        assert worker.evaluate(ACTIVE, other) is False
        assert f"Opened tab {opened_tab}" in results[0] and "in the background" in results[0]
        assert f"Selected tab {other}" in results[1] and "in the background" in results[1]
        # only when asked to show it: the tab comes to the front
        shown = invoke(browser, "browser_tab_select", {"tabId": other, "focus": True})
        assert shown["details"] == {"shown": True}, shown
        assert worker.evaluate(ACTIVE, other) is True
        fresh = invoke(browser, "browser_tab_new", {"url": f"{site}/article", "focus": True})
        assert fresh["details"] == {"shown": True}, fresh
        assert worker.evaluate(ACTIVE, fresh["target"]["tabId"]) is True


def test_calls_on_two_tabs_run_at_the_same_time(browser: Browser) -> None:
    with serve_tool_pages() as site:
        first, first_tab = open_tab(browser, f"{site}/a")
        second, second_tab = open_tab(browser, f"{site}/b")
        worker = browser.worker()
        worker.evaluate(PROBE)
        worker.evaluate(START, [[first_tab, "apple"], [second_tab, "pear"]])
        # both started before either ended: they overlap
        assert sorted(worker.evaluate(LOG_OF, 2)) == ["start apple", "start pear"]
        _say(second, "pear")
        # the second tab's call ends while the first tab's still waits
        assert worker.evaluate(LOG_OF, 3)[2] == "end pear"
        _say(first, "apple")
        assert worker.evaluate(LOG_OF, 4)[3] == "end apple"
        results = _results(browser)
        assert all("appeared" in results[k]["content"] for k in ("apple", "pear"))


def test_two_calls_on_the_same_tab_run_one_after_the_other_in_arrival_order(
    browser: Browser,
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/a")
        other, other_tab = open_tab(browser, f"{site}/b")
        _say(page, "second")  # the second call could end at once, if it ran
        _say(other, "elsewhere")
        worker = browser.worker()
        worker.evaluate(PROBE)
        worker.evaluate(START, [[tab, "first"], [tab, "second"], [other_tab, "elsewhere"]])
        # a call on another tab, started later, has come and gone: the second call on the
        # first tab has not even started, it waits for the first
        log = worker.evaluate(LOG_OF, 3)
        assert log == ["start first", "start elsewhere", "end elsewhere"], log
        assert worker.evaluate("(id) => panelot.table.queue.waiting(id)", tab) == 1
        _say(page, "first")
        log = worker.evaluate(LOG_OF, 6)
        assert log[3:] == ["end first", "start second", "end second"], log
        results = _results(browser)
        assert all("appeared" in results[k]["content"] for k in ("first", "second", "elsewhere"))
