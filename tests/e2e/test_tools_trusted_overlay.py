"""Issue 25 (High): a trusted (L2) click or typing lands only on the element that was
approved. The attack: right after the page agent's hit test, the page's own `scroll`
handler moves a cross-origin iframe over the approved button, so that the debugger's click
would land in another origin's page, with the user's cookies. The input is re-checked
through the debugger right before each event and refused: the frame's server is never
clicked. Trusted clicking and typing on a page that does not move still work."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import expect
from tests.support.web import serve_html

from .harness import Browser
from .tool_driver import invoke, open_tab, ref_of

# The frame's page: one button covering it, which reports a click to its own server.
FRAME = (
    "<!doctype html><title>Frame</title><body style='margin:0'>"
    "<button style='width:100vw;height:100vh' onclick=\"fetch('/clicked')\">Other</button>"
)

# The approved page: a "Buy" button below the fold, a hidden cross-origin frame that the
# page moves over the button when the agent scrolls it into view, and a field.
PAGE = """<!doctype html><title>Shop</title>
<body style="margin:0">
<div style="height:1500px"></div>
<button id="buy" style="width:200px;height:60px" onclick="document.title='bought'">Buy</button>
<label>Note <input id="note"></label>
<div style="height:1500px"></div>
<iframe id="trap" src="FRAME_URL"
  style="position:fixed;left:-999px;top:0;width:300px;height:120px;border:0"></iframe>
<script>
  const aim = new URLSearchParams(location.search).get("attack");
  if (aim) {
    addEventListener("scroll", () => {
      const box = document.getElementById(aim).getBoundingClientRect();
      const trap = document.getElementById("trap");
      trap.style.left = (box.left - 50) + "px";
      trap.style.top = (box.top - 30) + "px";
    });
  }
</script>"""


@contextmanager
def two_sites() -> Iterator[tuple[str, str, list[str]]]:
    """The shop (``127.0.0.1``) and the framed site (``localhost``), whose server records
    every path asked: ``/clicked`` when its button was clicked."""
    asked: list[str] = []
    with serve_html(lambda path: FRAME, asked) as frame_site:
        frame_origin = frame_site.replace("127.0.0.1", "localhost")
        page = PAGE.replace("FRAME_URL", f"{frame_origin}/frame")
        with serve_html(lambda path: page) as shop:
            yield shop, frame_origin, asked


def _trusted(browser: Browser, tab: int, url: str, tool: str, **args: Any) -> dict[str, Any]:
    outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
    role, name = ("button", "Buy") if tool == "browser_click" else ("textbox", "Note")
    decided = {"tabId": tab, "url": url, "origin": url.rsplit("/", 1)[0], "title": "Shop"}
    call = {"tabId": tab, "ref": ref_of(outline, role, name), "trusted": True, **args}
    return invoke(browser, tool, call, decided)


def test_a_frame_moved_over_the_approved_point_gets_no_trusted_input(browser: Browser) -> None:
    with two_sites() as (shop, _frame, clicks):
        url = f"{shop}/shop?attack=buy"
        page, tab = open_tab(browser, url)
        clicked = _trusted(browser, tab, url, "browser_click")
        assert clicked["isError"], clicked
        assert "<iframe> (a frame: another page) is at that point now" in clicked["content"]
        assert "the input was not sent" in clicked["content"]
        url = f"{shop}/shop?attack=note"
        page.goto(url)
        typed = _trusted(browser, tab, url, "browser_type", text="card 4242")
        assert typed["isError"], typed
        assert "<iframe> (a frame: another page) is at that point now" in typed["content"]
        page.wait_for_timeout(500)  # a click that landed would report itself by now
        assert "/clicked" not in clicks  # the other origin's page was never clicked
        expect(page).to_have_title("Shop")  # nor was Buy: the input was refused, not moved
        assert page.locator("#note").input_value() == ""


def test_trusted_click_and_typing_still_land_on_a_page_that_holds_still(
    browser: Browser,
) -> None:
    with two_sites() as (shop, _frame, clicks):
        url = f"{shop}/shop"
        page, tab = open_tab(browser, url)
        typed = _trusted(browser, tab, url, "browser_type", text="leave at the door")
        assert not typed["isError"], typed
        assert page.locator("#note").input_value() == "leave at the door"
        clicked = _trusted(browser, tab, url, "browser_click")
        assert not clicked["isError"], clicked
        expect(page).to_have_title("bought")
        assert "/clicked" not in clicks
