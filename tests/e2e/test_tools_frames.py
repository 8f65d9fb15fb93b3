"""Issue 24, item 3: iframes of another origin are outlined in place, with refs qualified
by their frame (`f1e5`); acting on such a ref runs in that frame's own document, and the
Gatekeeper decides by the frame's origin: a grant for the page around it does not cover
it, and the approval card names the frame's origin."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .fake_model import FakeAnthropic
from .harness import Browser, screenshot
from .panel_kit import approval_cards
from .tool_driver import Args, invoke, last_snapshot, open_tab, plan_calls, start_turn, tool_results
from .tool_pages import serve_tool_pages


def frame_ref(role: str, name: str, **more: object) -> Args:
    """Arguments naming the element ``role "name"`` inside a frame of another origin."""

    def args(results: list[str]) -> dict[str, object]:
        outline = last_snapshot(results)
        found = re.search(rf'- {role} "{name}"[^\n]*?\[(f\d+e\d+)', outline)
        assert found, outline
        return {"ref": found.group(1), **more}

    return args


def test_a_frame_of_another_origin_is_outlined_with_its_own_refs(browser: Browser) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/frame")
        other = site.replace("127.0.0.1", "localhost")
        expect(page.frame_locator("#other").locator("#apply")).to_be_visible()
        outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
        # the same-origin frame is walked into as before; the other origin has its own refs
        assert re.search(r'- iframe "Inner form" \[e\d+\]\n    - textbox "Code" \[e\d+', outline)
        elsewhere = re.search(
            rf'- iframe "Elsewhere" \[e\d+\] another origin \({re.escape(other)}\), '
            r"its frame f1 \(refs f1e…\)\n((?:    - .*\n?)+)",
            outline,
        )
        assert elsewhere, outline
        assert re.search(r'- textbox "Code" \[f1e\d+\]', elsewhere.group(1))
        assert re.search(r'- button "Apply" \[f1e\d+\]', elsewhere.group(1))
        # a region of the frame is outlined by the frame, with the same refs
        code = re.search(r'textbox "Code" \[(f1e\d+)', elsewhere.group(1))
        assert code
        region = invoke(browser, "browser_snapshot", {"tabId": tab, "ref": code.group(1)})
        assert f'- textbox "Code" [{code.group(1)}]' in region["content"], region
        # a frame ref that no snapshot gave is refused with what to do, nothing done
        answer = invoke(browser, "browser_click", {"tabId": tab, "ref": "f7e1"})
        assert answer["isError"] and "names a frame that is not in the latest snapshot" in str(
            answer
        )


def test_acting_in_the_frame_is_decided_by_the_frames_origin(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/frame")
        other = site.replace("127.0.0.1", "localhost")
        expect(page.frame_locator("#other").locator("#apply")).to_be_visible()
        plan_calls(
            model,
            [
                ("browser_snapshot", {"tabId": tab}),
                # the page's own field (same origin): allowed for the site below
                (
                    "browser_type",
                    lambda results: {
                        "tabId": tab,
                        "ref": re.findall(r'textbox "Code" \[(e\d+)', last_snapshot(results))[0],
                        "text": "mine",
                    },
                ),
                ("browser_type", frame_ref("textbox", "Code", tabId=tab, text="XYZ")),
                ("browser_click", frame_ref("button", "Apply", tabId=tab)),
            ],
            "Done.",
        )
        panel = start_turn(browser, "Apply code XYZ in the partner frame")
        log = panel.get_by_role("list", name="Conversation")
        first = approval_cards(panel).filter(has_text="Type “mine” into the textbox “Code”")
        expect(first.locator("p").first).to_have_text(
            f"Type “mine” into the textbox “Code” on {site}, in the tab “Frames”?"
        )
        first.get_by_role("button", name="Allow for this site").click()
        # the frame's origin is another site: asked again, and the card names it. This turn
        # read the page of the first site, so the card offers no standing permission there
        # (issue 25's provenance rule holds for a frame as for a tab)
        framed = approval_cards(panel).filter(has_text="Type “XYZ” into the textbox “Code”")
        expect(framed).to_contain_text(f"“Code” on {other}, in the tab “Frames”")
        expect(framed).to_be_visible()
        expect(framed).to_contain_text(f"this call types into {other}.")
        expect(framed.get_by_role("button", name="Allow for this site")).to_have_count(0)
        screenshot(panel, "panel-frame-approval")
        framed.get_by_role("button", name="Allow once").click()
        clicked = approval_cards(panel).filter(has_text="Click the button “Apply”")
        clicked.get_by_role("button", name="Allow once").click()
        expect(log.get_by_role("listitem").filter(has_text="Done.")).to_be_visible()
        # each step's card says what it did, naming its target, in the past tense (the
        # steps fold under the turn's line: unfold them)
        log.get_by_role("button", name="4 steps").click()
        steps = log.get_by_role("group")
        expect(steps.filter(has_text="Typed 4 characters into the textbox “Code”")).to_be_visible()
        expect(steps.filter(has_text="Clicked the button “Apply”")).to_be_visible()
        inner = page.frame_locator("#other")
        expect(inner.locator("#out")).to_have_text("Applied XYZ")
        expect(page.frame_locator("#inner").locator("#code")).to_have_value("mine")
        results = tool_results(model.bodies[-1])
        assert "Typed 3 characters into f1e" in results[2], results[2]
        assert f"It acted in the tab's frame of {other}." in results[2]
        assert "Clicked f1e" in results[3], results[3]
        grants = panel.evaluate("panelot.client.request('permissions.list', {})")
        origins = [g.get("origin") for g in grants["grants"]]
        assert site in origins and other not in origins, grants
