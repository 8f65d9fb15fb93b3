"""The shim's tool table in real Chromium: a model's browser_tab_new and browser_navigate
really open a loopback page, report its origin, and restricted pages get a clear error."""

from __future__ import annotations

import base64
import re
from typing import Any

from playwright.sync_api import expect

from .fake_model import FakeAnthropic, text_reply, tool_use_reply
from .harness import Browser
from .pages import serve_pages
from .tool_driver import allow_first, tool_results


def test_tab_new_and_navigate_open_a_loopback_page_and_report_its_origin(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_pages() as site:

        def navigate_in_the_new_tab(body: dict[str, Any]) -> Any:
            opened = tool_results(body)[-1]
            tab_id = int(re.search(r"Opened tab (\d+)", opened).group(1))  # type: ignore[union-attr]
            return tool_use_reply(
                "toolu_2", "browser_navigate", {"url": f"{site}/second", "tabId": tab_id}
            )

        model.plan(
            tool_use_reply("toolu_1", "browser_tab_new", {"url": f"{site}/first"}),
            navigate_in_the_new_tab,
            text_reply(["Both pages are open."]),
        )
        panel = browser.open_panel()
        expect(panel.get_by_text("Connected")).to_be_visible()
        panel.get_by_role("textbox", name="Message").fill("Open my two pages")
        panel.get_by_role("button", name="Send").click()
        log = panel.get_by_role("list", name="Conversation")
        for _ in range(2):  # navigating asks first (design: anything that navigates)
            # this card's button gone (the next card may already show: a count cannot tell)
            allow_first(log.get_by_role("button", name="Allow once", exact=True))
        expect(log.get_by_role("listitem").last).to_have_text("Both pages are open.")
        pages = [p for p in browser.context.pages if p.url.startswith(site)]
        assert [p.url for p in pages] == [f"{site}/second"]
        expect(pages[0]).to_have_title("Page /second")
        first, second = tool_results(model.bodies[-1])
        assert f"{site}/first" in first and f"origin {site}" in first
        assert f"{site}/second" in second and f"origin {site}" in second
        assert "Page /second" in second
        # the steps fold under the turn's line; unfolded, each says what it did
        log.get_by_role("button", name="2 steps").click()
        navigate_card = log.get_by_role("listitem").filter(has_text=f"Opened {site}/second")
        expect(navigate_card).to_be_visible()
        # and the shim's screenshot of that (visible) tab is a JPEG of it
        pages[0].bring_to_front()
        shot = browser.worker().evaluate(
            "async () => panelot.table.invoke({callId: 'c9', tool: 'browser_screenshot',"
            " args: {}}, new AbortController().signal)"
        )
        assert shot["isError"] is False, shot["content"]
        text, image = shot["content"]
        assert f"{site}/second" in text["text"] and shot["target"]["origin"] == site
        assert image["mediaType"] == "image/jpeg"
        assert base64.b64decode(image["data"]).startswith(b"\xff\xd8\xff")


def test_restricted_pages_get_a_clear_tool_error(browser: Browser) -> None:
    worker = browser.worker()
    page = browser.context.new_page()
    page.goto("chrome://version")
    page.bring_to_front()
    tab_id = worker.evaluate(
        "async () => (await chrome.tabs.query({url: 'chrome://version/*'}))[0].id"
    )
    shot = worker.evaluate(
        "async (tabId) => panelot.table.invoke({callId: 'c1', tool: 'browser_screenshot',"
        " args: {tabId}}, new AbortController().signal)",
        tab_id,
    )
    assert shot["isError"] is True
    assert "chrome://version" in shot["content"] and "browser page" in shot["content"]
    assert shot["target"]["tabId"] == tab_id
    bad = worker.evaluate(
        "async () => panelot.table.invoke({callId: 'c2', tool: 'browser_navigate',"
        " args: {url: 'javascript:alert(1)'}}, new AbortController().signal)"
    )
    assert bad["isError"] is True and "only http and https" in bad["content"]
    store = worker.evaluate(
        "async () => panelot.table.invoke({callId: 'c3', tool: 'browser_tab_new',"
        " args: {url: 'chrome://settings'}}, new AbortController().signal)"
    )
    assert store["isError"] is True
    panel = browser.open_panel()
    expect(panel.get_by_text("Connected")).to_be_visible()
