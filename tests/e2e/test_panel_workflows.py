"""Workflows in the panel (issue 29), in real Chromium: a finished browser turn saved with
"Save as workflow" (its parameter renamed in the editor), run again from the Workflows view
with another value, and scheduled: the test fires Chrome's alarm, the worker runs what is
due in its thread, reports the runs missed meanwhile without running them, and says both in
notifications. Screenshots of the editor and the list at 360 px, light and dark."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect
from tests.support.shop import ShopState

from .fake_model import FakeAnthropic
from .harness import Browser
from .panel_kit import both_schemes
from .tool_driver import allow_for_the_site_until, by_ref, open_tab, plan_calls, start_turn

HOUR_MS = 3_600_000


def _record(browser: Browser, model: FakeAnthropic, base: str) -> Page:
    """The turn a user saves: open the shop, search for "lamp"."""
    _, tab = open_tab(browser, f"{base}/help")
    plan_calls(
        model,
        [
            ("browser_navigate", {"tabId": tab, "url": f"{base}/"}),
            ("browser_snapshot", {"tabId": tab}),
            ("browser_type", by_ref(tab, "searchbox", "Search products", text="lamp")),
            ("browser_click", by_ref(tab, "button", "Search")),
        ],
        "Found the lamps.",
    )
    panel = start_turn(browser, "Search the lamp shop for lamps")
    done = panel.get_by_role("list", name="Conversation").get_by_role("listitem")
    found = done.filter(has_text="Found the lamps.")
    allow_for_the_site_until(panel, lambda: found.count() > 0, "the recording did not end")
    return panel


def _tab_urls(browser: Browser) -> list[str]:
    urls: list[str] = browser.worker().evaluate(
        "async () => (await chrome.tabs.query({})).map((t) => t.url)"
    )
    return urls


def _wait(condition: object, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not callable(condition) or not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_turn_saved_as_a_workflow_runs_again_with_another_value_and_on_schedule(
    browser: Browser, model: FakeAnthropic, shop: tuple[str, ShopState]
) -> None:
    base, _ = shop
    panel = _record(browser, model, base)
    header = panel.get_by_role("main")
    save = header.get_by_role("button", name="Save as workflow")
    expect(save).to_be_visible()
    save.click()

    editor = panel.get_by_role("form", name="Save as workflow")
    expect(editor).to_be_visible()
    title = editor.get_by_role("textbox", name="Workflow name")
    expect(title).to_have_value("Search the lamp shop for lamps")
    steps = editor.get_by_role("list", name="Steps").get_by_role("listitem")
    expect(steps).to_have_count(3)  # navigate, type, click: the snapshot is left out
    name = editor.get_by_role("textbox", name="Parameter 1 name")
    expect(editor.get_by_role("textbox", name="Parameter 1 value")).to_have_value("lamp")
    name.fill("Product")
    # the typing step names its parameter by the words just given, not by a placeholder
    expect(steps.nth(1)).to_contain_text("Product")
    expect(steps.nth(1)).not_to_contain_text("{{")
    title.fill("Lamp search")
    both_schemes(panel, "workflow-editor")
    editor.get_by_role("button", name="Save workflow").click()

    saved = panel.get_by_role("list", name="Saved workflows").get_by_role(
        "listitem", name="Lamp search"
    )
    expect(saved).to_contain_text("3 steps · asks for: Product")
    expect(saved).to_contain_text("Not scheduled.")
    asked_before = len(model.bodies)

    # run it again with another value: the same steps, no model
    saved.get_by_role("button", name="Run").click()
    run = saved.get_by_role("form", name="Run Lamp search")
    run.get_by_role("textbox", name="Product").fill("floor")
    run.get_by_role("button", name="Run workflow").click()
    expect(panel.get_by_role("heading", name="Lamp search")).to_be_visible()  # its thread
    # its first step opens a tab of its own, which the user allows for the shop
    allow_for_the_site_until(
        panel,
        lambda: any(u.endswith("/search?q=floor") for u in _tab_urls(browser)),
        "the replay did not search",
    )
    # in a tab of its own: the recorded tab and the panel are where they were
    urls = _tab_urls(browser)
    assert any(u.endswith("/search?q=lamp") for u in urls), urls
    assert any(u.endswith("/sidepanel.html?debug") for u in urls), urls
    deciders = (
        "[...panelot.store.state.items.values()]"
        ".filter((i) => i.kind === 'toolCall').map((i) => i.decidedBy)"
    )
    _wait(lambda: panel.evaluate(deciders).count("workflow") >= 3, "no replayed calls")
    assert set(panel.evaluate(deciders)) == {"workflow"}
    assert len(model.bodies) == asked_before  # the replay asked the model nothing

    # schedule it every hour; three hours later the alarm fires: the latest run is due, the
    # two before it were missed while the browser was closed
    panel.get_by_role("button", name="Workflows").click()
    saved.get_by_role("button", name="Schedule").click()
    form = saved.get_by_role("form", name="Schedule Lamp search")
    form.get_by_role("combobox", name="Repeat").select_option(label="Every few hours")
    form.get_by_role("spinbutton", name="Hours").fill("1")
    form.get_by_role("button", name="Save schedule").click()
    expect(saved.get_by_text("Every hour; next")).to_be_visible()
    expect(panel.get_by_role("alert")).to_have_count(0)  # nothing went wrong on the way
    both_schemes(panel, "workflows")
    worker = browser.worker()
    _wait(
        lambda: worker.evaluate(
            "async () => Boolean(await chrome.alarms.get('panelot-workflows'))"
        ),
        "the worker armed no alarm",
    )
    threads_before = len(panel.evaluate("panelot.store.state.threads"))
    worker.evaluate(
        """(later) => {
          panelot.scheduler.now = () => Date.now() + later;
          chrome.alarms.create('panelot-workflows', { when: Date.now() + 200 });
        }""",
        3 * HOUR_MS + 60_000,
    )
    notes = "async () => (await new Promise((r) => chrome.notifications.getAll(r)))"
    _wait(lambda: len(worker.evaluate(notes)) >= 2, "no notifications", timeout_s=45)
    shown = worker.evaluate(
        "async () => { const ids = Object.keys(await new Promise((r) => "
        "chrome.notifications.getAll(r))); return ids; }"
    )
    assert any(i.startswith("panelot-missed-") for i in shown), shown
    assert any(i.startswith("panelot-run-") for i in shown), shown
    _wait(
        lambda: len(panel.evaluate("panelot.store.state.threads")) == threads_before + 1,
        "the scheduled run made no thread",
    )
    assert len(model.bodies) == asked_before  # scheduled: replayed too
