"""What keeps the browser tools safe and bounded: acting only on the origin decided for,
trusted input (L2) asked once per origin and detached after, a wait the user interrupts,
a tab closed during an action, and a page whose text tries to instruct the agent."""

from __future__ import annotations

import time

from playwright.sync_api import expect

from panelot_host.tools.browser import BROWSER_TOOL_NAMES

from .fake_model import FakeAnthropic
from .harness import Browser
from .tool_driver import (
    allow_first,
    allow_until_done,
    invoke,
    last_snapshot,
    open_tab,
    plan_calls,
    ref_of,
    run_tools,
    start_turn,
    tool_results,
)
from .tool_pages import serve_tool_pages


def test_click_is_not_done_when_the_tab_moved_to_another_origin(browser: Browser) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/form")
        outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
        decided = {"tabId": tab, "url": f"{site}/form", "origin": site, "title": "Every input"}
        # the Gatekeeper decided for 127.0.0.1; the tab is now on localhost (same page!)
        other = site.replace("127.0.0.1", "localhost")
        page.goto(f"{other}/form")
        moved = invoke(
            browser,
            "browser_click",
            {"tabId": tab, "ref": ref_of(outline, "button", "Save")},
            decided,
        )
        assert (
            moved["isError"]
            and "moved" in moved["content"]
            and "nothing was done" in moved["content"]
        )
        assert moved["target"]["origin"] == other
        pressed = invoke(browser, "browser_press_key", {"tabId": tab, "key": "Enter"}, decided)
        assert pressed["isError"] and "moved" in pressed["content"]
        expect(page).to_have_title("Every input")  # the Save button was never clicked


def test_click_trusted_l2_asked_once_per_origin_and_detached_after_the_turn(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/trusted")

        def confirm(**more: object):  # type: ignore[no-untyped-def]
            return lambda results: {
                "tabId": tab,
                "ref": ref_of(last_snapshot(results), "button", "Confirm order"),
                **more,
            }

        results, asked = run_tools(
            browser,
            model,
            [
                ("browser_snapshot", {"tabId": tab}),
                ("browser_click", confirm()),
                ("browser_screenshot", {"tabId": tab, "fullPage": True}),
                ("browser_screenshot", {"tabId": tab, "fullPage": True}),
                ("browser_click", confirm(trusted=True)),
            ],
        )
        # the scripted click was ignored by the page; the trusted one was not
        expect(page.locator("#result")).to_have_text("clicked for real")
        expect(page).to_have_title("Confirmed")
        assert "trusted input" in results[4]
        # asked: the first click (it writes), the first full-page screenshot (L2 on this
        # origin), the trusted click (it writes); the second screenshot was not asked
        assert asked == 3
        assert all("Screenshot of tab" in r for r in results[2:4])
        # no debugger attachment of the extension outlives the turn (Chrome's bar would
        # show): Chrome says the extension is not attached (getTargets' `attached` counts
        # Playwright's own CDP session too)
        detach = browser.worker().evaluate(
            "async (tabId) => chrome.debugger.detach({tabId}).then(() => 'was attached',"
            " (e) => e.message)",
            tab,
        )
        assert "not attached" in detach
        # the extension runs exactly the tools the host declares
        offered = browser.worker().evaluate("[...panelot.table.tools.keys()]")
        assert sorted(offered) == sorted(BROWSER_TOOL_NAMES)


def test_wait_for_is_cancelled_by_an_interrupt(browser: Browser, model: FakeAnthropic) -> None:
    with serve_tool_pages() as site:
        _page, tab = open_tab(browser, f"{site}/links")
        plan_calls(
            model, [("browser_wait_for", {"tabId": tab, "text": "never", "timeMs": 60_000})], "-"
        )
        panel = start_turn(browser, "Wait for it")
        deadline = time.monotonic() + 20
        while browser.stats()["running"] == 0:
            assert time.monotonic() < deadline, "the wait never started"
            panel.wait_for_timeout(50)
        started = time.monotonic()
        panel.evaluate("panelot.client.request('turn.interrupt', {threadId: panelot.threadId})")
        while browser.stats()["running"]:
            assert time.monotonic() - started < 5, "the wait was not cancelled"
            panel.wait_for_timeout(50)
        log = panel.get_by_role("list", name="Conversation")
        log.get_by_role("button", name="1 step").click()  # the turn's steps, unfolded
        card = log.get_by_role("listitem").filter(has_text="Wait for “never” to appear").last
        expect(card).to_contain_text("interrupted")


def test_click_on_a_tab_closed_during_the_action_is_a_tool_error(browser: Browser) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/links")
        worker = browser.worker()
        worker.evaluate(
            "(tabId) => { globalThis.waiting = panelot.table.invoke({callId: 'w', tool:"
            " 'browser_wait_for', args: {tabId, text: 'never', timeMs: 20000}},"
            " new AbortController().signal); }",
            tab,
        )
        page.wait_for_timeout(300)
        page.close()
        started = time.monotonic()
        result = worker.evaluate("globalThis.waiting")
        assert time.monotonic() - started < 5
        assert result["isError"] and f"tab {tab} was closed" in result["content"]


def test_read_and_snapshot_of_an_injection_page_change_no_permission(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        _page, tab = open_tab(browser, f"{site}/injection")
        panel = browser.open_panel()
        expect(panel.get_by_text("Connected")).to_be_visible()
        before = panel.evaluate("panelot.client.request('permissions.list', {})")
        settings = panel.evaluate("panelot.client.request('settings.get', {})")
        panel.close()
        results, asked = run_tools(
            browser,
            model,
            [("browser_read", {"tabId": tab}), ("browser_snapshot", {"tabId": tab})],
        )
        assert asked == 0
        # the page's text reached the model only inside the untrusted-content markers
        for result in results:
            assert result.startswith("<untrusted-page-content>")
            assert result.rstrip().endswith("</untrusted-page-content>")
        assert "ignore all previous instructions" in results[0]
        panel = browser.open_panel()
        expect(panel.get_by_text("Connected")).to_be_visible()
        assert panel.evaluate("panelot.client.request('permissions.list', {})") == before
        assert panel.evaluate("panelot.client.request('settings.get', {})") == settings


def test_click_that_starts_a_download_says_so_and_names_the_download(browser: Browser) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/download")
        outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
        result = invoke(
            browser, "browser_click", {"tabId": tab, "ref": ref_of(outline, "link", "Export CSV")}
        )
        assert not result["isError"] and "started a download (download " in result["content"]
        assert f"{site}/export.csv (text/csv)" in result["content"]
        assert "browser_downloads" in result["content"]
        (started,) = result["details"]["downloads"]
        assert started["url"] == f"{site}/export.csv"
        # Chrome really started it, and the tab stayed where it was
        found = browser.worker().evaluate(
            "async (id) => (await chrome.downloads.search({id})).map((d) => d.finalUrl || d.url)",
            started["id"],
        )
        assert found == [f"{site}/export.csv"]
        expect(page).to_have_url(f"{site}/download")


def test_select_that_makes_the_page_navigate_is_a_tool_error(browser: Browser) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/jump")
        outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
        result = invoke(
            browser,
            "browser_select_option",
            {"tabId": tab, "ref": ref_of(outline, "combobox", "Section"), "values": ["News"]},
        )
        assert result["isError"] and "navigated away meanwhile" in result["content"]
        assert f"is at {site}/page/news" in result["content"]
        # the page agent saw the page start leaving during the select (however late the tab
        # reports the load: the flake this fixed)
        assert result["details"]["leaving"] == f"{site}/page/news"
        expect(page).to_have_url(f"{site}/page/news")


def test_typing_or_selecting_whose_handler_navigates_a_moment_later_is_a_tool_error(
    browser: Browser,
) -> None:
    """Typing and selecting wait only a moment for a navigation; the page agent answers
    after the page's immediate reactions, so a navigation queued by a change handler (a
    promise's, a timer's) is still caught."""
    with serve_tool_pages() as site:
        for tool, role, name, args in (
            ("browser_select_option", "combobox", "Section", {"values": ["News"]}),
            ("browser_type", "textbox", "Town", {"text": "news"}),
        ):
            page, tab = open_tab(browser, f"{site}/jump-later")
            outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
            result = invoke(
                browser, tool, {"tabId": tab, "ref": ref_of(outline, role, name), **args}
            )
            assert result["isError"] and "navigated away meanwhile" in result["content"], result
            assert result["details"]["leaving"] == f"{site}/page/news"
            expect(page).to_have_url(f"{site}/page/news")
            page.close()


def test_click_approved_then_the_tab_moves_origin_is_not_done(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/form")
        plan_calls(
            model,
            [
                ("browser_snapshot", {"tabId": tab}),
                (
                    "browser_click",
                    lambda r: {"tabId": tab, "ref": ref_of(last_snapshot(r), "button", "Save")},
                ),
            ],
            "Done.",
        )
        panel = start_turn(browser, "Save the form")
        log = panel.get_by_role("list", name="Conversation")
        allow = log.get_by_role("button", name="Allow once", exact=True)
        expect(allow).to_have_count(1)  # the click is asked for 127.0.0.1
        other = site.replace("127.0.0.1", "localhost")
        page.goto(f"{other}/form")  # meanwhile the tab goes to another origin
        allow_first(allow)
        asked_again = allow_until_done(panel, "Done.")
        clicked = tool_results(model.bodies[-1])[-1]
        # whether the host asked again for the new origin or not, nothing was clicked there
        expect(page).to_have_title("Every input")
        assert page.url == f"{other}/form"
        assert asked_again <= 1
        assert "take a new snapshot" in clicked or "moved" in clicked, clicked
