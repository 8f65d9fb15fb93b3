"""Tabs and navigation by a model's tool calls: open, list, select, navigate, go back,
close, checked by the browser's real tabs and URLs."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .fake_model import FakeAnthropic
from .harness import Browser
from .tool_driver import invoke, open_tab, run_tools, tab_of
from .tool_pages import serve_tool_pages


def _opened_tab(results: list[str]) -> int:
    found = re.search(r"Opened tab (\d+)", results[0])
    assert found, results[0]
    return int(found.group(1))


def test_tab_new_list_select_navigate_back_close(browser: Browser, model: FakeAnthropic) -> None:
    with serve_tool_pages() as site:
        first = browser.context.new_page()
        first.goto(f"{site}/login")
        first_tab = tab_of(browser, f"{site}/login")
        results, asked = run_tools(
            browser,
            model,
            [
                ("browser_tab_new", {"url": f"{site}/links"}),
                ("browser_tabs_list", {}),
                (
                    "browser_navigate",
                    lambda r: {"tabId": _opened_tab(r), "url": f"{site}/article"},
                ),
                ("browser_navigate_back", lambda r: {"tabId": _opened_tab(r)}),
                ("browser_navigate_back", lambda r: {"tabId": _opened_tab(r)}),
                ("browser_tab_select", {"tabId": first_tab}),
                ("browser_tab_close", lambda r: {"tabId": _opened_tab(r)}),
            ],
        )
        opened = _opened_tab(results)
        listed, navigated, back, no_back, selected, closed = results[1:]
        assert f"tab {opened}" in listed and f"{site}/links" in listed and f"{site}/login" in listed
        # navigation waited for the load and reports the final URL, origin and title
        assert f"{site}/article, origin {site}" in navigated and '"Walking the ridge"' in navigated
        assert f"{site}/links, origin {site}" in back and '"Links"' in back
        assert f"Selected tab {first_tab}" in selected
        assert f"Closed tab {opened} ({site}/links" in closed
        assert "no earlier page" in no_back  # /links was the new tab's first page
        assert asked == 6  # opening, navigating, going back (twice), selecting, closing ask
        # what the browser really has: the new tab is gone, the first one is unchanged
        urls = [p.url for p in browser.context.pages if p.url.startswith(site)]
        assert urls == [f"{site}/login"]
        assert (
            browser.worker().evaluate(
                "async (id) => (await chrome.tabs.query({})).some((t) => t.id === id)", opened
            )
            is False
        )


def test_navigate_refuses_restricted_and_non_web_urls(browser: Browser) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/login")
        for url, why in (
            ("chrome://settings", "only http and https"),
            ("file:///etc/passwd", "only http and https"),
            ("javascript:alert(1)", "only http and https"),
        ):
            result = invoke(browser, "browser_navigate", {"tabId": tab, "url": url})
            assert result["isError"] and why in result["content"], result
        expect(page).to_have_url(f"{site}/login")
        # a page Chrome keeps out of reach: the page tools say why
        page.goto("chrome://version")
        shot = invoke(browser, "browser_snapshot", {"tabId": tab})
        assert shot["isError"] and "browser page (chrome:)" in shot["content"]
        back = invoke(browser, "browser_navigate_back", {"tabId": tab})
        assert back["isError"] is False and f"{site}/login" in back["content"]
        expect(page).to_have_url(f"{site}/login")
