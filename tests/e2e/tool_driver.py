"""Driving browser tools the way a model does: a scripted model calls tools one after the
other (each call may read the previous tool results, e.g. refs from a snapshot), the user
allows what the Gatekeeper asks in the panel, and the test then checks the page."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .fake_model import FakeAnthropic, Reply, text_reply, tool_use_reply
from .harness import Browser

# Assertions wait for the page: 2 shared cores and a host that starts per Port need slack.
expect.set_options(timeout=15_000)

Args = dict[str, Any] | Callable[[list[str]], dict[str, Any]]


def tool_results(body: dict[str, Any]) -> list[str]:
    """The text of every tool_result the engine sent the model, in order."""
    found = []
    for message in body["messages"]:
        if isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result":
                content = block.get("content")
                if isinstance(content, str):
                    found.append(content)
                else:  # text and image blocks: the text, images as their JSON
                    found.append(
                        "\n".join(
                            b["text"] if b.get("type") == "text" else json.dumps(b) for b in content
                        )
                    )
    return found


def ref_of(outline: str, role: str, name: str) -> str:
    """The ref of the outline line ``- role "name" ... [eN ...]``."""
    named = rf' "{re.escape(name)}"' if name else ""
    found = re.search(rf"- {re.escape(role)}{named}[^\n]*?\[(e\d+)", outline)
    assert found, f'no {role} "{name}" in the snapshot:\n{outline}'
    return found.group(1)


def by_ref(tab: int, role: str, name: str, **more: object) -> Args:
    """Arguments naming the element ``role`` ``name`` of the latest snapshot the model saw
    (resolved when the model's call is planned), plus ``more``."""
    return lambda results: {
        "tabId": tab,
        "ref": ref_of(last_snapshot(results), role, name),
        **more,
    }


def last_snapshot(results: list[str]) -> str:
    return next(r for r in reversed(results) if "refs are valid until" in r)


def plan_calls(model: FakeAnthropic, calls: list[tuple[str, Args]], final: str) -> None:
    """The model calls each tool in turn, then answers ``final``."""

    def step(index: int, name: str, args: Args) -> Callable[[dict[str, Any]], Reply]:
        def reply(body: dict[str, Any]) -> Reply:
            given = args(tool_results(body)) if callable(args) else args
            return tool_use_reply(f"toolu_{index}", name, given)

        return reply

    model.plan(*(step(i, name, args) for i, (name, args) in enumerate(calls)), text_reply([final]))


def start_turn(browser: Browser, message: str) -> Page:
    panel = browser.open_panel()
    expect(panel.get_by_text("Connected")).to_be_visible()
    panel.get_by_role("textbox", name="Message").fill(message)
    panel.get_by_role("button", name="Send").click()
    return panel


def allow_first(allow: Locator) -> None:
    """Click the first of the ``allow`` buttons and wait until that card has gone (the
    next approval may already be showing: the count alone cannot tell them apart)."""
    button = allow.first.element_handle()
    button.click()
    button.wait_for_element_state("hidden", timeout=15_000)


def allow_until_done(panel: Page, final: str, timeout_s: float = 60.0) -> int:
    """Allow every approval the turn asks for until the answer ``final`` shows; returns how
    many approvals were asked."""
    log = panel.get_by_role("list", name="Conversation")
    allow = log.get_by_role("button", name="Allow once", exact=True)
    done = log.get_by_role("listitem").filter(has_text=final)
    asked = 0
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if done.count():
            return asked
        if allow.count():
            allow_first(allow)
            asked += 1
            continue
        panel.wait_for_timeout(100)
    raise AssertionError(f"the turn did not end with {final!r} within {timeout_s} s")


def allow_for_the_site_until(
    panel: Page, finished: Callable[[], bool], what: str, timeout_s: float = 60.0
) -> None:
    """Answer each approval card with "Allow for this site" (else "Allow once") until
    ``finished()``: the site is allowed for good, so later runs of the same steps (a
    workflow's replays, one in the background) ask nothing."""
    log = panel.get_by_role("list", name="Conversation")
    site = log.get_by_role("button", name="Allow for this site", exact=True)
    once = log.get_by_role("button", name="Allow once", exact=True)
    deadline = time.monotonic() + timeout_s
    while not finished():
        assert time.monotonic() < deadline, what
        if not once.count():
            panel.wait_for_timeout(100)
            continue
        # a card is drawn before its request names the site: give the site's choice a moment
        with contextlib.suppress(PlaywrightTimeoutError):
            site.first.wait_for(timeout=2_000)
        handle = (site if site.count() else once).first.element_handle()
        handle.click()
        handle.wait_for_element_state("hidden", timeout=15_000)  # its card is gone


def run_tools(
    browser: Browser, model: FakeAnthropic, calls: list[tuple[str, Args]], final: str = "Done."
) -> tuple[list[str], int]:
    """Run ``calls`` in one turn; returns the tool results the model saw and the number of
    approvals asked."""
    plan_calls(model, calls, final)
    panel = start_turn(browser, "Please do it")
    asked = allow_until_done(panel, final)
    return tool_results(model.bodies[-1]), asked


def open_tab(browser: Browser, url: str) -> tuple[Page, int]:
    """A new tab at ``url``: its page and its Chrome tab id."""
    page = browser.context.new_page()
    page.goto(url)
    return page, tab_of(browser, url)


def tab_of(browser: Browser, url: str) -> int:
    """The Chrome tab id of the page at ``url``."""
    tab_id: int = browser.worker().evaluate(
        "async (url) => (await chrome.tabs.query({})).find((t) => t.url === url).id", url
    )
    return tab_id


def invoke(
    browser: Browser,
    tool: str,
    args: dict[str, Any],
    target: dict[str, Any] | None = None,
    *,
    capture: bool = False,
    turn_id: str | None = None,
) -> dict[str, Any]:
    """``browser.invoke`` straight into the worker's tool table (as the host sends it);
    ``capture`` asks for the call's frames (issue 30) in the Turn ``turn_id``."""
    result: dict[str, Any] = browser.worker().evaluate(
        "async ([tool, args, target, capture, turnId]) => panelot.table.invoke("
        "{callId: 'direct', tool, args, target, capture, turnId}, new AbortController().signal)",
        [tool, args, target, capture, turn_id],
    )
    return result
