"""A turn's timeline and its reports (issue 30), in real Chromium with the real host: a turn
of five browser actions on a loopback sign-up form shows six frames (the tab before the
first action, then one after each), each with its action drawn on it (the element's box;
for the click that sends the form, the page it led to by its URL); the password typed
(plain text on the page, by its "Show password") is blurred in every frame; the exported
HTML report opens with the network off and shows every frame; the GIF has one frame per
action; a JSON export imported back reads as the same thread (its password masked, as in
every export). Screenshots of the filmstrip and the frame viewer at 360 px, light and
dark."""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageFilter, ImageStat
from playwright.sync_api import Page, expect
from tests.support.web import serve_html

from .fake_model import FakeAnthropic
from .harness import Browser
from .panel_kit import both_schemes, connected, rpc
from .tool_driver import allow_until_done, by_ref, open_tab, plan_calls

SECRET = "Tr0ub4dor&3-horse"

FORM = """<!doctype html><title>Sign up</title><style>
body { font: 16px sans-serif; margin: 16px; } input, select { font: 22px monospace; width: 300px; }
</style><main><h1>Sign up</h1><form action="/welcome" method="get">
<p><label>Full name <input name="name"></label></p>
<p><label>Email <input name="email" type="email"></label></p>
<p><label>Password <input id="pw" name="pw" type="password" autocomplete="new-password"></label></p>
<p><label><input id="show" type="checkbox" checked> Show password</label></p>
<p><label>Plan <select name="plan"><option>Free</option><option>Team</option></select></label></p>
<p><button>Create account</button></p></form></main>
<script>
const show = document.getElementById("show"), pw = document.getElementById("pw");
const sync = () => { pw.type = show.checked ? "text" : "password"; };
show.addEventListener("change", sync); sync();
</script>"""

WELCOME = "<!doctype html><title>Welcome</title><main><h1>Welcome aboard</h1></main>"


@pytest.fixture
def site() -> Iterator[str]:
    with serve_html(lambda path: WELCOME if path.startswith("/welcome") else FORM) as base:
        yield base


def _turn(browser: Browser, model: FakeAnthropic, site: str) -> Page:
    """The panel first, then the form in the tab the window shows (Chrome captures only
    that one), then the turn: five actions."""
    panel = browser.open_panel()
    connected(panel)
    page, tab = open_tab(browser, f"{site}/signup")
    plan_calls(
        model,
        [
            ("browser_snapshot", {"tabId": tab}),
            ("browser_type", by_ref(tab, "textbox", "Full name", text="Ada Lovelace")),
            ("browser_type", by_ref(tab, "textbox", "Email", text="ada@example.org")),
            ("browser_type", by_ref(tab, "textbox", "Password", text=SECRET)),
            ("browser_select_option", by_ref(tab, "combobox", "Plan", values=["Team"])),
            ("browser_click", by_ref(tab, "button", "Create account")),
        ],
        "Signed up.",
    )
    panel.get_by_role("textbox", name="Message").fill("Sign me up for the Team plan")
    panel.get_by_role("button", name="Send").click()
    allow_until_done(panel, "Signed up.")
    expect(page).to_have_url(
        f"{site}/welcome?name=Ada+Lovelace&email=ada%40example.org&pw=Tr0ub4dor%263-horse&plan=Team"
    )
    return panel


def _opened(panel: Page) -> dict[str, Any]:
    state: dict[str, Any] = panel.evaluate("panelot.store.state")
    thread_id = state["threadId"]
    opened: dict[str, Any] = rpc(panel, "thread.open", {"threadId": thread_id})
    return opened


def _frames(opened: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(tool call, frame info) in the order of the turn."""
    return [
        (item, frame)
        for item in opened["items"]
        if item["kind"] == "toolCall"
        for frame in item.get("frames") or []
    ]


def _image(panel: Page, frame_id: str) -> Image.Image:
    frame = rpc(panel, "frame.get", {"frameId": frame_id})["frame"]
    return Image.open(io.BytesIO(base64.b64decode(frame["data"]))).convert("L")


def _sharpness(image: Image.Image) -> float:
    """How much fine detail (text's edges) an image holds: the mean of its edges."""
    return float(ImageStat.Stat(image.filter(ImageFilter.FIND_EDGES)).mean[0])


def test_a_turn_of_five_actions_shows_six_frames_each_with_its_action(
    browser: Browser, model: FakeAnthropic, site: str, tmp_path: Path
) -> None:
    panel = _turn(browser, model, site)
    opened = _opened(panel)
    frames = _frames(opened)
    phases = [frame["phase"] for _, frame in frames]
    assert phases == ["before"] + ["after"] * 5, phases
    acting = [item["name"] for item, frame in frames if frame["phase"] == "after"]
    assert acting == ["browser_type"] * 3 + ["browser_select_option", "browser_click"]
    for item, frame in frames[1:5]:
        assert frame.get("mark"), (item["name"], frame)  # the element acted on
    # the click that sent the form: its frame is the page it led to, named by its URL
    assert frames[5][1]["url"].startswith(f"{site}/welcome?"), frames[5][1]
    typed = [frame.get("typed") for item, frame in frames[1:] if item["name"] == "browser_type"]
    assert typed[:2] == ["Ada Lovelace", "ada@example.org"], typed
    assert typed[2] and SECRET not in typed[2] and "•" in typed[2], typed

    # the filmstrip: six frames, each opened large with its action drawn on it
    timeline = panel.get_by_role("list", name="Timeline")
    buttons = timeline.get_by_role("button")
    expect(buttons).to_have_count(6)
    both_schemes(panel, "timeline-report-filmstrip")
    buttons.nth(1).click()
    viewer = panel.get_by_role("dialog", name="Frame 2 of 6")
    expect(viewer).to_be_visible()
    drawn = viewer.locator("svg").locator("circle, rect")  # the action, over the image
    expect(drawn).not_to_have_count(0)
    expect(viewer.get_by_role("img")).to_have_js_property("complete", True)
    expect(viewer).to_contain_text(f"{site}/signup")
    both_schemes(panel, "timeline-report-viewer")
    for n in range(3, 7):
        viewer.get_by_role("button", name="Next frame").click()
        viewer = panel.get_by_role("dialog", name=f"Frame {n} of 6")
        expect(viewer).to_be_visible()
        if n < 6:
            expect(viewer.locator("svg").locator("circle, rect")).not_to_have_count(0)
        else:
            expect(viewer).to_contain_text(f"{site}/welcome?")
    viewer.get_by_role("button", name="Close").click()
    expect(viewer).to_have_count(0)
    expect(buttons.nth(5)).to_be_focused()
    # each action was allowed on its card: marked so, live and after the panel reloads
    expect(timeline.get_by_text("Approved", exact=True)).to_have_count(5)
    panel.reload()
    connected(panel)
    panel.get_by_role("button", name="Threads").click()
    panel.get_by_role("button", name=re.compile("Sign me up for the Team plan")).first.click()
    timeline = panel.get_by_role("list", name="Timeline")
    expect(timeline.get_by_role("button")).to_have_count(6)
    expect(timeline.get_by_text("Approved", exact=True)).to_have_count(5)

    # the password: plain text on the page, blurred in every frame
    after_password = next(
        frame for item, frame in frames
        if item["name"] == "browser_type" and frame["phase"] == "after" and frame.get("typed")
        and "•" in frame["typed"]
    )  # fmt: skip
    box = after_password["mark"]
    shot = _image(panel, after_password["id"])
    field = shot.crop((box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]))
    unblurred = browser.context.new_page()
    unblurred.goto(f"{site}/signup")
    unblurred.get_by_role("textbox", name="Password").fill(SECRET)
    clear = unblurred.get_by_role("textbox", name="Password").screenshot()
    unblurred.close()
    plain = Image.open(io.BytesIO(clear)).convert("L").resize(field.size)
    assert _sharpness(field) < 0.4 * _sharpness(plain), (_sharpness(field), _sharpness(plain))

    # the HTML report: self-contained, every frame shown with the network off
    report = rpc(panel, "thread.export", {"threadId": opened["thread"]["id"], "format": "html"})
    path = tmp_path / report["fileName"]
    path.write_text(report["text"], "utf-8")
    assert SECRET not in report["text"]
    requested: list[str] = []
    viewer_page = browser.context.new_page()
    viewer_page.on("request", lambda r: requested.append(r.url))
    browser.context.set_offline(True)
    try:
        viewer_page.goto(path.as_uri())
        shown = viewer_page.evaluate(
            "() => [...document.images].filter((i) => i.complete && i.naturalWidth > 0).length"
        )
    finally:
        browser.context.set_offline(False)
        viewer_page.close()
    assert shown == 6
    assert all(url.startswith(("file:", "data:")) for url in requested), requested

    # the GIF: one frame per action
    gif = rpc(panel, "thread.export", {"threadId": opened["thread"]["id"], "format": "gif"})
    animation = Image.open(io.BytesIO(base64.b64decode(gif["data"])))
    assert animation.format == "GIF" and animation.n_frames == 5

    # the JSON export, imported back, reads as the same thread
    exported = rpc(panel, "thread.export", {"threadId": opened["thread"]["id"], "format": "json"})
    document = __import__("json").loads(exported["text"])
    copy = rpc(panel, "thread.import", {"commandId": "import-1", "document": document})["thread"]
    again = rpc(panel, "thread.open", {"threadId": copy["id"]})

    def shape(snapshot: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [
            (i["kind"], i.get("text"), i.get("name"), str(i.get("args")), i.get("status"))
            for i in snapshot["items"]
        ]

    # the same thread, but for the password: no export holds a secret
    original = [tuple(str(v).replace(SECRET, "••••••••") for v in row) for row in shape(opened)]
    assert [tuple(str(v) for v in row) for row in shape(again)] == original
    assert SECRET not in exported["text"]
    assert again["thread"]["title"] == opened["thread"]["title"]
