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
    # a plain sentence; the command in a block with a Copy button; the ids under Details
    command = f"panelot-host install --extension-id {ext_id}"
    expect(banner.locator("pre")).to_have_text(command)
    expect(banner.get_by_role("button", name="Copy command")).to_be_visible()
    expect(banner.get_by_role("button", name="Retry now")).to_be_visible()
    sentences = banner.locator("#banner-cause, #banner-fix").all_inner_texts()
    assert not any(w in " ".join(sentences) for w in ("allowed_origins", ext_id, "`")), sentences
    details = banner.get_by_role("group").filter(has_text="Details")
    expect(details.get_by_text("allowed_origins")).to_be_hidden()
    details.get_by_text("Details").click()
    expect(details).to_contain_text(f"chrome-extension://{ext_id}/ is not among them")
    expect(details).to_contain_text("Chrome said: Access to the specified native messaging host")
    expect(panel.get_by_role("status").first).to_have_text("Offline")
    # while offline Send is disabled and says why; what was typed stays
    panel.get_by_role("textbox", name="Message").fill("hello")
    expect(panel.get_by_role("button", name="Send", exact=True)).to_be_disabled()
    expect(panel.get_by_text("Offline: what you type stays here")).to_be_visible()
    panel.get_by_role("textbox", name="Message").press("Enter")
    expect(panel.get_by_role("textbox", name="Message")).to_have_value("hello")  # not lost
    both_schemes(panel, "offline")
