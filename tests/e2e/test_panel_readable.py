"""Issue 32, readable type and contrast: the panel's text is 14 px (Chromium gives an
extension page's body 75 % of the root's size, so the panel sets it on body too), its
titles larger, its meta lines no smaller than 12 px; every control's border stands out
3:1 or more from what is behind it (WCAG 1.4.11, which axe does not check), in light and
dark; the header fits at 360 px with New thread as an icon and Settings with a gear."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from .fake_model import FakeAnthropic, text_reply
from .harness import Browser
from .panel_kit import both_schemes, connected, log, send

# every visible control with a border: its border's contrast with the colour behind it
CONTROL_EDGES = "\n".join(
    line
    for line in (Path(__file__).parent / "control_edges.js").read_text("utf-8").splitlines()
    if not line.startswith("//")
)

SIZES = """() => Object.fromEntries(Object.entries({
  body: document.body,
  message: document.querySelector('#log li[data-kind="user"] .text'),
  answer: document.querySelector('#log li[data-kind="assistant"]'),
  title: document.getElementById("thread-title"),
  composer: document.getElementById("message"),
  usage: document.getElementById("thread-usage"),
  threadMeta: document.querySelector(".thread-meta"),
}).map(([k, el]) => [k, el ? parseFloat(getComputedStyle(el).fontSize) : null]))"""


def edges_below(panel: Page, scheme: str) -> list[dict[str, Any]]:
    panel.emulate_media(color_scheme=scheme)
    found: list[dict[str, Any]] = panel.evaluate(CONTROL_EDGES)
    assert found, "no control was measured"
    return [c for c in found if c["ratio"] < 3]


def test_text_is_14px_and_every_control_stands_out(browser: Browser, model: FakeAnthropic) -> None:
    model.plan(text_reply(["Here is what I found on the page: three results."]))
    panel = browser.open_panel()
    connected(panel)
    send(panel, "What is on this page?")
    expect(log(panel).get_by_role("listitem").filter(has_text="three results")).to_be_visible()
    sizes = panel.evaluate(SIZES)
    for text in ("body", "message", "answer", "composer"):
        assert sizes[text] >= 14, sizes
    assert sizes["title"] > sizes["body"], sizes
    for meta in ("usage", "threadMeta"):
        assert sizes[meta] is not None and sizes[meta] >= 12, sizes
    # the header fits at 360 px: nothing in it wraps or overflows
    header = panel.evaluate(
        "() => { const h = document.querySelector('header.bar');"
        " return {scroll: h.scrollWidth, client: h.clientWidth, height: h.clientHeight,"
        " width: innerWidth}; }"
    )
    assert header["width"] <= 360 and header["scroll"] <= header["client"], header
    assert header["height"] < 50, header
    expect(panel.get_by_role("button", name="New thread")).to_be_visible()
    expect(panel.get_by_role("button", name="Settings")).to_be_visible()
    for scheme in ("light", "dark"):
        assert not edges_below(panel, scheme), (scheme, edges_below(panel, scheme))
    both_schemes(panel, "readable-chat")
    # the settings view's fields and buttons too
    panel.get_by_role("button", name="Settings").click()
    expect(panel.get_by_role("heading", name="Settings")).to_be_visible()
    for scheme in ("light", "dark"):
        assert not edges_below(panel, scheme), (scheme, edges_below(panel, scheme))
    both_schemes(panel, "readable-settings")
