"""Issue 30, the host's side of a turn's timeline: browser actions ask the shim for frames
(``capture``) while ``captureFrames`` is on; the frames the shim sends are stored with the
tool call (never in its result, never shown to a model), listed on the item in every view
of it, returned by ``frame.get``, and kept within ``frameBudgetMb``, oldest first.
Through the engine (DirectTransport, the scripted model) and the real ``browser.invoke``
path: a shim that plays one tab and captures real JPEG bytes."""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tests.conftest import EventLog
from tests.engine.helpers import INIT, new_thread, run_turn
from tests.support.frames import JPEG, PNG, T0, captured, tiny_jpeg

from panelot_host.engine import frames as engine_frames
from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError

pytestmark = pytest.mark.anyio

SHOP = "https://shop.example"
TOOLS = [
    "browser_snapshot",
    "browser_read",
    "browser_screenshot",
    "browser_click",
    "browser_type",
    "browser_scroll",
    "browser_hover",
    "browser_navigate",
    "browser_tab_new",
    "browser_tabs_list",
    "browser_wait_for",
]
ALLOW_ALL = [{"tool": "browser_*", "decision": "allow"}]

Capture = Callable[[str, dict[str, Any], int], dict[str, Any]]
"""(tool, args, how many actions on the tab before) -> what the answer adds."""


def before_and_after(tool: str, args: dict[str, Any], acted: int) -> dict[str, Any]:
    """What the extension captures: the tab after the action, and before it when it is the
    Turn's first action on the tab (sent after first here: the host orders them)."""
    frames = [captured("after", url=f"{SHOP}/{tool}", mark={"kind": "point", "x": 4, "y": 2})]
    if acted == 0:
        frames.append(captured("before", url=f"{SHOP}/{tool}", title="Shop", blurred=1))
    return {"frames": frames}


class Shim:
    """Plays the extension: one tab; records each ``browser.invoke``'s ``capture``."""

    def __init__(self) -> None:
        self.capture: Capture = before_and_after
        self.asked: list[tuple[str, bool]] = []
        self.acted = 0

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        tab = {"tabId": 3, "url": f"{SHOP}/", "origin": SHOP, "title": "Shop"}
        if method == "browser.resolveTarget":
            return tab
        if method != "browser.invoke":
            return params.get("threadTabs") or {}
        tool, args = params["tool"], params["args"]
        self.asked.append((tool, bool(params.get("capture"))))
        answer: dict[str, Any] = {"content": f"{tool} done", "isError": False, "target": tab}
        if params.get("capture"):
            answer.update(self.capture(tool, args, self.acted))
            self.acted += 1
        return answer


@pytest.fixture
async def shop(host: Host) -> AsyncIterator[tuple[DirectTransport, Shim, EventLog]]:
    shim = Shim()
    async with DirectTransport.connect(host, shim=shim) as transport:
        await transport.send("initialize", {**INIT, "capabilities": {"browserTools": TOOLS}})
        await transport.send("settings.update", {"commandId": "rules", "policyRules": ALLOW_ALL})
        log = EventLog()
        transport.on_event(log)
        yield transport, shim, log


def _calls(*calls: ToolCall) -> list[list[ToolCall] | list[Text]]:
    return [[call] for call in calls] + [[Text("done")]]


def _tool_calls(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    calls = [i for i in snapshot["items"] if i["kind"] == "toolCall"]
    return [{"frames": [], **call} for call in calls]  # an empty list is left out


def _database(home: Path) -> sqlite3.Connection:
    return sqlite3.connect(home / "profiles" / "default" / "panelot.db")


async def test_actions_ask_for_frames_and_reads_do_not(
    shop: tuple[DirectTransport, Shim, EventLog], provider: ScriptedProvider
) -> None:
    client, shim, log = shop
    provider.add(
        *_calls(
            ToolCall("browser_snapshot", {}),
            ToolCall("browser_click", {"ref": "e1"}),
            ToolCall("browser_read", {}),
            ToolCall("browser_type", {"ref": "e2", "text": "socks"}),
            ToolCall("browser_screenshot", {}),
            ToolCall("browser_scroll", {"direction": "down"}),
            ToolCall("browser_hover", {"ref": "e3"}),
            ToolCall("browser_wait_for", {"timeMs": 1}),
            ToolCall("browser_tabs_list", {}),
            ToolCall("browser_navigate", {"url": f"{SHOP}/b"}),
            ToolCall("browser_tab_new", {}),
            ToolCall("browser_tab_new", {"url": f"{SHOP}/c"}),
        )
    )
    thread_id = await new_thread(client)
    assert (await run_turn(client, log, thread_id, "buy socks"))["status"] == "completed"
    assert shim.asked == [
        ("browser_snapshot", False),
        ("browser_click", True),
        ("browser_read", False),
        ("browser_type", True),
        ("browser_screenshot", False),
        ("browser_scroll", True),
        ("browser_hover", True),
        ("browser_wait_for", False),
        ("browser_tabs_list", False),
        ("browser_navigate", True),
        ("browser_tab_new", False),  # a blank tab: no page acted on
        ("browser_tab_new", True),
    ]


async def test_frames_are_stored_with_the_call_and_listed_on_it_never_sent_to_the_model(
    shop: tuple[DirectTransport, Shim, EventLog], provider: ScriptedProvider
) -> None:
    client, _shim, log = shop
    provider.add(
        *_calls(ToolCall("browser_click", {"ref": "e1"}), ToolCall("browser_click", {"ref": "e2"}))
    )
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "click twice")
    first, second = _tool_calls(await client.send("thread.open", {"threadId": thread_id}))
    # the first action on the tab: a frame before it, then one after (sent the other way)
    assert [f["phase"] for f in first["frames"]] == ["before", "after"]
    assert [f["phase"] for f in second["frames"]] == ["after"]
    after = first["frames"][1]
    assert after == {
        "id": after["id"],
        "phase": "after",
        "width": 16,
        "height": 8,
        "url": f"{SHOP}/browser_click",
        "capturedAt": T0,
        "mark": {"kind": "point", "x": 4.0, "y": 2.0},
    }
    assert "frameSkipped" not in first
    assert first["result"] == {
        "content": "<untrusted-page-content>\nbrowser_click done\n</untrusted-page-content>",
        "isError": False,
        "details": {"target": {"tabId": 3, "url": f"{SHOP}/", "origin": SHOP, "title": "Shop"}},
    }
    # the item's events list them as thread.open does
    completed = [e["item"] for e in log.of("item.completed") if e["item"]["kind"] == "toolCall"]
    assert [c["frames"] for c in completed] == [first["frames"], second["frames"]]
    # no model saw a frame: not its image, not its id
    data = base64.b64encode(JPEG).decode()
    for request in provider.requests:
        sent = msgspec.json.encode(request).decode()
        assert data not in sent and after["id"] not in sent and "frames" not in sent


async def test_frame_get_returns_the_image_and_not_found_for_none(
    shop: tuple[DirectTransport, Shim, EventLog], provider: ScriptedProvider
) -> None:
    client, _shim, log = shop
    provider.add(*_calls(ToolCall("browser_click", {"ref": "e1"})))
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "click")
    [call] = _tool_calls(await client.send("thread.open", {"threadId": thread_id}))
    before = call["frames"][0]
    frame = (await client.send("frame.get", {"frameId": before["id"]}))["frame"]
    assert base64.b64decode(frame["data"]) == JPEG
    assert frame == {
        **before,
        "threadId": thread_id,
        "turnId": call["turnId"],
        "itemId": call["id"],
        "mime": "image/jpeg",
        "data": frame["data"],
        "title": "Shop",
        "blurred": 1,
    }
    with pytest.raises(RemoteError) as missing:
        await client.send("frame.get", {"frameId": "frm_nothing"})
    assert missing.value.kind == "not_found"


async def test_capture_is_not_asked_while_the_setting_is_off(
    shop: tuple[DirectTransport, Shim, EventLog], provider: ScriptedProvider
) -> None:
    client, shim, log = shop
    off = await client.send("settings.update", {"commandId": "off", "captureFrames": False})
    assert off["settings"]["captureFrames"] is False
    provider.add(*_calls(ToolCall("browser_click", {"ref": "e1"})))
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "click")
    assert shim.asked == [("browser_click", False)]
    [call] = _tool_calls(await client.send("thread.open", {"threadId": thread_id}))
    assert call["frames"] == [] and call["status"] == "succeeded"
    reset = await client.send("settings.update", {"commandId": "on", "captureFrames": None})
    assert reset["settings"]["captureFrames"] is True
    provider.add(*_calls(ToolCall("browser_click", {"ref": "e1"})))
    await run_turn(client, log, thread_id, "click again")
    assert shim.asked[-1] == ("browser_click", True)


async def test_why_a_call_has_no_frame_is_kept_with_it(
    shop: tuple[DirectTransport, Shim, EventLog], provider: ScriptedProvider
) -> None:
    client, shim, log = shop
    shim.capture = lambda tool, args, acted: {"frameSkipped": "private"}
    provider.add(*_calls(ToolCall("browser_click", {"ref": "e1"})))
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "click")
    [call] = _tool_calls(await client.send("thread.open", {"threadId": thread_id}))
    assert call["frames"] == [] and call["frameSkipped"] == "private"
    [event] = [e["item"] for e in log.of("item.completed") if e["item"]["kind"] == "toolCall"]
    assert event["frameSkipped"] == "private"


async def test_bad_frames_are_dropped_and_the_result_is_kept(
    shop: tuple[DirectTransport, Shim, EventLog], provider: ScriptedProvider
) -> None:
    client, shim, log = shop
    bad = [
        captured(data="not base64!!"),
        captured(image=PNG),  # said to be a JPEG
        captured(image=PNG, mime="image/png"),  # a type frames never have
        captured(image=JPEG, mime="image/webp"),  # not the type it says
        captured(image=tiny_jpeg(padding=engine_frames.MAX_FRAME_BYTES)),  # too large
        captured(width=0),
        "not a frame",
    ]
    good = captured(url=f"{SHOP}/good")
    answers = [{"frames": bad}, {"frames": [*bad, good]}, {"frames": "nonsense"}]
    shim.capture = lambda tool, args, acted: answers[acted]
    provider.add(
        *_calls(
            ToolCall("browser_click", {"ref": "e1"}),
            ToolCall("browser_click", {"ref": "e2"}),
            ToolCall("browser_click", {"ref": "e3"}),
        )
    )
    thread_id = await new_thread(client)
    assert (await run_turn(client, log, thread_id, "click"))["status"] == "completed"
    calls = _tool_calls(await client.send("thread.open", {"threadId": thread_id}))
    assert [c["status"] for c in calls] == ["succeeded"] * 3
    assert all("browser_click done" in c["result"]["content"] for c in calls)
    assert [[f["url"] for f in c["frames"]] for c in calls] == [[], [f"{SHOP}/good"], []]
    assert [c.get("frameSkipped") for c in calls] == ["failed", None, "failed"]


async def test_the_frames_stay_within_the_budget_oldest_removed_first(
    shop: tuple[DirectTransport, Shim, EventLog],
    provider: ScriptedProvider,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client, shim, log = shop
    monkeypatch.setattr(engine_frames, "MB", 1000)  # budgets in kB: a test's worth of frames
    image = tiny_jpeg(padding=900)
    size = len(image)
    shim.capture = lambda tool, args, acted: {
        "frames": [captured(image=image, captured_at=f"2026-12-04T10:00:{acted:02d}.000Z")]
    }
    budget = await client.send("settings.update", {"commandId": "b", "frameBudgetMb": 12})
    assert budget["settings"]["frameBudgetMb"] == 12
    thread_id = await new_thread(client)
    await client.send("thread.open", {"threadId": thread_id})  # subscribe: no cache yet
    for round_ in range(3):
        provider.add(*_calls(*[ToolCall("browser_click", {"ref": f"e{n}"}) for n in range(10)]))
        await run_turn(client, log, thread_id, f"round {round_}")
        listed = _tool_calls(await client.send("thread.open", {"threadId": thread_id}))
        kept = [f for call in listed for f in call["frames"]]
        with _database(home) as conn:
            stored = conn.execute("SELECT count(*), sum(size) FROM frame").fetchone()
        assert stored[1] <= 12_000
        assert len(kept) == stored[0] == min(10 * (round_ + 1), 12_000 // size)
        # the newest ones: the last calls' frames
        assert [bool(c["frames"]) for c in listed][-len(kept) :] == [True] * len(kept)
    oldest_kept = kept[0]["id"]
    lowered = await client.send("settings.update", {"commandId": "l", "frameBudgetMb": 10})
    assert lowered["settings"]["frameBudgetMb"] == 10
    listed = _tool_calls(await client.send("thread.open", {"threadId": thread_id}))
    now_kept = [f for call in listed for f in call["frames"]]
    assert len(now_kept) == 10_000 // size and now_kept == kept[-len(now_kept) :]
    with pytest.raises(RemoteError) as gone:
        await client.send("frame.get", {"frameId": oldest_kept})
    assert gone.value.kind == "not_found"
    with _database(home) as conn:
        assert conn.execute("SELECT sum(size) FROM frame").fetchone()[0] <= 10_000


async def test_deleting_a_thread_removes_its_frames(
    shop: tuple[DirectTransport, Shim, EventLog], provider: ScriptedProvider, home: Path
) -> None:
    client, _shim, log = shop
    provider.add(*_calls(ToolCall("browser_click", {"ref": "e1"})))
    kept_thread = await new_thread(client, "keep")
    await run_turn(client, log, kept_thread, "click")
    provider.add(*_calls(ToolCall("browser_click", {"ref": "e1"})))
    gone_thread = await new_thread(client, "gone")
    await run_turn(client, log, gone_thread, "click")
    [gone_call] = _tool_calls(await client.send("thread.open", {"threadId": gone_thread}))
    await client.send("thread.delete", {"commandId": "d", "threadId": gone_thread})
    with pytest.raises(RemoteError) as gone:
        await client.send("frame.get", {"frameId": gone_call["frames"][0]["id"]})
    assert gone.value.kind == "not_found"
    with _database(home) as conn:
        threads = {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM frame")}
    assert threads == {kept_thread}


async def test_settings_round_trip_and_null_resets(client: DirectTransport) -> None:
    settings = (await client.send("settings.get", {}))["settings"]
    assert (settings["captureFrames"], settings["frameBudgetMb"]) == (True, 200)
    changed = await client.send(
        "settings.update", {"commandId": "c", "captureFrames": False, "frameBudgetMb": 500}
    )
    assert (changed["settings"]["captureFrames"], changed["settings"]["frameBudgetMb"]) == (
        False,
        500,
    )
    settings = (await client.send("settings.get", {}))["settings"]
    assert (settings["captureFrames"], settings["frameBudgetMb"]) == (False, 500)
    reset = await client.send(
        "settings.update", {"commandId": "r", "captureFrames": None, "frameBudgetMb": None}
    )
    assert (reset["settings"]["captureFrames"], reset["settings"]["frameBudgetMb"]) == (True, 200)
    with pytest.raises(RemoteError) as small:
        await client.send("settings.update", {"commandId": "s", "frameBudgetMb": 5})
    assert small.value.kind == "invalid_params"
