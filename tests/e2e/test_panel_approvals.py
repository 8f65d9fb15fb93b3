"""Approvals and questions (issue 13, item 4): the four choices and what the engine stores
for each (a grant for the site is reused in another thread, one for the thread is not),
a card still answerable after the panel reloads, `ask_user` as a form; and the
connection-level `authority.widened` notice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from .fake_model import FakeAnthropic, text_reply, tool_use_reply
from .harness import Browser
from .pages import serve_pages
from .panel_kit import (
    approval_cards,
    both_schemes,
    connected,
    log,
    navigate_reply,
    rpc,
    send,
    site_tab,
    snapshot,
    thread_list,
)


def _card(panel: Page) -> Any:
    return approval_cards(panel)


def _open_thread(panel: Page, title: str) -> None:
    thread_list(panel).get_by_role("button", name=title).click()


def _tool_statuses(panel: Page) -> list[str]:
    return [i["status"] for i in snapshot(panel)["items"] if i["kind"] == "toolCall"]


def test_each_choice_and_its_scope(
    launch_profile: Callable[..., Browser], model: FakeAnthropic
) -> None:
    # the threads share one tab: which thread owns it is issue 26's question, asked
    # whatever the grants (test_panel_parallel.py); here the grants alone decide
    browser = launch_profile(env={"PANELOT_ACT_ON_UNOWNED_TABS": "1"})
    with serve_pages() as site:
        tab = site_tab(browser, site)
        panel = browser.open_panel()
        connected(panel)
        # thread A: "Allow for this thread" — the second call in A is not asked
        model.plan(
            tool_use_reply(
                "toolu_a1",
                "browser_navigate",
                {"url": f"{site}/a1", "tabId": tab},
                saying="I will open your first order to check its status.",
            ),
            navigate_reply(site, tab, "a2"),
            text_reply(["A done."]),
        )
        send(panel, "Thread A")
        card = _card(panel)
        # a navigation names where it goes, and in which tab
        expect(card.locator("p").first).to_have_text(f"Open {site}/a1 in the tab “Page /start”?")
        # the model's words for why, when it gave them
        expect(card.get_by_role("note", name="The model's reason")).to_have_text(
            "Why: I will open your first order to check its status."
        )
        # the card speaks for itself: no status line, and the composer says what to do
        expect(panel.locator("#run")).to_be_hidden()
        expect(
            panel.get_by_text("Answer the card above to go on, or stop the turn (Esc).")
        ).to_be_visible()
        # Deny is in view without scrolling on a small screen
        size = panel.viewport_size
        panel.set_viewport_size({"width": 360, "height": 640})
        expect(card.get_by_role("button", name="Deny")).to_be_in_viewport()
        expect(card.get_by_role("button", name="Allow once")).to_be_in_viewport()
        if size:
            panel.set_viewport_size(size)
        site_choice = card.get_by_role("button", name="Allow for this site")
        expect(site_choice).to_have_accessible_description(
            "Don't ask again before going to this site, in any conversation."
        )
        both_schemes(panel, "approval")
        card.get_by_role("button", name="Allow for this thread").click()
        expect(log(panel).get_by_role("listitem").last).to_have_text("A done.")
        assert _tool_statuses(panel) == ["succeeded", "succeeded"]
        thread_a = panel.evaluate("panelot.threadId")
        grants = rpc(panel, "permissions.list", {})["grants"]
        assert [(g["scope"], g.get("threadId")) for g in grants] == [("thread", thread_a)]

        # thread B: the thread grant of A is not reused; "Allow for this site"
        panel.get_by_role("button", name="New thread").click()
        model.plan(navigate_reply(site, tab, "b1"), text_reply(["B done."]))
        send(panel, "Thread B")
        _card(panel).get_by_role("button", name="Allow for this site").click()
        expect(log(panel).get_by_role("listitem").last).to_have_text("B done.")
        grants = rpc(panel, "permissions.list", {})["grants"]
        assert sorted(g["scope"] for g in grants) == ["origin", "thread"]
        assert [g["origin"] for g in grants if g["scope"] == "origin"] == [site]

        # thread C: the site grant is reused (no card); then a read of another kind
        panel.get_by_role("button", name="New thread").click()
        model.plan(navigate_reply(site, tab, "c1"), text_reply(["C done."]))
        send(panel, "Thread C")
        expect(log(panel).get_by_role("listitem").last).to_have_text("C done.")
        assert _tool_statuses(panel) == ["succeeded"]

        # revoke the site grant from settings, then "Deny" and "Allow once"
        panel.get_by_role("button", name="Settings").click()
        panel.get_by_text("Advanced", exact=True).click()  # the grant ledger is under it
        revoke = panel.get_by_role("button", name=f"Revoke: Allowed: Open pages, on {site}")
        revoke.click()
        expect(revoke).to_have_count(0)
        assert [g["scope"] for g in rpc(panel, "permissions.list", {})["grants"]] == ["thread"]
        panel.get_by_role("button", name="Back to chat").click()
        model.plan(
            navigate_reply(site, tab, "c2"),
            navigate_reply(site, tab, "c3"),
            text_reply(["C again."]),
        )
        send(panel, "Once more")
        _card(panel).filter(has_text=f"{site}/c2").get_by_role("button", name="Deny").click()
        # asked again for the next call (told apart by its URL: the denied card may still
        # show a moment, and a click on it would answer nothing)
        _card(panel).filter(has_text=f"{site}/c3").get_by_role("button", name="Allow once").click()
        expect(log(panel).get_by_role("listitem").last).to_have_text("C again.")
        assert _tool_statuses(panel) == ["succeeded", "denied", "succeeded"]
        assert [g["scope"] for g in rpc(panel, "permissions.list", {})["grants"]] == ["thread"]


def test_a_card_survives_a_reload_and_ask_user_is_a_form(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_pages() as site:
        tab = site_tab(browser, site)
        model.plan(
            navigate_reply(site, tab, "r1"),
            tool_use_reply(
                "toolu_q1", "ask_user", {"question": "Which size?", "options": ["Small", "Large"]}
            ),
            tool_use_reply("toolu_q2", "ask_user", {"question": "Any note for the shop?"}),
            text_reply(["Ordered."]),
        )
        panel = browser.open_panel()
        connected(panel)
        send(panel, "Order it")
        expect(_card(panel)).to_have_count(1)
        thread_id = panel.evaluate("panelot.threadId")
        panel.reload()
        connected(panel)
        _open_thread(panel, "Order it")
        assert panel.evaluate("panelot.threadId") == thread_id
        # a second panel on the same thread shows the same card; answered in the first,
        # it disappears from the second
        other = browser.open_panel()
        connected(other)
        _open_thread(other, "Order it")
        expect(_card(other)).to_have_count(1)
        _card(panel).get_by_role("button", name="Allow once").click()
        expect(_card(other)).to_have_count(0)
        other.close()
        question = log(panel).get_by_role("listitem").filter(has_text="Which size?")
        both_schemes(panel, "question")
        question.get_by_role("button", name="Large").click()
        free = log(panel).get_by_role("listitem").filter(has_text="Any note for the shop?")
        free.get_by_role("textbox", name="Your answer").fill("Ring twice")
        free.get_by_role("button", name="Answer").click()
        expect(log(panel).get_by_role("listitem").last).to_have_text("Ordered.")
        # each answered question keeps its question and the answer given, in plain sight
        asked = log(panel).locator("details.tool.asked > summary")
        expect(asked).to_have_count(2)
        expect(asked.nth(0)).to_have_text("Which size?You answered: Large")
        expect(asked.nth(1)).to_have_text("Any note for the shop?You answered: Ring twice")
        both_schemes(panel, "question-answered")
        results = [
            i["result"]["content"] for i in snapshot(panel)["items"] if i["kind"] == "toolCall"
        ]
        assert results[1:] == ["The user answered: Large", "The user answered: Ring twice"]


def test_authority_widened_is_a_visible_notice(browser: Browser) -> None:
    panel = browser.open_panel()
    connected(panel)
    # the host's connection-level event, as the worker relays it to every panel
    browser.worker().evaluate(
        "() => panelot.relay.fromHost('authority.widened', {commandId: 'c1', changes:"
        " [{kind: 'base_url', summary: 'Model requests now go to http://10.0.0.5:8000.'}]})"
    )
    notice = panel.get_by_text("Model requests now go to http://10.0.0.5:8000.")
    expect(notice).to_be_visible()
    expect(panel.locator("#notices")).to_contain_text("Permissions widened")
    panel.get_by_role("button", name="Dismiss notice").click()
    expect(notice).to_have_count(0)
