"""The chat session against the real engine: the test types lines and presses Ctrl-C."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest
from tests.cli.chat_driver import Screen, driven_session
from tests.engine.helpers import new_thread
from tests.support.fake_browser import FakeBrowser, FakePage

from panelot_host.cli.chat_input import CtrlC
from panelot_host.providers.scripted import Hang, Pause, ScriptedProvider, Stop, Text, ToolCall
from panelot_host.providers.types import Usage
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio

PAGES = {
    "https://shop.example/": FakePage("Shop", "Welcome"),
    "https://shop.example/cart": FakePage("Cart", "Your cart is empty"),
}


def attach_fake_browser(host: Host) -> FakeBrowser:
    browser = FakeBrowser(PAGES, "https://shop.example/")
    assert host.profile is not None
    host.profile.ensure_engine().attach_browser(browser, frozenset({"browser_navigate"}))
    return browser


async def eventually(condition: Callable[[], bool], within_s: float = 5.0) -> None:
    with anyio.fail_after(within_s):
        while True:
            if condition():
                return
            await anyio.sleep(0.01)


def navigate(url: str) -> ToolCall:
    return ToolCall("browser_navigate", {"url": url})


async def test_an_approval_allowed_for_the_thread_runs_the_tool(
    host: Host, client: DirectTransport, provider: ScriptedProvider
) -> None:
    browser = attach_fake_browser(host)
    provider.add([navigate("https://shop.example/cart")], [Text("The cart is empty.")])
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen) as chat:
        await chat.type("open my cart")
        seen = await screen.wait_for("? allow browser_navigate (navigate) on https://shop.example")
        seen = await screen.wait_for("[s]ite (this origin)", after=seen)
        await chat.type("maybe")  # not an answer: asked again
        seen = await screen.wait_for("answer o (once), t (thread)", after=seen)
        await chat.type("t")
        seen = await screen.wait_for("succeeded: Loaded https://shop.example/cart", after=seen)
        await screen.wait_for("The cart is empty.", after=seen)
        await screen.wait_for("= completed", after=seen)
    assert [tool for _, tool, _, _ in browser.invocations] == ["browser_navigate"]
    grants = await client.send("permissions.list", {"threadId": thread_id})
    assert [(g["tool"], g["scope"]) for g in grants["grants"]] == [("browser_navigate", "thread")]


async def test_a_denial_with_a_reason_reaches_the_model_and_nothing_runs(
    host: Host, client: DirectTransport, provider: ScriptedProvider
) -> None:
    browser = attach_fake_browser(host)
    provider.add([navigate("https://shop.example/cart")], [Text("Understood.")])
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen) as chat:
        await chat.type("open my cart")
        seen = await screen.wait_for("? allow browser_navigate")
        await chat.type("d not the cart, please")
        seen = await screen.wait_for("denied", after=seen)
        await screen.wait_for("= completed", after=seen)
    assert browser.invocations == []
    assert "not the cart, please" in repr(provider.requests[-1].messages)


async def test_a_line_typed_while_a_turn_runs_steers_it(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    provider.add([Text("Working"), Pause(1.0)], [Text("Added the extra step.")])
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen) as chat:
        await chat.type("do the thing")
        seen = await screen.wait_for("Working")
        await chat.type("also add an extra step")
        seen = await screen.wait_for("(steering: also add an extra step (read before", after=seen)
        seen = await screen.wait_for("steering reached the model: also add an extra step")
        await screen.wait_for("Added the extra step.", after=seen)
        await screen.wait_for("= completed", after=seen)
    assert len(provider.requests) == 2
    assert "also add an extra step" in repr(provider.requests[1].messages)
    assert "also add an extra step" not in repr(provider.requests[0].messages)


async def test_steering_a_turn_that_has_ended_falls_back_to_a_new_turn(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    provider.add([Text("First.")], [Text("Second.")])
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen) as chat:
        await chat.type("one")
        seen = await screen.wait_for("= completed")
        assert chat.session.running is None
        chat.session.running = "turn_that_already_ended"  # as if turn.complete were unread
        await chat.session.steer("two")
        seen = await screen.wait_for("Second.", after=seen)
        await screen.wait_for("= completed", after=seen)
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert [i["text"] for i in snapshot["items"] if i["kind"] == "user"] == ["one", "two"]


async def test_a_message_queued_behind_a_turn_runs_after_it_is_interrupted(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    provider.add([Text("Long answer"), Hang()], [Text("Queued one done.")])
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen) as chat:
        await chat.type("first")
        seen = await screen.wait_for("Long answer")
        running = chat.session.running
        await chat.session.enqueue("later")  # what stale_turn falls back to
        seen = await screen.wait_for("this message runs as the next turn", after=seen)
        assert chat.session.running == running
        await eventually(lambda: chat.session.queued == 1)  # queue.updated says it waits
        await chat.send(CtrlC())
        seen = await screen.wait_for("= interrupted", after=seen)
        seen = await screen.wait_for("Queued one done.", after=seen)
        await screen.wait_for("= completed", after=seen)
        assert chat.session.running is None and chat.session.queued == 0


async def test_ctrl_c_interrupts_the_turn_and_a_second_ctrl_c_quits(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    provider.add([Text("Thinking hard"), Hang()])
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen) as chat:
        await chat.type("go")
        seen = await screen.wait_for("Thinking hard")
        await chat.send(CtrlC())
        seen = await screen.wait_for("interrupting · press Ctrl-C again to quit", after=seen)
        await screen.wait_for("= interrupted", after=seen)
        assert chat.session.running is None
        await chat.send(CtrlC())  # idle now: quits
        assert await chat.finished() == 4  # the last turn was interrupted
    assert provider.cancelled == 1


async def test_ctrl_c_twice_while_a_turn_runs_quits_with_the_turn_ended(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    provider.add([Text("Still going"), Hang()])
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen) as chat:
        await chat.type("go")
        await screen.wait_for("Still going")
        await chat.send(CtrlC())
        await chat.send(CtrlC())
        assert await chat.finished() == 4
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["turn"]["status"] == "interrupted"


async def test_a_budget_pause_is_resumed_with_a_new_budget(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    provider.add(
        [ToolCall("no_such_tool", {}), Stop(usage=Usage(40, 10))],
        [Text("Finished after resuming.")],
    )
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen, budget=20) as chat:
        await chat.type("use the tool")
        seen = await screen.wait_for("paused: the token budget is used up")
        await chat.type("later")  # neither yes, no nor a number
        seen = await screen.wait_for("answer y, n or a token budget", after=seen)
        await chat.type("5000")
        seen = await screen.wait_for("Finished after resuming.", after=seen)
        await screen.wait_for("= completed", after=seen)
    assert len(provider.requests) == 2


async def test_declining_to_resume_ends_the_paused_turn(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    provider.add([ToolCall("no_such_tool", {}), Stop(usage=Usage(40, 10))])
    thread_id, screen = await new_thread(client), Screen()
    async with driven_session(client, thread_id, screen, budget=20) as chat:
        await chat.type("use the tool")
        seen = await screen.wait_for("paused: the token budget is used up")
        await chat.type("n")
        await screen.wait_for("= interrupted", after=seen)
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["turn"]["status"] == "interrupted"
