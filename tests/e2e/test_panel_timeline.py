"""A turn's timeline in the panel (issue 30): the filmstrip "Timeline" under a turn's steps
(frames captured by the real worker on a loopback page), the frame viewer "Frame N of M"
with the action drawn on it, the marks of approved and denied calls and the note of a call
not captured, "Export turn" / "Export thread" with their formats, "Keep this tab out of
timelines", and the timeline's settings. The host's frame.get and thread.export are built
apart (issue 30's host side): the panel's requests for them are answered here, from the
frames the worker captured."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from playwright.sync_api import Page, expect

from .harness import Browser
from .panel_kit import both_schemes, connected
from .tool_driver import invoke, open_tab, ref_of
from .tool_pages import serve_tool_pages

THREAD = "thr_timeline_demo"
TURN = "turn_timeline_demo"

# the panel's requests for the ops built apart, answered from `window.frameStore`
ANSWER_OPS = """(frames) => {
  window.frameStore = frames;
  window.exportsAsked = [];
  const original = panelot.client.request.bind(panelot.client);
  panelot.client.request = async (method, params, timeout) => {
    if (method === "frame.get") {
      const frame = window.frameStore[params.frameId];
      if (!frame) throw new Error("not_found");
      return { frame };
    }
    if (method === "thread.export") {
      window.exportsAsked.push(params);
      if (params.format === "gif") {
        return { fileName: "timeline.gif", mime: "image/gif", data: "R0lGODlhAQABAAAAACw=" };
      }
      return { fileName: `thread.${params.format}`, mime: "text/plain", text: "exported" };
    }
    return original(method, params, timeout);
  };
}"""


def _captured_turn(browser: Browser, site: str) -> tuple[int, list[dict[str, Any]]]:
    """Five actions on the sign-in page with capture: (the tab, each call's result)."""
    page, tab = open_tab(browser, f"{site}/login")
    page.bring_to_front()
    outline = str(invoke(browser, "browser_snapshot", {"tabId": tab})["content"])
    invoke(browser, "browser_screenshot", {"tabId": tab})  # browser_click_at takes its points
    refs = {
        "email": ref_of(outline, "textbox", "Email"),
        "password": ref_of(outline, "textbox(password)", "Password"),
        "remember": ref_of(outline, "checkbox", "Remember me"),
        "sign_in": ref_of(outline, "button", "Sign in"),
    }
    calls = [
        ("browser_type", {"ref": refs["email"], "text": "ada@example.com"}),
        ("browser_type", {"ref": refs["password"], "text": "hunter2-secret"}),
        ("browser_click", {"ref": refs["remember"]}),
        ("browser_hover", {"ref": refs["sign_in"]}),
        ("browser_click_at", {"x": 120, "y": 40}),
    ]
    results = []
    for tool, args in calls:
        result = invoke(browser, tool, {"tabId": tab, **args}, capture=True, turn_id=TURN)
        assert result["frames"], result
        results.append({"tool": tool, "args": {"tabId": tab, **args}, "result": result})
    return tab, results


def _snapshot(site: str, tab: int, calls: list[dict[str, Any]]) -> tuple[dict[str, Any], dict]:
    """A thread with one finished turn of the captured calls, a denied one and one not
    captured; and the frames as frame.get returns them, by id."""
    at = "2026-12-04T15:00:00.000Z"
    elements = [
        'textbox "Email"',
        'textbox "Password"',
        'checkbox "Remember me"',
        'button "Sign in"',
    ]
    items: list[dict[str, Any]] = [
        {"kind": "user", "id": "itm_u", "turnId": TURN, "createdAt": at, "text": "Sign me in"}
    ]
    store: dict[str, dict[str, Any]] = {}
    n = 0
    for index, call in enumerate(calls):
        infos = []
        for frame in call["result"]["frames"]:
            n += 1
            frame_id = f"frm_{n}"
            info = {
                "id": frame_id,
                "phase": frame["phase"],
                "width": frame["width"],
                "height": frame["height"],
                "url": frame["url"],
                "capturedAt": frame["capturedAt"],
                **{k: frame[k] for k in ("mark", "typed") if k in frame},
            }
            infos.append(info)
            store[frame_id] = {
                **info,
                "threadId": THREAD,
                "turnId": TURN,
                "itemId": f"itm_{index}",
                "mime": frame["mime"],
                "data": frame["data"],
            }
        target = {"origin": site, "tabId": tab, "url": f"{site}/login", "title": "Sign in"}
        if index < len(elements):
            target["element"] = elements[index]
        items.append(
            {
                "kind": "toolCall",
                "id": f"itm_{index}",
                "turnId": TURN,
                "createdAt": at,
                "callId": f"toolu_{index}",
                "name": call["tool"],
                "args": call["args"],
                "status": "succeeded",
                "result": {"content": call["result"]["content"], "isError": False},
                "target": target,
                "frames": infos,
            }
        )
    denied = {"origin": site, "tabId": tab, "url": f"{site}/login", "element": 'button "Sign in"'}
    items.append(
        {
            "kind": "toolCall",
            "id": "itm_denied",
            "turnId": TURN,
            "createdAt": at,
            "callId": "toolu_denied",
            "name": "browser_click",
            "args": {"tabId": tab, "ref": "e11"},
            "status": "denied",
            "result": {"content": "The user denied this action.", "isError": True},
            "target": denied,
        }
    )
    items.append(
        {
            "kind": "toolCall",
            "id": "itm_hidden",
            "turnId": TURN,
            "createdAt": at,
            "callId": "toolu_hidden",
            "name": "browser_scroll",
            "args": {"tabId": tab, "direction": "down"},
            "status": "succeeded",
            "result": {"content": "Scrolled.", "isError": False},
            "target": {"origin": site, "tabId": tab, "url": f"{site}/form", "title": "Form"},
            "frameSkipped": "background",
        }
    )
    items.append(
        {
            "kind": "assistant",
            "id": "itm_a",
            "turnId": TURN,
            "createdAt": at,
            "text": "I filled in the form but did not sign in: you said no.",
        }
    )
    snapshot = {
        "thread": {"id": THREAD, "title": "Sign in to the shop", "createdAt": at, "updatedAt": at},
        "lastSeq": 40,
        "items": items,
        "turn": {"id": TURN, "status": "completed", "costUsd": 0.01},
        "run": None,
        "pendingApprovals": [],
        "pendingInteractions": [],
        "queue": [],
        "pendingSteering": [],
    }
    return snapshot, store


def _show(panel: Page, snapshot: dict[str, Any], store: dict) -> None:
    panel.evaluate(ANSWER_OPS, store)
    panel.evaluate(
        """(snapshot) => {
          panelot.store.state.decisions = new Map([["itm_2", "allow"]]);
          panelot.store.state.threadId = snapshot.thread.id;
          panelot.store.load(snapshot);
        }""",
        snapshot,
    )


def test_the_filmstrip_the_viewer_and_the_exports(browser: Browser) -> None:
    with serve_tool_pages() as site:
        tab, calls = _captured_turn(browser, site)
        snapshot, store = _snapshot(site, tab, calls)
        panel = browser.open_panel()
        connected(panel)
        _show(panel, snapshot, store)
        strip = panel.get_by_role("list", name="Timeline")
        frames = strip.get_by_role("button", name="Frame ")
        expect(frames).to_have_count(6)  # 5 actions and the first "before"
        names = [frames.nth(i).get_attribute("aria-label") or "" for i in range(6)]
        assert names[0].startswith("Frame 1: Before typing") and "Email" in names[0]
        assert names[1].startswith("Frame 2: Typed") and "Email" in names[1]
        assert names[3].startswith("Frame 4: Clicked") and "Remember me" in names[3]
        # the approved call is marked in words; the denied and the hidden calls say so
        expect(strip.get_by_role("listitem").nth(3)).to_contain_text("Approved")
        expect(strip).to_contain_text("Denied: ")
        expect(strip).to_contain_text("Not captured: the tab was in the background")
        # thumbnails load as object URLs
        expect(frames.first.locator("img")).to_have_attribute("src", re.compile(r"^blob:"))
        expect(panel.locator("img[src^='blob:']").first).to_be_visible()
        # the password's frame, large: its box drawn, its text masked, its address
        frames.nth(2).click()
        viewer = panel.get_by_role("dialog", name="Frame 3 of 6")
        expect(viewer).to_be_visible()
        expect(viewer).to_contain_text("Typed: ••••••••")
        expect(viewer).to_contain_text(f"{site}/login")
        assert "hunter2" not in (viewer.text_content() or "")
        expect(viewer.locator("svg rect")).to_have_count(2)
        expect(viewer.locator("img")).to_have_attribute("src", re.compile(r"^blob:"))
        both_schemes(panel, "timeline-viewer")
        viewer.get_by_role("button", name="Next frame").click()
        expect(panel.get_by_role("dialog", name="Frame 4 of 6")).to_contain_text("Approved")
        panel.keyboard.press("Escape")
        expect(panel.get_by_role("dialog")).to_have_count(0)
        expect(frames.nth(3)).to_be_focused()  # the frame shown last
        frames.nth(5).click()
        last = panel.get_by_role("dialog", name="Frame 6 of 6")
        expect(last.locator("svg circle")).to_have_count(2)  # the point clicked
        expect(last.get_by_role("button", name="Next frame")).to_be_disabled()
        last.get_by_role("button", name="Close").click()
        expect(frames.nth(5)).to_be_focused()
        # the call not captured says so on its card too
        expect(
            panel.get_by_text("Not captured: the tab was in the background").first
        ).to_be_attached()
        strip.evaluate("(list) => { list.scrollLeft = 0; }")
        both_schemes(panel, "timeline-filmstrip")
        # "Export turn": a report of this turn, saved as a file
        panel.get_by_role("button", name="Export turn").click()
        with panel.expect_download() as report:
            panel.get_by_role("group", name="Export this turn as").get_by_role(
                "button", name="Report (HTML)"
            ).click()
        assert report.value.suggested_filename == "thread.html"
        # "Export thread": the animation, from base64
        panel.get_by_role("button", name="Export thread").click()
        choices = panel.get_by_role("group", name="Export this thread as")
        for name in ("Report (HTML)", "Animation (GIF)", "Data (JSON)", "Transcript (Markdown)"):
            expect(choices.get_by_role("button", name=name)).to_be_visible()
        both_schemes(panel, "timeline-export-menu")
        with panel.expect_download() as gif:
            choices.get_by_role("button", name="Animation (GIF)").click()
        saved = gif.value.path().read_bytes()
        assert saved == base64.b64decode("R0lGODlhAQABAAAAACw=")
        asked = panel.evaluate("window.exportsAsked")
        assert asked == [
            {"threadId": THREAD, "turnId": TURN, "format": "html"},
            {"threadId": THREAD, "format": "gif"},
        ], json.dumps(asked)


def test_keep_a_tab_out_of_timelines_and_the_settings(browser: Browser) -> None:
    with serve_tool_pages() as site:
        _page, tab = open_tab(browser, f"{site}/login")
        panel = browser.open_panel()
        connected(panel)
        keep_out = panel.get_by_role("button", name="Keep this tab out of timelines")
        expect(keep_out).to_have_attribute("aria-pressed", "false")
        keep_out.click()
        expect(keep_out).to_have_attribute("aria-pressed", "true")
        marks = browser.worker().evaluate(
            "async () => (await chrome.storage.session.get('privateTabs')).privateTabs"
        )
        assert marks == {str(tab): True}  # the tab beside the panel, not the panel's own
        keep_out.click()
        expect(keep_out).to_have_attribute("aria-pressed", "false")
        # the timeline's settings, with the others
        panel.get_by_role("button", name="Settings").click()
        panel.get_by_text("Advanced", exact=True).click()
        capture = panel.get_by_role("checkbox", name="Capture a timeline of browser actions")
        expect(capture).to_be_checked()
        budget = panel.get_by_role("spinbutton", name="Timeline storage (MB)")
        expect(budget).to_have_value("200")
        budget.scroll_into_view_if_needed()
        both_schemes(panel, "timeline-settings")
