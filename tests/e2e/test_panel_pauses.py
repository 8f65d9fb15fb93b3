"""Pauses and recovery (issue 13, item 5): a budget pause resumed from the panel with an
extra budget set in settings' default; a write cut off by the host's death resolved from
the panel with one of recovery.resolve's answers. (A recovered, interrupted turn offered
for resume: tests/e2e/test_recovery.py drives the same panel.)"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler

from playwright.sync_api import expect
from tests.support.web import send_html, serve_on_loopback

from .fake_model import FakeAnthropic, Reply, text_reply, tool_use_reply
from .harness import Browser
from .panel_kit import both_schemes, connected, log, rpc, send, snapshot


def test_budget_pause_then_resume_with_extra_tokens(browser: Browser, model: FakeAnthropic) -> None:
    panel = browser.open_panel()
    connected(panel)
    panel.get_by_role("button", name="Settings").click()
    panel.get_by_text("Advanced", exact=True).click()
    panel.get_by_role("spinbutton", name="Default token budget").fill("10")
    panel.get_by_role("button", name="Save limits").click()
    expect(panel.get_by_role("status").filter(has_text="Limits saved.")).to_be_visible()
    assert rpc(panel, "settings.get", {})["settings"]["defaultTokenBudget"] == 10
    panel.get_by_role("button", name="Back to chat").click()
    model.plan(tool_use_reply("toolu_1", "browser_tabs_list", {}), text_reply(["All tabs read."]))
    send(panel, "Read my tabs")
    expect(panel.get_by_role("status").filter(has_text="used its token budget")).to_be_visible()
    stored = snapshot(panel)
    assert stored["run"]["state"] == "budget_paused" and stored["turn"]["status"] == "paused"
    assert len(model.bodies) == 1  # paused before the next model call
    both_schemes(panel, "budget-paused")
    panel.get_by_role("spinbutton", name="Extra tokens (optional)").fill("5000")
    panel.get_by_role("button", name="Resume").click()
    expect(log(panel).get_by_role("listitem").last).to_have_text("All tabs read.")
    stored = snapshot(panel)
    assert stored["turn"]["status"] == "completed" and len(model.bodies) == 2
    expect(panel.get_by_role("button", name="Resume")).to_be_hidden()


def _costly(reply: Reply, input_tokens: int) -> Reply:
    """``reply`` reporting ``input_tokens`` read (claude-sonnet-4-5: $3 per million)."""
    first = reply.body[0]
    assert isinstance(first, bytes) and b'"input_tokens": 10,' in first
    reply.body[0] = first.replace(
        b'"input_tokens": 10,', f'"input_tokens": {input_tokens},'.encode()
    )
    return reply


def test_a_budget_in_money_pauses_the_turn_and_continue_gives_it_more(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel = browser.open_panel()
    connected(panel)
    panel.get_by_role("button", name="Settings").click()
    panel.get_by_role("combobox", name="Budget per turn").select_option(label="$0.10")
    panel.get_by_role("button", name="Save model settings").click()
    expect(panel.get_by_role("status").filter(has_text="Model settings saved.")).to_be_visible()
    panel.get_by_role("button", name="Back to chat").click()
    # the first call reads 40,000 tokens: $0.12, past the $0.10 budget
    model.plan(
        _costly(tool_use_reply("toolu_1", "browser_tabs_list", {}), 40_000),
        text_reply(["All tabs read."]),
    )
    send(panel, "Read my tabs")
    expect(
        panel.get_by_role("status").filter(has_text="has spent $0.12 of its $0.10 budget")
    ).to_be_visible()
    stored = snapshot(panel)
    assert stored["run"]["state"] == "budget_paused" and stored["turn"]["budgetReached"] == "cost"
    assert len(model.bodies) == 1
    group = panel.get_by_role("group", name="Continue with more money")
    presets = group.get_by_role("button")
    expect(presets).to_have_text(["Continue (+$0.05)", "Continue (+$0.25)", "Continue (+$1.00)"])
    expect(panel.get_by_role("button", name="Resume")).to_be_visible()
    expect(panel.get_by_role("spinbutton", name="Extra tokens (optional)")).to_be_hidden()
    both_schemes(panel, "budget-paused-money")
    sent = panel.evaluate(
        """() => { window.__resumed = [];
        const request = panelot.client.request.bind(panelot.client);
        panelot.client.request = (method, params, ...rest) => {
          if (method === "run.resume") window.__resumed.push(params);
          return request(method, params, ...rest); }; }"""
    )
    assert sent is None
    group.get_by_role("button", name="Continue (+$0.25)").click()
    expect(log(panel).get_by_role("listitem").last).to_have_text("All tabs read.")
    assert [p["costBudgetUsd"] for p in panel.evaluate("window.__resumed")] == [0.25]
    stored = snapshot(panel)
    assert stored["turn"]["status"] == "completed" and len(model.bodies) == 2
    expect(group).to_be_hidden()
    expect(panel.get_by_role("button", name="Resume")).to_be_hidden()


def _hanging_site(arrived: threading.Event) -> type[BaseHTTPRequestHandler]:
    """A shop whose /hang page never loads while the test runs; ``arrived`` is set when the
    browser asks for it (the navigation was dispatched: the call is running)."""

    class Hang(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/hang"):
                arrived.set()
                time.sleep(30)
            send_html(self, "<!doctype html><title>Shop</title><h1>Shop</h1>")

    return Hang


def test_an_uncertain_write_is_resolved_from_the_panel(
    browser: Browser, model: FakeAnthropic
) -> None:
    navigating = threading.Event()
    with serve_on_loopback(_hanging_site(navigating)) as site:
        page = browser.context.new_page()
        page.goto(f"{site}/cart")
        tab = browser.worker().evaluate(
            "async (s) => (await chrome.tabs.query({url: s + '/*'}))[0].id", site
        )
        model.plan(
            tool_use_reply("toolu_1", "browser_navigate", {"url": f"{site}/hang", "tabId": tab}),
            text_reply(["The order page is open."]),
        )
        panel = browser.open_panel()
        connected(panel)
        send(panel, "Open the order page")
        log(panel).get_by_role("button", name="Allow once").click()
        # the turn's line says what runs, and where it is going
        line = log(panel).get_by_role("button", name=f"Step 1 · Opening {site}/hang")
        expect(line).to_be_visible()
        # a step whose outcome is unknown stays in view when the steps are folded
        card = log(panel).get_by_role("listitem").filter(has_text=f"Open {site}/hang")
        # killed once the navigation is under way: killed between the answer to the card
        # and the call's start, the run is resumable instead (tests/engine/test_recovery.py)
        assert navigating.wait(20), "the browser never asked for /hang"
        browser.kill_host()  # the navigation's outcome is now unknown
        expect(panel.get_by_role("button", name="It happened")).to_be_visible(timeout=20_000)
        expect(card).to_contain_text("outcome unknown")
        expect(card).to_contain_text(f"It was taking the tab from {site}/cart to {site}/hang")
        stored = snapshot(panel)
        assert stored["run"]["state"] == "paused_uncertain"
        call = next(i for i in stored["items"] if i["kind"] == "toolCall")
        assert call["status"] == "uncertain"
        both_schemes(panel, "uncertain")
        panel.get_by_role("button", name="It happened").click()
        expect(log(panel).get_by_role("listitem").last).to_have_text("The order page is open.")
        call = next(i for i in snapshot(panel)["items"] if i["kind"] == "toolCall")
        assert call["status"] == "succeeded"
        assert not call["result"]["isError"]
