"""Helpers of the side panel's end-to-end tests: drive it by role and name, ask the engine
what it stored (through the panel's own Port), scan with axe-core, save screenshots."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Locator, Page, expect

from .fake_model import Reply, tool_use_reply
from .harness import EXTENSION, Browser, screenshot

AXE = EXTENSION / "node_modules" / "axe-core" / "axe.min.js"


def send(panel: Page, text: str) -> None:
    panel.get_by_role("textbox", name="Message").fill(text)
    panel.get_by_role("button", name="Send", exact=True).click()


def log(panel: Page) -> Locator:
    return panel.get_by_role("list", name="Conversation")


def thread_list(panel: Page) -> Locator:
    """The thread list, its drawer opened first when it is closed (picking a thread or
    starting one closes it again)."""
    toggle = panel.get_by_role("button", name="Threads")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    threads = panel.get_by_role("navigation", name="Threads")
    expect(threads).to_be_visible()
    return threads


def approval_cards(panel: Page) -> Locator:
    """The approval cards of the conversation: the items that offer Deny."""
    return (
        log(panel)
        .get_by_role("listitem")
        .filter(has=panel.get_by_role("button", name="Deny", exact=True))
    )


def connected(panel: Page) -> None:
    expect(panel.get_by_role("status").first).to_have_text("Connected")


def rpc(panel: Page, method: str, params: dict[str, Any]) -> Any:
    """An op through the panel's Port to the worker and the host: what the engine stored."""
    return panel.evaluate("([m, p]) => panelot.client.request(m, p)", [method, params])


def snapshot(panel: Page, thread_id: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = rpc(
        panel, "thread.open", {"threadId": thread_id or panel.evaluate("panelot.threadId")}
    )
    return result


def site_tab(browser: Browser, site: str) -> int:
    """A loopback page in its own tab: the target (and origin) of the navigations."""
    page = browser.context.new_page()
    page.goto(f"{site}/start")
    tab_id: int = browser.worker().evaluate(
        "async (site) => (await chrome.tabs.query({url: site + '/*'}))[0].id", site
    )
    return tab_id


def navigate_reply(site: str, tab: int, name: str) -> Reply:
    """The model asks to navigate ``tab`` to ``site/name`` (a call that needs approval)."""
    return tool_use_reply(
        f"toolu_{name}", "browser_navigate", {"url": f"{site}/{name}", "tabId": tab}
    )


def axe_scan(panel: Page, view: str) -> None:
    """No serious or critical axe-core violation on the page as it is (WCAG 2 A/AA rules)."""
    if not panel.evaluate("typeof axe !== 'undefined'"):
        panel.evaluate(AXE.read_text("utf-8") + "\n;0")
    found = panel.evaluate(
        "async () => (await axe.run(document, {runOnly: {type: 'tag', values:"
        " ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})).violations"
        ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))"
        ".slice(0, 5)}))"
    )
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    assert not bad, f"axe on the {view} view: {json.dumps(bad, indent=1)}"


def both_schemes(panel: Page, name: str) -> None:
    """Scan and screenshot a view at 360 px in light and dark."""
    for scheme in ("light", "dark"):
        panel.emulate_media(color_scheme=scheme)
        axe_scan(panel, f"{name} ({scheme})")
        screenshot(panel, f"panel-{name}-{scheme}")
    panel.emulate_media(color_scheme="light")


def settings_for_model(browser: Browser, model: str) -> tuple[Page, Locator]:
    """A connected panel showing Settings, with ``model`` saved as the model: the panel and
    the Settings region."""
    panel = browser.open_panel()
    connected(panel)
    panel.get_by_role("button", name="Settings").click()
    settings = panel.get_by_role("region", name="Settings")
    settings.get_by_role("textbox", name="Model", exact=True).fill(model)
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text("Model settings saved.")
    return panel, settings
