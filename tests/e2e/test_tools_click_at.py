"""Issue 24, item 2: `browser_click_at` clicks a point of the tab's latest screenshot, in
that image's pixels, with trusted input (L2: the Gatekeeper asks). The point is placed on
the page again (the screenshot's scale, and a scroll since), it reports what was there, and
it refuses a point inside a frame of another origin than the one approved, a point outside
the image, and a click with no screenshot or a screenshot of another page."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect
from tests.support.web import serve_html

from .fake_model import FakeAnthropic
from .harness import Browser
from .tool_driver import invoke, open_tab, run_tools

# A canvas that reports where it was clicked (in its own pixels) and whether the click was
# real input; below it, a frame of another origin with a button of its own.
PAGE = """<!doctype html><title>Canvas</title>
<style>body { margin: 0; height: 3000px } canvas { position: absolute; left: 20px; top: 60px }
iframe { position: absolute; left: 20px; top: 300px; width: 200px; height: 100px; border: 0 }
</style>
<p id="said">-</p>
<canvas id="c" width="300" height="200"></canvas>
<iframe src="FRAME/frame"></iframe>
<button id="far" style="position: absolute; left: 40px; top: 1500px; width: 120px; height: 40px"
  onclick="document.getElementById('said').textContent = 'far ' + Math.round(scrollY)"
  >Far below</button>
<script>
  const c = document.getElementById("c");
  const g = c.getContext("2d");
  g.fillStyle = "#c00"; g.fillRect(90, 40, 20, 20);
  c.addEventListener("click", (e) => {
    document.getElementById("said").textContent =
      `canvas ${e.offsetX},${e.offsetY} ${e.isTrusted ? "trusted" : "scripted"}`;
  });
</script>"""
FRAME = """<!doctype html><title>Frame</title><style>body { margin: 0 }
button { width: 200px; height: 100px }</style>
<button onclick="document.title = 'frame clicked'">Pay</button>"""


def _site(other: str) -> Callable[[str], str]:
    return lambda path: FRAME if path.startswith("/frame") else PAGE.replace("FRAME", other)


def _said(page: Page) -> str:
    return str(page.locator("#said").text_content())


def test_click_at_a_point_of_the_screenshot(
    launch_profile: Callable[..., Browser], model: FakeAnthropic
) -> None:
    # 5 device pixels per CSS pixel: the screenshot is scaled down, its pixels are not CSS's
    browser = launch_profile(extra_args=["--force-device-scale-factor=5"])
    with serve_html(lambda path: FRAME) as framer:
        other = framer.replace("127.0.0.1", "localhost")
        with serve_html(_site(other)) as site:
            page, tab = open_tab(browser, f"{site}/")
            expect(page.frame_locator("iframe").get_by_role("button", name="Pay")).to_be_visible()
            width = page.evaluate("innerWidth")

            # in a turn: the screenshot, then the click at the red square's centre; the
            # click is trusted input, so the Gatekeeper asks for it
            def at_square(results: list[str]) -> dict[str, Any]:
                scale = _image_width(results) / width
                return {"tabId": tab, "x": (20 + 100) * scale, "y": (60 + 50) * scale}

            results, asked = run_tools(
                browser,
                model,
                [
                    ("browser_tab_select", {"tabId": tab, "focus": True}),
                    ("browser_screenshot", {"tabId": tab}),
                    ("browser_click_at", at_square),
                ],
            )
            assert asked == 2, results  # selecting the tab, and the trusted click
            assert "browser_click_at takes points of this image" in results[1]
            expect(page.locator("#said")).to_have_text("canvas 100,50 trusted")
            assert "on <canvas>" in results[2] and "with trusted input" in results[2], results[2]

            shot = invoke(browser, "browser_screenshot", {"tabId": tab})
            scale = shot["details"]["width"] / width

            def click_at(x: float, y: float) -> dict[str, Any]:
                return invoke(browser, "browser_click_at", {"tabId": tab, "x": x, "y": y})

            # the page scrolled since the screenshot: the point is where the image showed it
            page.evaluate("scrollTo(0, 40)")
            page.evaluate("document.getElementById('said').textContent = '-'")
            clicked = click_at((20 + 30) * scale, (60 + 20) * scale)
            assert clicked["isError"] is False, clicked
            expect(page.locator("#said")).to_have_text("canvas 30,20 trusted")

            # a frame of another origin at the point: not the approved page, nothing sent
            page.evaluate("scrollTo(0, 0)")
            shot = invoke(browser, "browser_screenshot", {"tabId": tab})
            framed = click_at((20 + 100) * scale, (300 + 50) * scale)
            assert framed["isError"] is True, framed
            assert f"a frame of {other}" in framed["content"], framed["content"]
            assert page.frames[1].title() == "Frame"

            # a point of the whole page, far below the viewport: scrolled into view first
            whole = invoke(browser, "browser_screenshot", {"tabId": tab, "fullPage": True})
            whole_scale = whole["details"]["width"] / width
            far = invoke(
                browser,
                "browser_click_at",
                {"tabId": tab, "x": 100 * whole_scale, "y": 1520 * whole_scale},
            )
            assert far["isError"] is False and 'on <button> "Far below"' in far["content"], far
            expect(page.locator("#said")).to_have_text(re.compile(r"^far \d+$"))
            assert int(_said(page).split()[1]) > 700  # the page was scrolled to the button

            # outside the image
            outside = click_at(shot["details"]["width"] + 5, 10)
            assert outside["isError"] is True and "outside the latest screenshot" in str(outside)

            # the tab moved to another page: its screenshot no longer says where things are
            page.goto(f"{site}/elsewhere")
            moved = click_at(10, 10)
            assert moved["isError"] is True and "take a new screenshot" in str(moved), moved


def test_click_at_needs_a_screenshot(browser: Browser) -> None:
    with serve_html(lambda path: "<!doctype html><title>Plain</title><p>text</p>") as site:
        _page, tab = open_tab(browser, f"{site}/")
        answer = invoke(browser, "browser_click_at", {"tabId": tab, "x": 5, "y": 5})
        assert answer["isError"] is True
        assert "there is no screenshot of tab" in str(answer), answer


def _image_width(results: list[str]) -> float:
    """The width of the screenshot the model saw, from its result's text."""
    found = re.search(r"\((\d+)x(\d+) px\)", results[-1])
    assert found, results[-1]
    return float(found.group(1))
