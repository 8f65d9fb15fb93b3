"""Issue 33, item 3: a click whose effect was a cross-origin navigation says so with the
new origin, and the next action on that tab is decided for the new origin (its card names
it), while the refs of the page that was left are refused."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Page
from tests.support.web import serve_html

from .fake_model import FakeAnthropic
from .harness import Browser
from .pages import serve_pages
from .panel_kit import approval_cards
from .tool_driver import by_ref, open_tab, plan_calls, start_turn, tool_results


def linking_to(other: str) -> Any:
    """A page with a link and a button; the link leads to ``other``'s origin."""
    return serve_html(
        lambda path: (
            "<!doctype html><title>Here</title><main>"
            f'<a href="{other}/there">Partner site</a> <button>Stay</button></main>'
        )
    )


def _allow_each(panel: Page, final: str) -> list[str]:
    """Allow every card until ``final`` shows; the cards' headings, in order."""
    log = panel.get_by_role("list", name="Conversation")
    cards = approval_cards(panel)
    headings = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if log.get_by_role("listitem").filter(has_text=final).count():
            return headings
        if cards.count():
            card = cards.first
            headings.append(card.locator("p").first.inner_text())
            button = card.get_by_role("button", name="Allow once").element_handle()
            button.click()
            button.wait_for_element_state("hidden", timeout=15_000)
            continue
        panel.wait_for_timeout(100)
    raise AssertionError(f"the turn did not end with {final!r}")


def test_a_click_that_leaves_the_origin_says_where_and_moves_the_decision(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_pages() as other, linking_to(other.replace("127.0.0.1", "localhost")) as here:
        there = other.replace("127.0.0.1", "localhost")
        _, tab = open_tab(browser, f"{here}/")
        plan_calls(
            model,
            [
                ("browser_snapshot", {"tabId": tab}),
                ("browser_click", by_ref(tab, "link", "Partner site")),
                # a ref of the page that was left, used on the new one
                ("browser_click", by_ref(tab, "button", "Stay")),
            ],
            "Done.",
        )
        panel = start_turn(browser, "Visit the partner")
        headings = _allow_each(panel, "Done.")
        results = tool_results(model.bodies[-1])
        assert f"The tab left {here} for another origin, {there}" in results[1]
        assert f"decided for {there}" in results[1]
        # the next action was asked for the new origin, and the old ref did nothing
        assert headings[0] == (f"Click the link “Partner site” on {here}, in the tab “Here”?"), (
            headings
        )
        assert headings[1].startswith("Click the button “Stay” on "), headings
        assert f" on {there}, in the tab" in headings[1], headings
        assert "browser_click: the page was reloaded or navigated since the snapshot" in results[2]
