"""Issue 26, the panel: several tasks at once, each in its own tabs. A thread asking in the
background is marked in the list, counted on the "Threads" button and on the toolbar
action, and its card waits in its own conversation; the card says whose tab a call acts on
and that allowing shares it; the shared tab joins the thread's Chrome tab group, which the
thread's header shows ("1 tab") and brings to the front; "Share this tab with the thread"
hands over the tab the user looks at; the two tab settings round-trip."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect
from tests.support.web import serve_html

from .fake_model import FakeAnthropic
from .harness import Browser
from .panel_kit import approval_cards, both_schemes, connected, log, rpc, send, thread_list
from .tool_driver import open_tab, plan_calls

PAGE = "<!doctype html><title>{title}</title><main><h1>{title}</h1><p>Prices</p></main>"
WHOSE = re.compile(
    r"This is (your active tab|one of your tabs), not one of this thread's\. "
    r"Allowing shares it with this thread\."
)


def _page(path: str) -> str:
    return PAGE.format(title="News" if path.startswith("/news") else "Shop")


def _groups(browser: Browser) -> list[dict[str, Any]]:
    """Every Chrome tab group with its title and the ids of its tabs (from the worker)."""
    groups: list[dict[str, Any]] = browser.worker().evaluate(
        """async () => Promise.all((await chrome.tabGroups.query({})).map(async (g) => ({
            title: g.title, color: g.color,
            tabs: (await chrome.tabs.query({groupId: g.id})).map((t) => t.id)})))"""
    )
    return groups


def _toolbar(browser: Browser) -> tuple[str, str]:
    """The toolbar action's badge text and title."""
    text, title = browser.worker().evaluate(
        "async () => [await chrome.action.getBadgeText({}), await chrome.action.getTitle({})]"
    )
    return text, title


def _wait_for_toolbar(browser: Browser, panel: Page, text: str) -> str:
    for _ in range(100):
        shown, title = _toolbar(browser)
        if shown == text:
            return title
        panel.wait_for_timeout(100)
    raise AssertionError(f"the toolbar badge says {_toolbar(browser)}, not {text!r}")


def test_a_background_thread_asks_with_badges_and_its_card_says_whose_tab_it_is(
    owning_browser: Browser, model: FakeAnthropic
) -> None:
    browser = owning_browser
    with serve_html(_page) as site:
        panel = browser.open_panel()
        connected(panel)
        shop, tab = open_tab(browser, f"{site}/shop")
        plan_calls(model, [("browser_snapshot", {"tabId": tab})], "The shop sells bread.")
        send(panel, "Look at the shop")
        card = approval_cards(panel)
        expect(card).to_be_visible()
        asking = panel.evaluate("panelot.threadId")

        # another thread shown: the card stays in its own thread, the badges say it waits
        panel.get_by_role("button", name="New thread").click()
        expect(panel.get_by_role("heading", name="New thread")).to_be_visible()
        expect(approval_cards(panel)).to_have_count(0)
        threads_button = panel.get_by_role("button", name="Threads", exact=True)
        expect(threads_button).to_have_accessible_description("1 thread needs you")
        expect(panel.locator("#threads-count")).to_have_text("1")
        assert _wait_for_toolbar(browser, panel, "1") == "Panelot: 1 thread needs you"
        row = thread_list(panel).get_by_role("button", name="Look at the shop")
        expect(row).to_contain_text("needs approval")
        expect(row.locator(".row-badge")).to_be_visible()
        both_schemes(panel, "parallel-waiting-in-background")

        # back in its thread: the card says whose tab it is and that allowing shares it
        row.click()
        card = approval_cards(panel)
        expect(card.get_by_role("note", name="Whose tab this is")).to_have_text(WHOSE)
        expect(threads_button).to_have_accessible_description("")  # its card is in view
        both_schemes(panel, "parallel-whose-tab")
        card.get_by_role("button", name="Allow once").click()
        expect(log(panel).get_by_text("The shop sells bread.")).to_be_visible(timeout=60_000)
        assert _wait_for_toolbar(browser, panel, "") == "Open Panelot"

        # the shared tab is the thread's: in a tab group named after it, "1 tab" in its header
        show = panel.get_by_role("button", name="Show this thread's 1 tab")
        expect(show).to_contain_text("1 tab")
        (group,) = _groups(browser)
        assert group["title"] == "Look at the shop"
        assert group["tabs"] == [tab]

        # "Share this tab": the tab the user looked at last joins the thread and its group
        news, news_tab = open_tab(browser, f"{site}/news")
        news.bring_to_front()
        panel.get_by_role("button", name="Share this tab with the thread").click()
        expect(panel.get_by_role("button", name="Show this thread's 2 tabs")).to_be_visible()
        expect(panel.get_by_text("Shared the tab “News” with this thread.")).to_be_visible()
        (group,) = _groups(browser)
        assert sorted(group["tabs"]) == sorted([tab, news_tab])
        shared = rpc(panel, "thread.open", {"threadId": asking})["thread"]["tabGroup"]["tabs"]
        assert shared[0]["tabId"] == news_tab and shared[0]["source"] == "shared"
        both_schemes(panel, "parallel-thread-tabs")

        # the chip brings the thread's current tab to the front
        shop.bring_to_front()
        panel.get_by_role("button", name="Show this thread's 2 tabs").click()
        active = browser.worker().evaluate(
            "async (id) => (await chrome.tabs.get(id)).active", news_tab
        )
        assert active is True


def _open_advanced(panel: Page) -> None:
    """The settings, with Advanced unfolded (it stays as the user left it)."""
    panel.get_by_role("button", name="Settings").click()
    advanced = panel.locator("details.settings-advanced")
    expect(advanced).to_be_visible()
    if advanced.get_attribute("open") is None:
        advanced.get_by_text("Advanced", exact=True).click()


def test_the_tab_settings_round_trip_and_a_message_shares_the_active_tab(
    owning_browser: Browser, model: FakeAnthropic
) -> None:
    browser = owning_browser
    with serve_html(_page) as site:
        panel = browser.open_panel()
        connected(panel)
        news, news_tab = open_tab(browser, f"{site}/news")
        _open_advanced(panel)
        share = panel.get_by_role("checkbox", name="Share the active tab with each message")
        unowned = panel.get_by_role(
            "checkbox", name="Let threads act on tabs they don't own without asking"
        )
        expect(share).not_to_be_checked()
        expect(unowned).not_to_be_checked()
        share.check()
        expect(
            panel.get_by_role("status").filter(has_text="Saved: Share the active tab")
        ).to_be_visible()
        unowned.check()
        expect(panel.get_by_text("Saved: Let threads act on tabs they don't own")).to_be_visible()
        expect(unowned).to_be_focused()  # saving does not take the focus away
        tasks = panel.get_by_role("spinbutton", name="Tasks running at once")
        expect(tasks).to_have_value("3")
        tasks.fill("5")
        tasks.press("Tab")
        expect(panel.get_by_text("Saved: 5 tasks running at once.")).to_be_visible()
        settings = rpc(panel, "settings.get", {})["settings"]
        assert settings["shareActiveTab"] is True
        assert settings["actOnUnownedTabs"] is True
        assert settings["maxParallelTurns"] == 5
        panel.get_by_role("heading", name="Tabs").scroll_into_view_if_needed()
        both_schemes(panel, "parallel-tab-settings")

        # shown again from what the host stored
        panel.get_by_role("button", name="Back to chat").click()
        _open_advanced(panel)
        expect(share).to_be_checked()
        expect(unowned).to_be_checked()
        unowned.uncheck()
        expect(panel.get_by_text("Saved: Let threads act on tabs they don't own")).to_be_visible()
        assert rpc(panel, "settings.get", {})["settings"]["actOnUnownedTabs"] is False

        # with sharing on, a message hands over the tab the user looks at
        panel.get_by_role("button", name="Back to chat").click()
        news.bring_to_front()
        send(panel, "Summarise this page")
        expect(log(panel).get_by_text("Echo: Summarise this page")).to_be_visible()
        expect(panel.get_by_role("button", name="Show this thread's 1 tab")).to_be_visible()
        # the host keeps it; the thread's next browser call puts it in the group
        kept = rpc(panel, "thread.open", {"threadId": panel.evaluate("panelot.threadId")})
        assert [t["tabId"] for t in kept["thread"]["tabGroup"]["tabs"]] == [news_tab]
