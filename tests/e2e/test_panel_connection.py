"""Connection state (issue 13, item 8): a host that cannot be reached is a banner with the
cause and the fix in words, never a silent spinner; the composer still works once back."""

from __future__ import annotations

from playwright.sync_api import expect

from .harness import Browser
from .panel_kit import both_schemes


def test_banner_says_why_and_what_to_do(forbidden_browser: Browser) -> None:
    panel = forbidden_browser.open_panel()
    banner = panel.get_by_role("alert")
    expect(banner).to_contain_text("The host does not allow this extension")
    ext_id = forbidden_browser.ext_id
    expect(banner).to_contain_text(f"Reinstall the host for extension ID {ext_id}")
    expect(banner.get_by_role("button", name="Retry now")).to_be_visible()
    expect(panel.get_by_role("status").first).to_have_text("Offline")
    # an action while offline says so instead of hanging
    panel.get_by_role("textbox", name="Message").fill("hello")
    panel.get_by_role("button", name="Send", exact=True).click()
    expect(panel.get_by_role("textbox", name="Message")).to_have_value("hello")  # not lost
    both_schemes(panel, "offline")
