"""browser_snapshot: refs into same-origin iframes and open shadow roots that the acting
tools accept, stale refs that say to take a new snapshot, and a 10,000-element page kept
within its budget with everything in the viewport."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from tests.support.web import serve_html

from .fake_model import FakeAnthropic
from .harness import Browser
from .tool_driver import Args, by_ref, invoke, open_tab, ref_of, run_tools, tab_of
from .tool_pages import serve_tool_pages


def test_snapshot_refs_reach_into_an_iframe_and_a_shadow_root(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/frame")

        def on(role: str, name: str, **more: object) -> Args:
            return by_ref(tab, role, name, **more)

        results, _ = run_tools(
            browser,
            model,
            [
                ("browser_snapshot", {"tabId": tab}),
                ("browser_type", on("textbox", "Code", text="XYZ")),
                ("browser_click", on("button", "Apply")),
                ("browser_navigate", {"tabId": tab, "url": f"{site}/shadow"}),
                ("browser_snapshot", {"tabId": tab}),
                ("browser_type", on("textbox", "Step", text="5")),
                ("browser_click", on("button", "Add")),
                ("browser_click", on("button", "Add")),
            ],
        )
        frame_outline = results[0]
        # the same-origin frame's fields are outlined under it; the other origin is named
        assert re.search(r'- iframe "Inner form" \[e\d+\]\n    - textbox "Code"', frame_outline)
        assert "another origin (http://localhost:" in frame_outline
        # the page the model acted on: the frame really got the text and the click ...
        shadow = page  # navigated by the model in the same tab
        expect(shadow).to_have_title("Total 10")  # ... and the shadow widget two clicks of 5
        assert (
            shadow.locator("fancy-counter").evaluate(
                "el => el.shadowRoot.getElementById('step').value"
            )
            == "5"
        )
        # text inside the shadow root is page text for browser_wait_for
        waited = invoke(browser, "browser_wait_for", {"tabId": tab, "text": "10", "timeMs": 3000})
        assert waited["isError"] is False, waited["content"]
        assert "Applied XYZ" not in frame_outline  # the text came later, from the click:
        assert "clicked" in results[2].lower() and "Inner form" not in results[2]


def test_snapshot_stale_and_unknown_refs_tell_the_model_to_snapshot_again(
    browser: Browser,
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/form")
        outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
        save = ref_of(outline, "button", "Save")
        # unknown ref
        unknown = invoke(browser, "browser_click", {"tabId": tab, "ref": "e9999"})
        assert unknown["isError"] and "take a new snapshot" in unknown["content"]
        # the element left the page
        page.evaluate("document.getElementById('save').remove()")
        gone = invoke(browser, "browser_click", {"tabId": tab, "ref": save})
        assert gone["isError"] and "no longer on the page" in gone["content"]
        # a reload: the refs belong to a document that is gone
        page.reload()
        reloaded = invoke(browser, "browser_click", {"tabId": tab, "ref": save})
        assert (
            reloaded["isError"]
            and "reloaded or navigated since the snapshot" in (reloaded["content"])
        )
        expect(page).to_have_title("Every input")  # nothing was clicked
        # a new snapshot gives refs that work again
        fresh = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
        clicked = invoke(
            browser, "browser_click", {"tabId": tab, "ref": ref_of(fresh, "button", "Save")}
        )
        assert not clicked["isError"], clicked["content"]
        expect(page).to_have_title("Saved")
        # a ref of an older snapshot is not valid after a newer one (here: of a region)
        region = invoke(
            browser, "browser_snapshot", {"tabId": tab, "ref": ref_of(fresh, "form", "Profile")}
        )
        assert region["isError"] is False and "heading[1]" not in region["content"]
        older = invoke(browser, "browser_click", {"tabId": tab, "ref": ref_of(fresh, "main", "")})
        assert older["isError"] and "not in the latest snapshot" in older["content"]


def test_snapshot_of_10000_elements_stays_within_budget_with_the_viewport(
    browser: Browser,
) -> None:
    with serve_tool_pages() as site:
        page = browser.context.new_page()
        page.goto(f"{site}/big")
        assert page.evaluate("document.querySelectorAll('*').length") >= 10_000
        tab = tab_of(browser, f"{site}/big")
        result = invoke(browser, "browser_snapshot", {"tabId": tab})
        outline = result["content"]
        assert len(outline) < 17_000
        assert "Left out to stay within the budget" in outline and "below the viewport" in outline
        # every interactive element the user can see is in it, with a ref
        visible = page.evaluate(
            """() => [...document.querySelectorAll('a, button, input')].filter((e) => {
                const r = e.getBoundingClientRect();
                return r.bottom > 0 && r.top < innerHeight && r.width > 0;
            }).map((e) => e.textContent.trim() || e.getAttribute('aria-label'))"""
        )
        assert len(visible) > 10
        for name in visible:
            assert f'"{name}" [e' in outline, name
        # scroll, snapshot again: what was below is now there, and the diff says so
        invoke(browser, "browser_scroll", {"tabId": tab, "ref": ref_of(outline, "contentinfo", "")})
        after = invoke(browser, "browser_snapshot", {"tabId": tab})
        assert 'link "Item 2499"' in after["content"]
        assert after["details"]["diff"]["addedCount"] > 0
        # a region by ref: only that region
        search = invoke(
            browser,
            "browser_snapshot",
            {"tabId": tab, "ref": ref_of(outline, "search", "Catalog search")},
        )
        assert 'searchbox "Find"' in search["content"] and "Item 1" not in search["content"]


def test_scroll_down_moves_the_pane_of_a_page_that_does_not_scroll(browser: Browser) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/app")
        result = invoke(browser, "browser_scroll", {"tabId": tab, "direction": "down"})
        assert result["isError"] is False and 'region "Messages"' in result["content"]
        assert page.eval_on_selector("#pane", "p => p.scrollTop") > 300
        assert page.evaluate("scrollY") == 0


RERENDERED = """<!doctype html><title>Cart</title><ul id="items"></ul><p id="out">-</p>
<script>
  let names = ["Tea", "Milk", "Jam"];
  function render() {  // as frameworks do: new elements each time
    document.getElementById("items").innerHTML = names.map((n, i) =>
      `<li>${n} <button onclick="document.getElementById('out').textContent='bought ${n}'">`
      + `Buy</button></li>`).join("");
  }
  render();
</script>"""


def test_a_re_rendered_ref_acts_on_its_successor_and_says_so(browser: Browser) -> None:
    with serve_html(lambda path: RERENDERED) as site:
        page, tab = open_tab(browser, f"{site}/cart")
        outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
        second = re.findall(r'- button "Buy" \[(e\d+)', outline)[1]
        page.evaluate("render()")  # the same three buttons, new elements
        clicked = invoke(browser, "browser_click", {"tabId": tab, "ref": second})
        assert not clicked["isError"], clicked
        assert f"the page re-rendered {second}" in clicked["content"]
        expect(page.locator("#out")).to_have_text("bought Milk")
        # the same ref goes on working
        again = invoke(browser, "browser_click", {"tabId": tab, "ref": second})
        assert not again["isError"] and "re-rendered" not in again["content"], again
        # a re-render that changed what there is: no guess, the ref is stale
        page.evaluate("names = ['Tea', 'Jam']; render()")
        stale = invoke(browser, "browser_click", {"tabId": tab, "ref": second})
        assert stale["isError"] and "no longer on the page" in stale["content"], stale
