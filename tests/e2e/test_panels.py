"""Many panels on one worker and one host: request ids remapped, events routed per thread,
messages over Chrome's 1 MiB limit reassembled from ``$/chunk`` parts."""

from __future__ import annotations

import hashlib

import pytest
from playwright.sync_api import Page, expect

from .fake_model import FakeAnthropic
from .harness import Browser
from .panel_kit import thread_list


def _send(panel: Page, text: str) -> None:
    panel.get_by_role("textbox", name="Message").fill(text)
    panel.get_by_role("button", name="Send").click()


def _thread_id(panel: Page) -> str:
    thread_id: str = panel.evaluate("panelot.threadId")
    return thread_id


def test_two_panels_on_two_threads_each_see_only_their_own_events(
    browser: Browser, model: FakeAnthropic
) -> None:
    model.echo_delay_s = 0.05  # both turns stream at the same time
    first, second = browser.open_panel(), browser.open_panel()
    for panel in (first, second):
        expect(panel.get_by_text("Connected")).to_be_visible()
    _send(first, "alpha one two three four five")
    _send(second, "beta six seven eight nine ten")
    for panel, word in ((first, "alpha"), (second, "beta")):
        log = panel.get_by_role("list", name="Conversation")
        expect(log.get_by_role("listitem").nth(1)).to_have_text(
            f"Echo: {word} "
            + ("one two three four five" if word == "alpha" else "six seven eight nine ten")
        )
    first_id, second_id = _thread_id(first), _thread_id(second)
    assert first_id != second_id
    # what reached each panel's Port, besides thread.updated (sent to every panel)
    first_seen = first.evaluate("Object.fromEntries(panelot.client.receivedByThread)")
    second_seen = second.evaluate("Object.fromEntries(panelot.client.receivedByThread)")
    assert set(first_seen) == {first_id} and first_seen[first_id] >= 5
    assert set(second_seen) == {second_id} and second_seen[second_id] >= 5
    # both panels numbered their requests from 1: the worker kept them apart
    assert browser.stats()["inflight"] == 0


@pytest.mark.timeout(300)  # see the bounds below: a loaded machine, not a hang
def test_a_message_over_1_mib_reaches_the_panel_intact(
    browser: Browser, model: FakeAnthropic
) -> None:
    # over 1 MiB once encoded, with multi-byte characters and characters JSON escapes
    unit = 'Grüße "quoted" \\ 👋 ñ\t'
    text = "big " + unit * (1_200_000 // len(unit.encode()) + 1) + "end"
    assert len(text.encode()) > 1_048_576
    panel = browser.open_panel()
    expect(panel.get_by_text("Connected")).to_be_visible()
    panel.evaluate("text => { document.getElementById('message').value = text }", text)
    # laying out a megabyte of text (emoji each looked up in the fonts) can hold the page
    # for many seconds on a loaded machine: the bounds here wait for that, not for the Port
    panel.get_by_role("button", name="Send").click(timeout=90_000)
    log = panel.get_by_role("list", name="Conversation")
    expect(log.get_by_role("listitem").nth(1)).to_contain_text("Echo: big", timeout=90_000)
    digest = hashlib.sha256(text.encode()).hexdigest()
    shown = "li => li.textContent"
    assert _sha256(panel, log.get_by_role("listitem").nth(0).evaluate(shown)) == digest
    assert browser.stats()["reassembled"] >= 1  # the user item event came in $/chunk parts
    # a fresh panel opening the thread gets the snapshot (over 1 MiB too) intact
    thread_id = _thread_id(panel)
    other = browser.open_panel()
    thread_list(other).get_by_role("button").first.click()
    other_log = other.get_by_role("list", name="Conversation")
    expect(other_log.get_by_role("listitem").nth(1)).to_contain_text("Echo: big", timeout=90_000)
    assert other.evaluate("panelot.threadId") == thread_id
    assert _sha256(other, other_log.get_by_role("listitem").nth(0).evaluate(shown)) == digest


def _sha256(page: Page, text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_panel_opened_as_chrome_opens_it_installs_no_test_hooks(browser: Browser) -> None:
    page = browser.context.new_page()
    page.goto(f"chrome-extension://{browser.ext_id}/sidepanel.html")
    expect(page.get_by_text("Connected")).to_be_visible()
    assert page.evaluate("typeof globalThis.panelot") == "undefined"
    page.close()
