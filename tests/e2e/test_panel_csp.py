"""Issue 25: the extension's pages have a Content-Security-Policy of their own (manifest
`content_security_policy.extension_pages`), stricter than MV3's default: nothing but the
extension's own scripts and styles, images only from the extension or `data:`, no
network from the page. A normal session violates none of it; an injected remote image,
script, fetch or CSS URL is blocked and never reaches the server."""

from __future__ import annotations

from playwright.sync_api import expect
from tests.support.web import serve_html

from .fake_model import FakeAnthropic, text_reply
from .harness import Browser
from .panel_kit import connected, log, send

RECORD = """() => {
  window.violations = [];
  document.addEventListener('securitypolicyviolation',
    (e) => window.violations.push(e.effectiveDirective + ' ' + e.blockedURI));
}"""


def test_the_panel_loads_nothing_from_outside(browser: Browser, model: FakeAnthropic) -> None:
    asked: list[str] = []
    with serve_html(lambda path: "", asked) as outside:
        panel = browser.open_panel()
        panel.evaluate(RECORD)
        connected(panel)
        # a normal session: a Markdown answer (with a remote image the model wrote),
        # settings opened and closed
        model.plan(
            text_reply([f"**Done.** ![pixel]({outside}/markdown.png) [a link]({outside}/a)"])
        )
        send(panel, "Hello")
        expect(log(panel).get_by_role("listitem").last).to_contain_text("Done.")
        panel.get_by_role("button", name="Settings").click()
        panel.get_by_role("button", name="Back to chat").click()
        assert panel.evaluate("window.violations") == [] and asked == []
        # what an injection into the panel's DOM would try
        panel.evaluate(
            """(base) => {
              const img = document.createElement('img'); img.src = base + '/img.png';
              document.body.append(img);
              const script = document.createElement('script'); script.src = base + '/s.js';
              document.body.append(script);
              const styled = document.createElement('div');
              styled.setAttribute('style', `background: url(${base}/css.png)`);
              document.body.append(styled);
              fetch(base + '/fetch').catch(() => {});
            }""",
            outside,
        )
        expected = {"img-src", "script-src-elem", "style-src-attr", "connect-src"}
        seen: set[str] = set()
        for _ in range(50):  # each blocked load reports its violation a moment later
            seen = {v.split(" ")[0] for v in panel.evaluate("window.violations")}
            if expected <= seen:
                break
            panel.wait_for_timeout(100)
        assert expected <= seen
        panel.wait_for_timeout(500)  # give a leaked request time to arrive
        assert asked == []
