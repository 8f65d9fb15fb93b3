"""Threads (issue 13, item 1): each thread's status in the list, search with highlighted
snippets, rename, delete after a confirmation, fork from a message, branch switching —
checked against what the engine stored."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .fake_model import FakeAnthropic, text_reply
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


def _turn(panel: Page, text: str) -> None:
    send(panel, text)
    expect(log(panel).get_by_role("listitem").filter(has_text=f"Echo: {text}")).to_be_visible()


def _texts(panel: Page) -> list[str]:
    return [i.get("text", "") for i in snapshot(panel)["items"]]


def test_a_thread_that_made_no_model_call_has_spent_nothing(browser: Browser) -> None:
    panel = browser.open_panel()
    connected(panel)
    created = rpc(panel, "thread.create", {"commandId": "empty-1", "title": "Not started"})
    panel.evaluate("(id) => panelot.controller.open(id)", created["thread"]["id"])
    expect(panel.locator("#thread-usage")).to_have_text("This thread: nothing spent yet")
    panel.evaluate("panelot.controller.refreshThreads()")  # made by another client: listed anew
    row = thread_list(panel).get_by_role("button", name="Not started")
    expect(row).to_contain_text("nothing spent yet")
    expect(row).not_to_contain_text("$")


def test_search_rename_delete(browser: Browser, model: FakeAnthropic) -> None:
    panel = browser.open_panel()
    connected(panel)
    _turn(panel, "Plan a trip to Kyoto")
    panel.get_by_role("button", name="New thread").click()
    _turn(panel, "Convert the recipe to metric units")
    threads = thread_list(panel)
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
    # the drawer closes with Esc, and gives the focus back to its button
    panel.keyboard.press("Escape")
    expect(threads).to_be_hidden()
    expect(panel.get_by_role("button", name="Threads")).to_be_focused()
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
    expect(thread_list(panel).get_by_role("listitem")).to_have_count(1)
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
    # the message shows its versions: 1 of 2 here; Next / Previous switch the whole branch
    message = log(panel).get_by_role("listitem").filter(has_text="second").first
    versions = message.get_by_role("group", name="Versions of this message")
    expect(versions).to_contain_text("1 of 2")
    expect(versions.get_by_role("button", name="Previous branch")).to_be_disabled()
    versions.get_by_role("button", name="Next branch").click()
    expect(log(panel).get_by_role("listitem").filter(has_text="Echo: third")).to_be_visible()
    assert _texts(panel) == ["first", "Echo: first", "third", "Echo: third"]  # what the host shows
    message = log(panel).get_by_role("listitem").filter(has_text="third").first
    versions = message.get_by_role("group", name="Versions of this message")
    expect(versions).to_contain_text("2 of 2")
    expect(versions.get_by_role("button", name="Next branch")).to_be_disabled()
    both_schemes(panel, "branches")
    versions.get_by_role("button", name="Previous branch").click()
    expect(log(panel).get_by_role("listitem").filter(has_text="Echo: second")).to_be_visible()
    assert _texts(panel) == ["first", "Echo: first", "second", "Echo: second"]
    stored = snapshot(panel)
    assert [p["itemId"] for p in stored["branches"]] == [stored["items"][2]["id"]]
    # fork at the first answer: a new thread holding the branch up to it
    answer = log(panel).get_by_role("listitem").filter(has_text="Echo: first")
    answer.hover()
    answer.get_by_role("button", name="Fork from here").click()
    expect(log(panel).get_by_role("listitem")).to_have_count(2)
    fork = snapshot(panel)
    assert fork["thread"]["id"] != source and fork["thread"]["parentThreadId"] == source
    assert [i["text"] for i in fork["items"]] == ["first", "Echo: first"]
    assert _texts(panel) == ["first", "Echo: first"]
    # named as a copy, so the list tells the two apart
    expect(panel.get_by_role("heading", level=2)).to_have_text(f"{fork['thread']['title']}")
    assert fork["thread"]["title"].endswith(" (copy)"), fork["thread"]["title"]
    assert len(snapshot(panel, source)["items"]) == 4


def _listed_status(panel: Page, thread_id: str) -> str:
    listed = rpc(panel, "thread.list", {})["threads"]
    status: str = next(t["status"] for t in listed if t["id"] == thread_id)
    return status


def test_the_list_shows_each_threads_status_as_the_host_reports_it(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_pages() as site:
        tab = site_tab(browser, site)
        panel = browser.open_panel()
        connected(panel)
        model.plan(navigate_reply(site, tab, "s1"))
        send(panel, "Open the start page")
        expect(approval_cards(panel)).to_be_visible()
        waiting = panel.evaluate("panelot.threadId")
        threads = thread_list(panel)
        row = threads.get_by_role("button", name="Open the start page")
        expect(row).to_contain_text("needs approval")
        assert _listed_status(panel, waiting) == "awaiting_approval"
        # another thread shown: the waiting one still says so, the new one is idle
        panel.get_by_role("button", name="New thread").click()
        _turn(panel, "Hello there")
        threads = thread_list(panel)  # New thread closed the drawer
        expect(threads.get_by_role("button", name="Hello there")).to_contain_text("idle")
        expect(row).to_contain_text("needs approval")
        both_schemes(panel, "threads-status")
        # answered elsewhere (another client): the row follows the host's thread.updated
        request = snapshot(panel, waiting)["pendingApprovals"][0]
        model.plan(text_reply(["Navigated."]))
        answer = {"commandId": "elsewhere", "requestId": request["requestId"]}
        rpc(panel, "approval.response", {**answer, "decision": "allow", "scope": "once"})
        expect(row).to_contain_text("idle")
        assert _listed_status(panel, waiting) == "idle"
        assert panel.evaluate("panelot.threadId") != waiting  # the shown thread did not change
