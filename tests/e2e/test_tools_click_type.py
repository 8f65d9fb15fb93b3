"""browser_click, browser_type, browser_select_option, browser_press_key by a model's tool
calls on loopback pages, checked by what the pages really did."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from .fake_model import FakeAnthropic
from .harness import Browser
from .tool_driver import Args, by_ref, open_tab, run_tools
from .tool_pages import serve_tool_pages


def test_type_and_click_sign_in_then_submit_navigates(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/login")

        def field(role: str, name: str, **more: object) -> Args:
            return by_ref(tab, role, name, **more)

        results, asked = run_tools(
            browser,
            model,
            [
                ("browser_snapshot", {"tabId": tab}),
                ("browser_type", field("textbox", "Email", text="ann@example.com")),
                ("browser_click", field("checkbox", "Remember me")),
                ("browser_snapshot", {"tabId": tab}),
                ("browser_type", field("textbox(password)", "Password", text="pw1", submit=True)),
            ],
        )
        assert asked == 3  # typing, clicking and submitting ask; snapshots only read
        # the form really submitted what was typed and checked
        expect(page).to_have_title("Welcome")
        query = parse_qs(urlsplit(page.url).query)
        assert query == {"email": ["ann@example.com"], "password": ["pw1"], "remember": ["on"]}
        # the second snapshot saw the typed value and the check box, and said what changed
        second = results[3]
        assert 'textbox "Email" = "ann@example.com"' in second
        assert 'checkbox "Remember me" [e' in second and "checked" in second
        assert "Since the previous snapshot" in second
        assert 'textbox(password) "Password" [' in second  # a password is never shown
        # each action reports where the tab is after it (evidence for recovery)
        assert f"is at {site}/login (origin {site})" in results[1]
        assert "The page navigated." in results[4] and f"{site}/welcome?" in results[4]


def test_click_select_type_press_on_every_input_type(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_tool_pages() as site:
        page, tab = open_tab(browser, f"{site}/form")

        def on(role: str, name: str, tool: str, **more: object) -> tuple[str, Args]:
            return tool, by_ref(tab, role, name, **more)

        results, _ = run_tools(
            browser,
            model,
            [
                ("browser_snapshot", {"tabId": tab}),
                on("textbox", "Name", "browser_type", text="Ann Lee"),
                on("spinbutton", "Age", "browser_type", text="42"),
                on("combobox", "Country", "browser_select_option", values=["Germany"]),
                on("listbox", "Languages", "browser_select_option", values=["English", "French"]),
                on("checkbox", "Newsletter", "browser_click"),
                on("radio", "Pro", "browser_click"),
                on("button", "More options", "browser_click"),
                on("textbox", "Notes", "browser_type", text="call me"),
                on("textbox", "Bio", "browser_type", text="Hikerz"),
                ("browser_press_key", {"tabId": tab, "key": "Backspace"}),
                on("button", "Locked", "browser_click"),
                on("combobox", "Country", "browser_select_option", values=["Italy"]),
                on("button", "Delete all", "browser_click"),
            ],
        )
        assert page.input_value("#name") == "Ann Lee"
        assert page.input_value("#age") == "42"
        assert page.input_value("#country") == "de"
        langs = page.eval_on_selector("#langs", "s => [...s.selectedOptions].map(o => o.value)")
        assert langs == ["English", "French"]
        assert page.is_checked("#news") and page.is_checked("#pro") and not page.is_checked("#free")
        assert page.eval_on_selector("details", "d => d.open") is True
        assert page.text_content("#notes") == "call me"
        assert page.input_value("#bio") == "Hiker"  # typed, then Backspace deleted the z
        # the events a user's input makes, in order, on the elements
        seen = page.evaluate("window.seen")
        for event in ("pointerdown:news", "mousedown:news", "mouseup:news", "click:news"):
            assert f"{event}:false" in seen
        assert seen.index("mousedown:name:false") < seen.index("keydown:name:false")
        assert seen.index("input:name:false") < seen.index("change:name:false")
        assert "change:country:false" in seen and "input:bio:false" in seen
        # what could not be done says why; the page's confirm was answered Cancel, not hung
        locked, italy, delete = results[-3:]
        assert "is disabled" in locked and "Locked" in locked
        assert 'option "Italy"' in italy and "disabled" in italy
        assert page.input_value("#country") == "de"
        assert 'confirm "Delete everything?"' in delete
        assert page.text_content("#answer") == "kept"
