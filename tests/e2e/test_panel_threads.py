"""Threads (issue 13, item 1): search with highlighted snippets, rename, delete after a
confirmation, fork from a message, branch switching — checked against what the engine
stored."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .fake_model import FakeAnthropic
from .harness import Browser
from .panel_kit import both_schemes, connected, log, rpc, send, snapshot


def _turn(panel: Page, text: str) -> None:
    send(panel, text)
    expect(log(panel).get_by_role("listitem").filter(has_text=f"Echo: {text}")).to_be_visible()


def _texts(panel: Page) -> list[str]:
    return [i.get("text", "") for i in snapshot(panel)["items"]]


def test_search_rename_delete(browser: Browser, model: FakeAnthropic) -> None:
    panel = browser.open_panel()
    connected(panel)
    _turn(panel, "Plan a trip to Kyoto")
    panel.get_by_role("button", name="New thread").click()
    _turn(panel, "Convert the recipe to metric units")
    threads = panel.get_by_role("navigation", name="Threads")
    expect(threads.get_by_role("listitem")).to_have_count(2)
    # newest first, with turns, tokens and cost
    first = threads.get_by_role("button").first
    expect(first).to_contain_text("Convert the recipe")
    expect(first).to_contain_text("1 turn")
    # search: the message text matches, the hit is highlighted
    panel.get_by_role("searchbox", name="Search threads").fill("metri")
    expect(threads.get_by_role("listitem")).to_have_count(1)
    expect(threads.locator("mark").first).to_have_text("metric")
    both_schemes(panel, "threads-search")
    panel.get_by_role("searchbox", name="Search threads").fill("")
    expect(threads.get_by_role("listitem")).to_have_count(2)
    # rename the shown thread
    panel.get_by_role("button", name="Rename thread").click()
    dialog = panel.get_by_role("dialog", name="Rename thread")
    dialog.get_by_role("textbox", name="Title").fill("Metric recipe")
    dialog.get_by_role("button", name="Rename").click()
    expect(panel.get_by_role("heading", name="Metric recipe")).to_be_visible()
    listed = rpc(panel, "thread.list", {})["threads"]
    assert listed[0]["title"] == "Metric recipe"
    # delete it, after a confirmation (cancel first: nothing happens)
    panel.get_by_role("button", name="Delete thread").click()
    panel.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    assert len(rpc(panel, "thread.list", {})["threads"]) == 2
    panel.get_by_role("button", name="Delete thread").click()
    confirm = panel.get_by_role("dialog", name="Delete this thread?")
    expect(confirm).to_contain_text("cannot be undone")
    both_schemes(panel, "delete-dialog")
    confirm.get_by_role("button", name="Delete").click()
    expect(threads.get_by_role("listitem")).to_have_count(1)
    remaining = rpc(panel, "thread.list", {})["threads"]
    assert [t["title"] for t in remaining] == ["Plan a trip to Kyoto"]


def test_fork_from_a_message_and_switch_branches(browser: Browser, model: FakeAnthropic) -> None:
    panel = browser.open_panel()
    connected(panel)
    _turn(panel, "first")
    _turn(panel, "second")
    source = panel.evaluate("panelot.threadId")
    # branch: go back to before "second", ask something else there
    second = log(panel).get_by_role("listitem").filter(has_text="second").first
    second.hover()
    second.get_by_role("button", name="Branch from here").click()
    expect(log(panel).get_by_role("listitem")).to_have_count(2)
    _turn(panel, "third")
    assert _texts(panel) == ["first", "Echo: first", "third", "Echo: third"]
    # and back to the branch that ended with "second"
    panel.get_by_role("button", name="Back to the previous branch").click()
    expect(log(panel).get_by_role("listitem").filter(has_text="Echo: second")).to_be_visible()
    assert _texts(panel) == ["first", "Echo: first", "second", "Echo: second"]
    # fork at the first answer: a new thread holding the branch up to it
    answer = log(panel).get_by_role("listitem").filter(has_text="Echo: first")
    answer.hover()
    answer.get_by_role("button", name="Fork from here").click()
    expect(log(panel).get_by_role("listitem")).to_have_count(2)
    fork = snapshot(panel)
    assert fork["thread"]["id"] != source and fork["thread"]["parentThreadId"] == source
    assert [i["text"] for i in fork["items"]] == ["first", "Echo: first"]
    assert _texts(panel) == ["first", "Echo: first"]
    assert len(snapshot(panel, source)["items"]) == 4
