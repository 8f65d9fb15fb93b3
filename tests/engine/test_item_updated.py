"""``item.updated``: a tool call that starts running is announced with what it acts on,
so a client can say what is being done, and where, before the result arrives."""

from __future__ import annotations

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn
from tests.support.fake_browser import FakeBrowser, FakePage

from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio

PAGES = {"https://shop.example/": FakePage("Shop", "Welcome")}


async def test_a_running_call_is_sent_with_its_target_before_its_result(
    host: Host, client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    assert host.profile is not None
    browser = FakeBrowser(PAGES, "https://shop.example/")
    host.profile.ensure_engine().attach_browser(browser, frozenset({"browser_read"}))
    provider.add([ToolCall("browser_read", {})], [Text("It says welcome.")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "what does the shop say?")

    calls = [
        (method, params["item"])
        for method, params in log.events
        if method.startswith("item.") and params.get("item", {}).get("kind") == "toolCall"
    ]
    assert [method for method, _ in calls] == ["item.started", "item.updated", "item.completed"]
    started, running, done = (item for _, item in calls)
    assert started["status"] == "pending" and "target" not in started
    assert running["status"] == "running" and running["startedAt"]
    assert running["target"]["origin"] == "https://shop.example"
    assert running["target"]["title"] == "Shop"
    assert done["status"] == "succeeded" and done["target"] == running["target"]

    # the stored item keeps its target: a panel opened later shows where the call ran
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    [stored] = [i for i in snapshot["items"] if i["kind"] == "toolCall"]
    assert stored["target"] == running["target"]


async def test_a_call_on_no_tab_has_no_target(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([ToolCall("lookup", {"key": "a"})], [Text("done")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "look it up")
    updated = [p["item"] for m, p in log.events if m == "item.updated"]
    assert [item["status"] for item in updated] == ["running"]
    assert "target" not in updated[0] or updated[0]["target"] is None
