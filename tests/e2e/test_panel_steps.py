"""Issue 32, following a turn: a 20-step browsing turn folds under one line that says what
the agent is doing now ("Step 2 · Clicking the button “Count” on …", with the tab's chip),
fits in one screen folded, and reads step by step unfolded, each step in the past tense;
a failed step is marked, and the answer says "1 step failed". Results read for people
(tabs with their titles, a look at the page in one line); the raw call and result sit
under "Technical details"."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from tests.support.web import serve_html

from .fake_model import FakeAnthropic
from .harness import Browser
from .panel_kit import approval_cards, both_schemes, log
from .tool_driver import last_snapshot, open_tab, plan_calls, start_turn

PAGE = """<!doctype html><title>Counter</title>
<main><h1>Counter</h1>
<button id="count" onclick="this.dataset.n = (+(this.dataset.n || 0) + 1);
  document.getElementById('out').textContent = this.dataset.n">Count</button>
<label>Note <input id="note"></label><p id="out">0</p></main>"""

CLICKS = 16


def _count_ref(results: list[str]) -> str:
    found: list[str] = re.findall(r'button "Count" \[(e\d+)', last_snapshot(results))
    return found[0]


def _fits(panel: Page) -> bool:
    fits: bool = panel.evaluate(
        "() => { const s = document.getElementById('scroller');"
        " return s.scrollHeight <= s.clientHeight + 1; }"
    )
    return fits


def test_a_twenty_step_turn_folds_under_one_line_and_unfolds_step_by_step(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_html(lambda _path: PAGE) as site:
        page, tab = open_tab(browser, f"{site}/counter")
        host = site  # an http site keeps its scheme in the panel's words
        calls: list[tuple[str, object]] = [
            ("browser_snapshot", {"tabId": tab}),
            ("browser_tabs_list", {}),
        ]
        calls += [
            ("browser_click", lambda r: {"tabId": tab, "ref": _count_ref(r)}) for _ in range(CLICKS)
        ]
        calls += [
            ("browser_click", {"tabId": tab, "ref": "e999"}),  # no such element: this step fails
            (
                "browser_type",
                lambda r: {
                    "tabId": tab,
                    "ref": re.findall(r'textbox "Note" \[(e\d+)', last_snapshot(r))[0],
                    "text": "hello",
                },
            ),
        ]
        assert len(calls) == 20
        plan_calls(model, calls, "I counted to 16 and left a note.")  # type: ignore[arg-type]
        panel = start_turn(browser, "Count to 16 on the counter page, then leave a note")

        # while a step waits, the line says which step, what it will do and where
        card = approval_cards(panel).filter(has_text="Click the button “Count”")
        expect(card).to_be_visible()
        line = log(panel).get_by_role("listitem").filter(has=panel.locator(".steps-toggle"))
        expect(line.get_by_role("button").first).to_have_text(
            f"Step 3 · Clicking the button “Count” on {host}"
        )
        expect(line.locator(".working")).to_have_count(1)  # motion while it waits
        chip = line.get_by_role("button", name=f"Show the tab Counter {host}")
        expect(chip).to_be_visible()
        expect(chip.locator("img")).to_have_attribute("src", re.compile(r"/_favicon/\?pageUrl="))
        # the two steps done so far are folded away: the line stands for them
        expect(log(panel).get_by_role("group").filter(has_text="Looked at the page")).to_have_count(
            0
        )

        # the chip shows the tab the step works in
        other = browser.context.new_page()
        other.goto(f"{site}/elsewhere")
        chip.click()
        active = browser.worker().evaluate("async (id) => (await chrome.tabs.get(id)).active", tab)
        assert active is True

        card.get_by_role("button", name="Allow for this site").click()
        typing = approval_cards(panel).filter(has_text="Type “hello” into the textbox “Note”")
        typing.get_by_role("button", name="Allow once").click()
        answer = log(panel).get_by_role("listitem").filter(has_text="I counted to 16")
        expect(answer).to_be_visible(timeout=60_000)
        expect(page.locator("#out")).to_have_text(str(CLICKS))

        # folded: one line, the answer says a step failed, and it all fits in one screen
        toggle = log(panel).get_by_role("button", name="20 steps · 1 failed")
        expect(toggle).to_have_attribute("aria-expanded", "false")
        expect(line.locator(".working")).to_have_count(0)
        expect(answer).to_contain_text("1 step failed.")
        expect(log(panel).get_by_role("group")).to_have_count(0)
        assert _fits(panel), "the folded turn does not fit in the panel"
        both_schemes(panel, "steps-folded")

        # unfolded: each step one line in the past tense, naming its target
        answer.get_by_role("button", name="Show the steps").click()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        # a step is an item of the conversation with a card that opens
        steps = log(panel).get_by_role("listitem").filter(has=panel.get_by_role("group"))
        clicked = steps.filter(has_text=f"Clicked the button “Count” on {host}")
        expect(clicked).to_have_count(CLICKS)
        expect(steps.filter(has_text=f"Looked at the page “Counter” on {host}")).to_have_count(1)
        expect(steps.filter(has_text="Listed the open tabs")).to_have_count(1)
        typed = steps.filter(has_text=f"Typed 5 characters into the textbox “Note” on {host}")
        expect(typed).to_have_count(1)
        failed = steps.filter(has_text="Click the element e999")
        expect(failed).to_have_count(1)
        expect(failed).to_contain_text("failed")
        # a success needs no chip: no step but the failed one shows a status word
        expect(log(panel).locator("details.tool .tool-status")).to_have_count(1)

        # results for people: a look at the page in one line, the tabs by title and site;
        # the tool's name and the raw result only under Technical details
        looked = steps.filter(has_text="Looked at the page").first
        looked.locator("summary").first.click()
        expect(looked).to_contain_text("Saw ")
        expect(looked).to_contain_text("of “Counter”")
        expect(looked.get_by_text("browser_snapshot")).to_be_hidden()
        expect(looked.get_by_text("untrusted-page-content", exact=False)).to_be_hidden()
        looked.get_by_text("Technical details").click()
        expect(looked.get_by_text("browser_snapshot")).to_be_visible()
        listed = steps.filter(has_text="Listed the open tabs").first
        listed.locator("summary").first.click()
        tabs = listed.get_by_role("list", name="Open tabs")
        expect(tabs.get_by_role("button", name=f"Show the tab Counter {host}")).to_be_visible()
        failed.locator("summary").first.click()
        expect(failed).to_contain_text("e999")
        expect(failed.get_by_text("browser_click:", exact=False)).to_be_hidden()
        for group in (looked, listed, failed):
            group.locator("summary").first.click()
        # scrolled down a long turn, the thread's title stays at the top
        answer.scroll_into_view_if_needed()
        title = panel.get_by_role("heading", name="Count to 16 on the counter page")
        expect(title).to_be_in_viewport()
        both_schemes(panel, "steps-unfolded")

        # folding again hides them; the line keeps its words
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "false")
        expect(log(panel).get_by_role("group")).to_have_count(0)
