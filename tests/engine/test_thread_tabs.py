"""Issue 26, each thread owns its tabs: the tabs it opened and the ones the user handed to
it. Its calls carry them to the browser and act on them by default; a call on a tab it
does not own (the user's active tab, another thread's) is asked first, and its card says
whose tab it is; allowing a call on the user's tab hands that tab over."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import answer_approval, new_thread, run_turn, wait_for
from tests.support.fake_browser import FakeBrowser, FakePage

from panelot_host.engine.thread_tabs import group_color, group_title
from panelot_host.protocol.tabs import TAB_GROUP_COLORS
from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio

SHOP, NEWS = "https://shop.example/", "https://news.example/"
PAGES = {SHOP: FakePage("Shop", "Welcome"), NEWS: FakePage("News", "Headlines")}
TOOLS = frozenset({"browser_read", "browser_tab_new", "browser_tabs_list", "browser_click"})


@pytest.fixture(autouse=True)
async def _owning(client: DirectTransport) -> None:
    """Threads ask before acting on a tab they do not own (the other tests turn it off)."""
    await client.send("settings.update", {"commandId": "owning", "actOnUnownedTabs": False})


def _browser(host: Host) -> FakeBrowser:
    assert host.profile is not None
    browser = FakeBrowser(PAGES, SHOP)  # tab 1, the user's active tab
    host.profile.ensure_engine().attach_browser(browser, TOOLS)
    return browser


async def _run_allowing(client: DirectTransport, log: EventLog, thread_id: str, text: str) -> None:
    """Run a turn whose calls ask at most once, allowing it."""
    before = len(log.of("approval.request"))
    submitted = await client.send(
        "turn.submit", {"commandId": f"run-{text}", "threadId": thread_id, "text": text}
    )
    asked = await wait_for(log, "approval.request", before + 1)
    await answer_approval(client, asked[-1], "allow", "once")
    await wait_for(log, "turn.complete", turnId=submitted["turnId"])


async def _thread(client: DirectTransport, log: EventLog, thread_id: str) -> dict[str, Any]:
    opened = await client.send("thread.open", {"threadId": thread_id})
    thread: dict[str, Any] = opened["thread"]
    return thread


async def test_a_call_on_the_users_active_tab_asks_and_allowing_hands_the_tab_over(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    browser = _browser(host)
    provider.add([ToolCall("browser_read", {})], [ToolCall("browser_read", {})], [Text("ok")])
    thread_id = await new_thread(client)
    submitted = await client.send(
        "turn.submit", {"commandId": "s1", "threadId": thread_id, "text": "what does it say?"}
    )

    [approval] = await wait_for(log, "approval.request")
    assert approval["tabOwner"] == "your active tab"
    assert approval["sharesTab"] is True
    assert "which this thread does not own" in approval["reason"]
    assert browser.invocations == []  # nothing ran before the user said so

    await answer_approval(client, approval, "allow", "once")
    await wait_for(log, "turn.complete", turnId=submitted["turnId"])
    assert len(log.of("approval.request")) == 1  # the second read acts on its own tab now
    assert len(browser.invocations) == 2
    group = (await _thread(client, log, thread_id))["tabGroup"]
    assert [(t["tabId"], t["source"]) for t in group["tabs"]] == [(1, "shared")]
    assert group["color"] == group_color(thread_id)
    assert group["color"] in TAB_GROUP_COLORS


async def test_a_tab_the_thread_opens_is_its_own_and_its_calls_act_there_unasked(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    browser = _browser(host)
    provider.add(
        [ToolCall("browser_tab_new", {"url": NEWS})],
        [ToolCall("browser_read", {})],  # names no tab: the thread's own, not the active one
        [Text("Headlines.")],
    )
    thread_id = await new_thread(client)
    await _run_allowing(client, log, thread_id, "read the news")

    requests = log.of("approval.request")
    assert [r["tool"]["name"] for r in requests] == ["browser_tab_new"]  # a new site
    assert all("tabOwner" not in r for r in requests)  # never for whose tab
    opened, read = browser.invocations
    assert opened[1] == "browser_tab_new"
    assert read[1] == "browser_read" and read[3] is not None and read[3].tab_id == 2
    group = (await _thread(client, log, thread_id))["tabGroup"]
    assert [(t["tabId"], t["url"], t["source"]) for t in group["tabs"]] == [(2, NEWS, "opened")]
    updated = [p["thread"] for p in log.of("thread.updated") if p["thread"].get("tabGroup")]
    assert updated, "the panel learns of the thread's tabs as they change"


async def test_a_tab_of_another_thread_is_asked_by_that_threads_name(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _browser(host)
    provider.add([ToolCall("browser_tab_new", {"url": NEWS})], [Text("opened")])
    first = await new_thread(client, "first")
    await client.send(
        "thread.rename", {"commandId": "rename", "threadId": first, "title": "Morning news"}
    )
    await _run_allowing(client, log, first, "open the news")

    provider.add([ToolCall("browser_read", {"tabId": 2})], [Text("denied")])
    second = await new_thread(client, "second")
    submitted = await client.send(
        "turn.submit", {"commandId": "s2", "threadId": second, "text": "read tab 2"}
    )
    [approval] = await wait_for(log, "approval.request", threadId=second)
    assert approval["tabOwner"] == "a tab of the thread “Morning news”"
    assert "sharesTab" not in approval or approval["sharesTab"] is False
    await answer_approval(client, approval, "deny", "once")
    await wait_for(log, "turn.complete", turnId=submitted["turnId"])
    assert (await _thread(client, log, second)).get("tabGroup") is None


async def test_the_user_hands_a_tab_over_from_the_panel(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    browser = _browser(host)
    thread_id = await new_thread(client)
    shared = await client.send(
        "thread.shareTab",
        {
            "commandId": "share",
            "threadId": thread_id,
            "tab": {"tabId": 1, "url": SHOP, "title": "Shop"},
        },
    )
    tabs = shared["thread"]["tabGroup"]["tabs"]
    assert [(t["tabId"], t["source"], t["grouped"]) for t in tabs] == [(1, "shared", True)]

    provider.add([ToolCall("browser_read", {})], [Text("Welcome.")])
    await run_turn(client, log, thread_id, "what does it say?")
    assert log.of("approval.request") == []
    assert len(browser.invocations) == 1


async def test_the_active_tab_is_handed_over_with_a_message_only_when_the_user_allows_it(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _browser(host)
    tab = {"tabId": 1, "url": SHOP, "title": "Shop"}
    thread_id = await new_thread(client)
    provider.add([Text("hi")])
    await run_turn(client, log, thread_id, "hello", shareTab=tab)
    assert (await _thread(client, log, thread_id)).get("tabGroup") is None  # off by default

    await client.send("settings.update", {"commandId": "on", "shareActiveTab": True})
    provider.add([ToolCall("browser_read", {})], [Text("Welcome.")])
    await run_turn(client, log, thread_id, "and now?", shareTab=tab)
    assert log.of("approval.request") == []
    group = (await _thread(client, log, thread_id))["tabGroup"]
    assert [t["tabId"] for t in group["tabs"]] == [1]


async def test_the_user_may_let_threads_act_on_any_tab_without_asking(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    _browser(host)
    await client.send("settings.update", {"commandId": "default", "actOnUnownedTabs": None})
    settings = await client.send("settings.get", {})
    assert settings["settings"]["actOnUnownedTabs"] is True  # PANELOT_ACT_ON_UNOWNED_TABS=1
    await client.send("settings.update", {"commandId": "own", "actOnUnownedTabs": False})
    settings = await client.send("settings.get", {})
    assert settings["settings"]["actOnUnownedTabs"] is False
    await client.send("settings.update", {"commandId": "any", "actOnUnownedTabs": True})
    provider.add([ToolCall("browser_read", {})], [Text("Welcome.")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "what does it say?")
    assert log.of("approval.request") == []


async def test_group_titles_are_short_and_colours_fixed_per_thread() -> None:
    assert group_title("  Plan   the trip  ") == "Plan the trip"
    long = group_title("x" * 100)
    assert len(long) == 40 and long.endswith("…")
    assert group_color("thr_a") == group_color("thr_a")
    assert len({group_color(f"thr_{i}") for i in range(200)}) == len(TAB_GROUP_COLORS)
