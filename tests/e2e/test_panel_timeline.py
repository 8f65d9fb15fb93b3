"""A turn's timeline in the panel (issue 30), through the real host: the filmstrip
"Timeline" under a turn's steps (frames the worker captured of a loopback page), the frame
viewer "Frame N of M" with the action drawn on it, the marks of approved and denied calls
and the note of a call not captured (a background tab), "Export turn" / "Export thread"
with their formats (the host's HTML report and GIF, saved as files), "Keep this tab out
of timelines", and the timeline's settings."""

from __future__ import annotations

import io
import re

from PIL import Image
from playwright.sync_api import Page, expect

from .fake_model import FakeAnthropic
from .harness import Browser
from .panel_kit import both_schemes, connected, rpc
from .tool_driver import allow_until_done, by_ref, open_tab, plan_calls
from .tool_pages import serve_tool_pages

SECRET = "hunter2-secret"
FINAL = "I filled in the form; pressing Enter was refused."


def _turn(browser: Browser, model: FakeAnthropic, site: str) -> Page:
    """A real turn through the host: five captured actions on the sign-in page (typing the
    email and the password, a click, a hover a policy rule allows unasked, a click at a
    point), a key press a policy rule denies, and a page opened in a background tab (not
    captured)."""
    panel = browser.open_panel()
    connected(panel)
    rpc(
        panel,
        "settings.update",
        {
            "commandId": "deny-keys",
            "policyRules": [
                {"tool": "browser_press_key", "decision": "deny"},
                {"tool": "browser_hover", "decision": "allow"},
            ],
        },
    )
    page, tab = open_tab(browser, f"{site}/login")
    page.bring_to_front()
    plan_calls(
        model,
        [
            ("browser_snapshot", {"tabId": tab}),
            ("browser_type", by_ref(tab, "textbox", "Email", text="ada@example.com")),
            ("browser_type", by_ref(tab, "textbox(password)", "Password", text=SECRET)),
            ("browser_click", by_ref(tab, "checkbox", "Remember me")),
            ("browser_hover", by_ref(tab, "button", "Sign in")),
            ("browser_screenshot", {"tabId": tab}),
            ("browser_click_at", {"tabId": tab, "x": 120, "y": 40}),
            ("browser_press_key", {"tabId": tab, "key": "Enter"}),
            ("browser_tab_new", {"url": f"{site}/form"}),
        ],
        FINAL,
    )
    panel.get_by_role("textbox", name="Message").fill("Fill in the sign-in form")
    panel.get_by_role("button", name="Send").click()
    allow_until_done(panel, FINAL)
    return panel


def test_the_filmstrip_the_viewer_and_the_exports(browser: Browser, model: FakeAnthropic) -> None:
    with serve_tool_pages() as site:
        panel = _turn(browser, model, site)
        strip = panel.get_by_role("list", name="Timeline")
        frames = strip.get_by_role("button", name="Frame ")
        expect(frames).to_have_count(6)  # 5 actions and the first "before"
        names = [frames.nth(i).get_attribute("aria-label") or "" for i in range(6)]
        assert names[0].startswith("Frame 1: Before typing") and "Email" in names[0], names
        assert names[1].startswith("Frame 2: Typed") and "Email" in names[1], names
        assert names[3].startswith("Frame 4: Clicked") and "Remember me" in names[3], names
        # each call the user allowed is marked in words; the denied and the hidden say so
        # (four frames and the background tab's gap; the hover ran on the rule, unasked)
        expect(strip.get_by_text("Approved", exact=True)).to_have_count(5)
        expect(strip.get_by_text("Allowed by a policy rule", exact=True)).to_have_count(1)
        expect(strip).to_contain_text("Denied: ")
        expect(strip).to_contain_text("Not captured: the tab was in the background")
        # thumbnails load as object URLs of the host's frames
        expect(frames.first.locator("img")).to_have_attribute("src", re.compile(r"^blob:"))
        # the password's frame, large: its box drawn, its text masked, its address
        frames.nth(2).click()
        viewer = panel.get_by_role("dialog", name="Frame 3 of 6")
        expect(viewer).to_be_visible()
        expect(viewer).to_contain_text("Typed: ••••••••")
        expect(viewer).to_contain_text(f"{site}/login")
        assert SECRET not in (viewer.text_content() or "")
        expect(viewer.locator("svg rect")).not_to_have_count(0)
        expect(viewer.locator("img")).to_have_attribute("src", re.compile(r"^blob:"))
        both_schemes(panel, "timeline-viewer")
        viewer.get_by_role("button", name="Next frame").click()
        expect(panel.get_by_role("dialog", name="Frame 4 of 6")).to_contain_text("Approved")
        panel.keyboard.press("Escape")
        expect(panel.get_by_role("dialog")).to_have_count(0)
        expect(frames.nth(3)).to_be_focused()  # the frame shown last
        frames.nth(5).click()
        last = panel.get_by_role("dialog", name="Frame 6 of 6")
        expect(last.locator("svg circle")).not_to_have_count(0)  # the point clicked
        expect(last.get_by_role("button", name="Next frame")).to_be_disabled()
        last.get_by_role("button", name="Close").click()
        expect(frames.nth(5)).to_be_focused()
        # the call not captured says so on its card too
        expect(
            panel.get_by_text("Not captured: the tab was in the background").first
        ).to_be_attached()
        strip.evaluate("(list) => { list.scrollLeft = 0; }")
        both_schemes(panel, "timeline-filmstrip")
        # "Export turn": the host's report of this turn, saved as a file
        panel.get_by_role("button", name="Export turn").click()
        with panel.expect_download() as report:
            panel.get_by_role("group", name="Export this turn as").get_by_role(
                "button", name="Report (HTML)"
            ).click()
        assert report.value.suggested_filename.endswith(".html")
        html = report.value.path().read_text("utf-8")
        assert html.count("<img") == 6 and SECRET not in html
        # "Export thread": the animation, one frame per action
        panel.get_by_role("button", name="Export thread").click()
        choices = panel.get_by_role("group", name="Export this thread as")
        for name in ("Report (HTML)", "Animation (GIF)", "Data (JSON)", "Transcript (Markdown)"):
            expect(choices.get_by_role("button", name=name)).to_be_visible()
        both_schemes(panel, "timeline-export-menu")
        with panel.expect_download() as gif:
            choices.get_by_role("button", name="Animation (GIF)").click()
        animation = Image.open(io.BytesIO(gif.value.path().read_bytes()))
        assert animation.format == "GIF" and animation.n_frames == 5


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
