"""A turn's timeline (issue 30), the worker's side: ``browser.invoke`` with ``capture``
returns a frame of the tab after each action (and one before the Turn's first action on
the tab), with the action drawn as a mark in image pixels, typed text (a password's
masked) and password fields blurred; background and private tabs are skipped with the
reason. Called straight into the worker's tool table, as the host sends it."""

from __future__ import annotations

import time
from typing import Any

from .harness import Browser
from .tool_driver import invoke, open_tab, ref_of
from .tool_pages import serve_tool_pages

MASK = "••••••••"

# the mean step between horizontal neighbours' luminance in a box of an image (image px):
# a blurred field has almost none
SHARPNESS = """async ([dataUrl, box, width, height]) => {
  const bitmap = await createImageBitmap(await (await fetch(dataUrl)).blob());
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext("2d");
  context.drawImage(bitmap, 0, 0, width, height);
  const [x, y, w, h] = [box.x + 3, box.y + 3, box.width - 6, box.height - 6].map(Math.round);
  const { data } = context.getImageData(x, y, w, h);
  let sum = 0;
  let n = 0;
  for (let row = 0; row < h; row++) {
    for (let col = 1; col < w; col++) {
      const i = (row * w + col) * 4;
      const j = i - 4;
      const luma = (k) => data[k] + data[k + 1] + data[k + 2];
      sum += Math.abs(luma(i) - luma(j)) / 3;
      n++;
    }
  }
  return sum / n;
}"""

RAW_CAPTURE = """async (tabId) => {
  const tab = await chrome.tabs.get(tabId);
  return chrome.tabs.captureVisibleTab(tab.windowId, { format: "png" });
}"""


def _sharpness(
    browser: Browser, data_url: str, box: dict[str, Any], frame: dict[str, Any]
) -> float:
    value: float = browser.worker().evaluate(
        SHARPNESS, [data_url, box, frame["width"], frame["height"]]
    )
    return value


def _raw(browser: Browser, tab: int) -> str:
    time.sleep(1.1)  # Chrome's quota: 2 captures a second (the worker spaces only its own)
    url: str = browser.worker().evaluate(RAW_CAPTURE, tab)
    time.sleep(1.1)
    return url


def test_five_actions_give_five_frames_and_a_before_frame_with_marks_and_blurred_passwords(
    browser: Browser,
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/login")
        page.bring_to_front()
        outline = str(invoke(browser, "browser_snapshot", {"tabId": tab})["content"])
        email = ref_of(outline, "textbox", "Email")
        password = ref_of(outline, "textbox(password)", "Password")
        remember = ref_of(outline, "checkbox", "Remember me")
        sign_in = ref_of(outline, "button", "Sign in")
        invoke(browser, "browser_screenshot", {"tabId": tab})  # browser_click_at takes its points

        def act(tool: str, **args: Any) -> dict[str, Any]:
            return invoke(browser, tool, {"tabId": tab, **args}, capture=True, turn_id="turn-1")

        results = [
            act("browser_type", ref=email, text="ada@example.com"),
            act("browser_type", ref=password, text="hunter2-secret"),
            act("browser_click", ref=remember),
            act("browser_hover", ref=sign_in),
            act("browser_click_at", x=180, y=30),
        ]
        for result in results:
            assert result["isError"] is False, result["content"]
            assert "frameSkipped" not in result
        frames = [frame for result in results for frame in result["frames"]]
        assert [f["phase"] for f in frames] == ["before", *["after"] * 5]
        assert [len(r["frames"]) for r in results] == [2, 1, 1, 1, 1]
        for frame in frames:
            assert frame["mime"] == "image/jpeg" and len(frame["data"]) < 700_000
            assert max(frame["width"], frame["height"]) <= 800
            assert frame["url"] == f"{site}/login" and frame["title"] == "Sign in"
            assert frame["viewport"]["width"] == 360 and frame["blurred"] >= 1
            assert frame["capturedAt"].endswith("Z")
        before, *after = frames
        assert "mark" not in before and "typed" not in before
        kinds = [f["mark"]["kind"] for f in after]
        assert kinds == ["box", "box", "box", "box", "point"]
        assert after[0]["typed"] == "ada@example.com"
        assert after[1]["typed"] == MASK  # the password field's text is never in a frame
        assert "typed" not in after[2]
        scale = after[4]["width"] / after[4]["viewport"]["width"]
        assert after[4]["mark"]["x"] == 180 * scale and after[4]["mark"]["y"] == 30 * scale
        # the password field's box: blurred in the frame, sharp in a plain capture
        field = after[1]["mark"]
        assert field["width"] > 40 and field["height"] > 10
        blurred = _sharpness(browser, f"data:image/jpeg;base64,{after[1]['data']}", field, after[1])
        plain = _sharpness(browser, _raw(browser, tab), field, after[1])
        assert blurred < plain / 2, (blurred, plain)
        # the page shows the password's text now ("Show password"): still blurred, as the
        # field the page agent typed a password into
        page.evaluate("document.getElementById('password').type = 'text'")
        shown = act("browser_hover", ref=email)["frames"]
        assert len(shown) == 1 and shown[0]["blurred"] == 1
        blurred = _sharpness(browser, f"data:image/jpeg;base64,{shown[0]['data']}", field, shown[0])
        plain = _sharpness(browser, _raw(browser, tab), field, shown[0])
        assert blurred < plain / 2, (blurred, plain)
        # the page's own style came back after the capture
        assert page.evaluate("document.getElementById('password').style.filter") == ""
        # a new Turn gets its own before frame
        again = invoke(
            browser, "browser_hover", {"tabId": tab, "ref": email}, capture=True, turn_id="turn-2"
        )
        assert [f["phase"] for f in again["frames"]] == ["before", "after"]
        # without capture: no frames
        plain_call = invoke(browser, "browser_hover", {"tabId": tab, "ref": email})
        assert "frames" not in plain_call and "frameSkipped" not in plain_call


def test_background_and_private_tabs_are_skipped_with_the_reason(browser: Browser) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/login")
        outline = str(invoke(browser, "browser_snapshot", {"tabId": tab})["content"])
        email = ref_of(outline, "textbox", "Email")
        front, _other = open_tab(browser, f"{site}/form")
        front.bring_to_front()
        hidden = invoke(
            browser, "browser_hover", {"tabId": tab, "ref": email}, capture=True, turn_id="t"
        )
        assert hidden["isError"] is False
        assert hidden["frameSkipped"] == "background" and "frames" not in hidden
        page.bring_to_front()
        browser.worker().evaluate(
            "(tabId) => chrome.storage.session.set({privateTabs: {[tabId]: true}})", tab
        )
        private = invoke(
            browser, "browser_hover", {"tabId": tab, "ref": email}, capture=True, turn_id="t"
        )
        assert private["frameSkipped"] == "private" and "frames" not in private
        # closing the tab forgets the mark
        page.close()
        time.sleep(0.3)
        marks = browser.worker().evaluate(
            "async () => (await chrome.storage.session.get('privateTabs')).privateTabs"
        )
        assert str(tab) not in marks


def test_capture_time_per_action(browser: Browser) -> None:
    """What capture adds to a 20-action turn (printed): each action waiting 0.5 s for its
    "model" as a turn does, and back to back. Chrome allows 2 captures a second, so actions
    faster than that wait for the quota; a model's time between actions hides it."""
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/form")
        page.bring_to_front()
        outline = str(invoke(browser, "browser_snapshot", {"tabId": tab})["content"])
        name = ref_of(outline, "textbox", "Name")
        save = ref_of(outline, "button", "Save")

        def turn(capture: bool, turn_id: str, think_s: float) -> tuple[float, float]:
            """(the turn's wall time, the time in tool calls)"""
            started = time.monotonic()
            in_calls = 0.0
            for i in range(10):
                for tool, args in (
                    ("browser_type", {"ref": name, "text": f"Ada {i}"}),
                    ("browser_click", {"ref": save}),
                ):
                    time.sleep(think_s)
                    called = time.monotonic()
                    result = invoke(
                        browser, tool, {"tabId": tab, **args}, capture=capture, turn_id=turn_id
                    )
                    in_calls += time.monotonic() - called
                    assert ("frames" in result) is capture, result.get("frameSkipped")
            return time.monotonic() - started, in_calls

        turn(False, "warm-up", 0)
        off, off_calls = turn(False, "off", 0.5)
        on, on_calls = turn(True, "on", 0.5)
        fast_off, _ = turn(False, "fast-off", 0)
        fast_on, _ = turn(True, "fast-on", 0)
        print(
            f"20 actions, 0.5 s for the model before each: {off:.2f} s without capture, "
            f"{on:.2f} s with ({(on / off - 1) * 100:.1f} % more, "
            f"{(on_calls - off_calls) / 20 * 1000:.0f} ms per action); back to back: "
            f"{fast_off:.2f} s without, {fast_on:.2f} s with (Chrome's 2 captures a second)"
        )
        assert on <= off * 1.15
