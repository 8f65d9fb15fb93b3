"""Issue 24, item 2: the pointer tools a person's hand has. `browser_hover` fires what a
page listens to (and with `trusted`, CSS `:hover`); `browser_double_click` and a right or
middle `button` on `browser_click`; `browser_drag` from a ref to a ref or to a point, for
pages that follow the mouse (as jQuery UI does) and for HTML drag and drop. MiniWoB++'s
drag-items (a jQuery UI sortable list) is solved with plain actions."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from tests.support.web import serve_html

from .harness import Browser
from .miniwob_kit import reward, serve_miniwob
from .test_miniwob_refs import Tools, episode, solve
from .tool_driver import open_tab, ref_of

PAGE = """<!doctype html><title>Pointer</title>
<style>
  #menu ul { display: none } #menu:hover ul { display: block }
  .box { width: 90px; height: 40px; border: 1px solid #888; margin: 6px; }
</style>
<button id="tip">Help</button><p id="said">-</p>
<div id="menu" role="button" tabindex="0">Files<ul><li><a href="#open">Open file</a></li></ul></div>
<button id="twice">Twice</button> <button id="ctx">Menu here</button>
<div class="box" id="slider-knob" style="cursor: grab">Knob</div><p id="moved">0</p>
<div class="box" id="card" draggable="true">Card</div>
<div class="box" id="bin" role="region" aria-label="Bin">Bin</div><p id="dropped">-</p>
<script>
  const said = (t) => { document.getElementById("said").textContent = t; };
  document.getElementById("tip").addEventListener("mouseenter", () => said("tip shown"));
  document.getElementById("twice").addEventListener("dblclick", () => said("double"));
  document.getElementById("ctx").addEventListener("contextmenu", (e) => {
    e.preventDefault(); said("context menu");
  });
  // a knob that follows the mouse, listening on the document as jQuery UI does
  const knob = document.getElementById("slider-knob");
  let start = null;
  knob.addEventListener("mousedown", (e) => { start = e.clientX; });
  document.addEventListener("mousemove", (e) => {
    const moved = document.getElementById("moved");
    if (start !== null) moved.textContent = Math.round(e.clientX - start);
  });
  document.addEventListener("mouseup", () => { start = null; });
  // HTML drag and drop
  document.getElementById("card").addEventListener("dragstart", (e) => {
    e.dataTransfer.setData("text/plain", "card-1");
  });
  const bin = document.getElementById("bin");
  bin.addEventListener("dragover", (e) => e.preventDefault());
  bin.addEventListener("drop", (e) => {
    e.preventDefault();
    document.getElementById("dropped").textContent = e.dataTransfer.getData("text/plain");
  });
</script>"""


def test_hover_double_and_right_click(browser: Browser) -> None:
    with serve_html(lambda path: PAGE) as site:
        url = f"{site}/pointer"
        page, tab = open_tab(browser, url)
        tools = Tools(browser, tab, url)
        outline = tools("browser_snapshot")
        hovered = tools("browser_hover", ref=ref_of(outline, "button", "Help"))
        assert "moved the pointer over" in hovered.lower(), hovered
        expect(page.locator("#said")).to_have_text("tip shown")
        tools("browser_double_click", ref=ref_of(outline, "button", "Twice"))
        expect(page.locator("#said")).to_have_text("double")
        right = tools("browser_click", ref=ref_of(outline, "button", "Menu here"), button="right")
        assert "right-clicked" in right.lower(), right
        expect(page.locator("#said")).to_have_text("context menu")
        # a menu made with CSS :hover: a plain hover cannot open it, and says nothing changed;
        # the trusted one (real pointer input) does
        files = ref_of(outline, "button", "Files")
        plain = tools("browser_hover", ref=files)
        assert "nothing changed on the page" in plain, plain
        tools("browser_hover", ref=files, trusted=True)
        expect(page.get_by_role("link", name="Open file")).to_be_visible()


def test_drag_to_a_point_and_onto_a_drop_target(browser: Browser) -> None:
    with serve_html(lambda path: PAGE) as site:
        url = f"{site}/pointer"
        page, tab = open_tab(browser, url)
        tools = Tools(browser, tab, url)
        outline = tools("browser_snapshot")
        knob = re.search(r'- \S+ "Knob" \[(e\d+)', outline)
        assert knob, outline  # a grab cursor makes it a ref
        box = page.locator("#slider-knob").bounding_box()
        assert box is not None
        dragged = tools(
            "browser_drag",
            ref=knob.group(1),
            toX=box["x"] + box["width"] / 2 + 120,
            toY=box["y"] + box["height"] / 2,
        )
        assert "dragged" in dragged.lower(), dragged
        expect(page.locator("#moved")).to_have_text("120")
        card = re.search(r'- \S+ "Card" \[(e\d+)', outline)
        assert card, outline  # draggable="true" makes it a ref
        tools("browser_drag", ref=card.group(1), toRef=ref_of(outline, "region", "Bin"))
        expect(page.locator("#dropped")).to_have_text("card-1")


def test_miniwob_drag_items_with_plain_actions(browser: Browser) -> None:
    with serve_miniwob() as base:
        for seed in (1, 2, 3):
            page, tools = episode(browser, base, "drag-items", seed)
            assert solve(tools, "drag-items") == "Done."
            assert reward(page) == 1.0, tools.task()
            page.close()
