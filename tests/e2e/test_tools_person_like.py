"""Issue 24, item 1: plain (L1) actions as a person does them. Key events carry the legacy
`keyCode`/`which` that jQuery-UI-style widgets read; pickers and sliders (`date`, `time`,
`color`, `range`) take a typed value whole, as Playwright's `fill` does, and a value they
cannot take is a clear error; a click lands on the topmost element at the ref's centre (a
tab whose handler is on the link inside it); and a click the page ignores (it checks
`isTrusted`) says that nothing changed, so the model can try trusted input, which works."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Page, expect
from tests.support.web import serve_html

from .harness import Browser
from .tool_driver import invoke, open_tab, ref_of

PAGE = """<!doctype html><title>Widgets</title>
<div id="menu" role="listbox" aria-label="Sizes" tabindex="0"
  aria-activedescendant="s1">
  <div role="option" id="s1">Small</div><div role="option" id="s2">Large</div>
</div>
<p id="chosen">Small</p>
<label>When <input type="date" id="when"></label>
<label>Alarm <input type="time" id="alarm"></label>
<label>Tint <input type="color" id="tint" value="#000000"></label>
<label>Volume <input type="range" id="volume" min="0" max="10" value="2"></label>
<p id="events"></p>
<style>
  [role=tab] { display: inline-block } [role=tab] a { display: block; padding: 4px 8px }
</style>
<ul role="tablist"><!-- as jQuery UI lays them out: the link fills its tab -->
  <li role="tab" aria-selected="true"><a role="presentation" href="#p1">Tab 1</a></li>
  <li role="tab" aria-selected="false"><a role="presentation" href="#p3">Tab 3</a></li>
</ul>
<p id="panel">Panel 1</p>
<button id="strict">Strict</button>
<button id="late">Late</button>
<p id="said"></p>
<script>
  const menu = document.getElementById("menu");
  menu.addEventListener("keydown", (e) => {
    // as jQuery UI does: the legacy key code, not `key`
    if (e.keyCode === 40) {
      menu.setAttribute("aria-activedescendant", "s2");
      document.getElementById("chosen").textContent = "Large";
    }
  });
  for (const id of ["when", "alarm", "tint", "volume"]) {
    document.getElementById(id).addEventListener("change", (e) => {
      document.getElementById("events").textContent += id + "=" + e.target.value + ";";
    });
  }
  for (const link of document.querySelectorAll("[role=tab] a")) {
    link.addEventListener("click", (e) => {
      e.preventDefault();
      document.getElementById("panel").textContent = "Panel " + link.textContent.slice(4);
    });
  }
  document.getElementById("strict").addEventListener("click", (e) => {
    if (e.isTrusted) document.getElementById("said").textContent = "strict clicked";
  });
  document.getElementById("late").addEventListener("click", () => {
    setTimeout(() => { document.getElementById("said").textContent = "late answer"; }, 250);
  });
</script>"""


class Widgets:
    def __init__(self, browser: Browser, url: str, tab: int) -> None:
        self.browser, self.url, self.tab = browser, url, tab

    def call(self, tool: str, role: str | None = None, name: str = "", **args: Any) -> Any:
        if role is not None:
            outline = invoke(self.browser, "browser_snapshot", {"tabId": self.tab})["content"]
            args["ref"] = ref_of(outline, role, name)
        origin = self.url.rsplit("/", 1)[0]
        decided = {"tabId": self.tab, "url": self.url, "origin": origin, "title": "Widgets"}
        return invoke(self.browser, tool, {"tabId": self.tab, **args}, decided)


@contextmanager
def widgets_page(browser: Browser) -> Iterator[tuple[Page, Widgets]]:
    with serve_html(lambda path: PAGE) as site:
        url = f"{site}/widgets"
        page, tab = open_tab(browser, url)
        yield page, Widgets(browser, url, tab)


def test_keys_pickers_and_tabs_work_with_plain_actions(browser: Browser) -> None:
    with widgets_page(browser) as (page, widgets):
        # a key press the widget reads by keyCode
        focused = widgets.call("browser_click", "listbox", "Sizes")
        assert not focused["isError"], focused
        pressed = widgets.call("browser_press_key", key="ArrowDown")
        assert not pressed["isError"], pressed
        expect(page.locator("#chosen")).to_have_text("Large")
        assert "nothing changed" not in pressed["content"]
        # pickers and sliders take the value whole, with input and change
        for role, name, value in [
            ("date", "When", "2024-03-05"),
            ("time", "Alarm", "07:30"),
            ("color", "Tint", "#ff8800"),
        ]:
            typed = widgets.call("browser_type", role, name, text=value)
            assert not typed["isError"], typed
        slid = widgets.call("browser_type", "slider", "Volume", text="7")
        assert not slid["isError"], slid
        expect(page.locator("#when")).to_have_value("2024-03-05")
        expect(page.locator("#alarm")).to_have_value("07:30")
        expect(page.locator("#tint")).to_have_value("#ff8800")
        expect(page.locator("#volume")).to_have_value("7")
        expect(page.locator("#events")).to_have_text(
            "when=2024-03-05;alarm=07:30;tint=#ff8800;volume=7;"
        )
        # a value the picker cannot take is an error that says the format
        wrong = widgets.call("browser_type", "date", "When", text="March 5th")
        assert wrong["isError"], wrong
        assert "it takes YYYY-MM-DD" in wrong["content"]
        # the tab's handler is on the link inside it, where a pointer would land
        switched = widgets.call("browser_click", "tab", "Tab 3")
        assert not switched["isError"], switched
        expect(page.locator("#panel")).to_have_text("Panel 3")


def test_a_click_the_page_ignores_says_so_and_trusted_input_works(browser: Browser) -> None:
    with widgets_page(browser) as (page, widgets):
        ignored = widgets.call("browser_click", "button", "Strict")
        assert not ignored["isError"], ignored
        assert "nothing changed on the page that Panelot can see" in ignored["content"]
        assert "trusted: true" in ignored["content"]
        assert ignored["details"]["reacted"] is False
        expect(page.locator("#said")).to_have_text("")
        trusted = widgets.call("browser_click", "button", "Strict", trusted=True)
        assert not trusted["isError"], trusted
        expect(page.locator("#said")).to_have_text("strict clicked")
        # a page that answers a moment later has reacted: no such claim
        late = widgets.call("browser_click", "button", "Late")
        assert "nothing changed" not in late["content"], late
        expect(page.locator("#said")).to_have_text("late answer")
        # a page that reacts at once neither
        tab3 = widgets.call("browser_click", "tab", "Tab 3")
        assert "nothing changed" not in tab3["content"], tab3
