"""Settings (issue 13, item 7): provider, base URL and models stored by the host; the API
key goes to credentials.set and never appears in the page, its DOM or chrome.storage (only
"set" and a fingerprint); policy rules added and removed; MCP servers listed; item 8: the
connection state."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from .fake_model import FakeAnthropic, last_user_text
from .harness import Browser
from .panel_kit import both_schemes, connected, log, rpc, send

SECRET = "sk-panel-test-9f8e7d6c5b4a3921"


def _record_requests(panel: Page, method: str) -> Callable[[], list[dict[str, Any]]]:
    """Keep the params of every ``method`` request the panel sends (secrets masked)."""
    panel.evaluate(
        """m => { window.__sent = []; const request = panelot.client.request.bind(panelot.client);
        panelot.client.request = (method, params, ...rest) => {
          if (method === m) window.__sent.push({...params, secret: "(masked)"});
          return request(method, params, ...rest); }; }""",
        method,
    )
    return lambda: list(panel.evaluate("window.__sent"))


def _stored_credential_origins(browser: Browser) -> dict[str, str]:
    """What the host stored: each credential reference and the origin it is bound to."""
    (path,) = browser.profile.panelot_home.glob("profiles/*/panelot.db")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT ref, provider FROM credential").fetchall())


def test_settings_are_stored_and_the_key_is_never_shown(browser: Browser) -> None:
    panel = browser.open_panel()
    connected(panel)
    panel.get_by_role("button", name="Settings").click()
    settings = panel.get_by_role("region", name="Settings")
    expect(settings.get_by_role("heading", name="Model")).to_be_visible()
    # an OpenAI-compatible local server: provider, base URL, model, task model
    settings.get_by_role("combobox", name="Provider").select_option("compatible")
    settings.get_by_role("textbox", name="Base URL").fill("http://127.0.0.1:11434/v1")
    settings.get_by_role("textbox", name="Model", exact=True).fill("llama3.1")
    settings.get_by_role("textbox", name="Task model").fill("llama3.2:1b")
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text("Model settings saved.")
    stored = rpc(panel, "settings.get", {})["settings"]
    assert (stored["provider"], stored["baseUrl"], stored["model"], stored["taskModel"]) == (
        "openai",
        "http://127.0.0.1:11434/v1",
        "llama3.1",
        "llama3.2:1b",
    )
    # the API key: sent once, for the server's origin only, never shown back
    key = settings.get_by_label("API key", exact=True)
    expect(key).to_have_accessible_description(re.compile("only to http://127.0.0.1:11434"))
    sent = _record_requests(panel, "credentials.set")
    key.fill(SECRET)
    settings.get_by_role("button", name="Save API key").click()
    expect(settings.get_by_text("API key: set (fingerprint")).to_be_visible()
    assert [p["origin"] for p in sent()] == ["http://127.0.0.1:11434"]
    assert _stored_credential_origins(browser) == {"openai-api-key": "http://127.0.0.1:11434"}
    assert settings.get_by_label("API key", exact=True).input_value() == ""
    assert SECRET not in panel.content()
    assert not panel.evaluate(
        "s => [...document.querySelectorAll('input, textarea')].some(e => e.value.includes(s))",
        SECRET,
    )
    storage = browser.worker().evaluate(
        "async () => JSON.stringify([await chrome.storage.local.get(null),"
        " await chrome.storage.session.get(null), await chrome.storage.sync.get(null)])"
    )
    assert SECRET not in storage
    stored = rpc(panel, "settings.get", {})["settings"]
    assert stored["apiKeyRef"] == "openai-api-key" and SECRET not in str(stored)
    # policy rules: add one, then remove it
    settings.get_by_role("combobox", name="Decision").select_option("deny")
    settings.get_by_role("textbox", name="Tool").fill("browser_click")
    settings.get_by_role("textbox", name="Site").fill("https://bank.example")
    settings.get_by_role("button", name="Add rule").click()
    remove = settings.get_by_role(
        "button", name="Remove rule: deny browser_click on https://bank.example"
    )
    expect(remove).to_be_visible()
    rules = rpc(panel, "settings.get", {})["settings"]["policyRules"]
    assert [(r["decision"], r.get("tool"), r.get("origin")) for r in rules] == [
        ("deny", "browser_click", "https://bank.example")
    ]
    # MCP servers: listed with their status, editable as mcp.json
    expect(settings.get_by_role("heading", name="MCP servers")).to_be_visible()
    expect(settings.get_by_role("textbox", name="MCP servers (mcp.json)")).to_have_value(
        '{\n  "mcpServers": {}\n}'
    )
    both_schemes(panel, "settings")
    remove.click()
    expect(remove).to_have_count(0)
    assert rpc(panel, "settings.get", {})["settings"]["policyRules"] == []
    panel.get_by_role("button", name="Back to chat").click()
    expect(panel.get_by_role("textbox", name="Message")).to_be_focused()


def test_a_models_context_window_and_output_limit_are_overridden_in_settings(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel = browser.open_panel()
    connected(panel)
    panel.get_by_role("button", name="Settings").click()
    settings = panel.get_by_role("region", name="Settings")
    settings.get_by_role("textbox", name="Model", exact=True).fill("claude-sonnet-4-5")
    settings.get_by_role("spinbutton", name="Context window").fill("50000")
    settings.get_by_role("spinbutton", name="Output limit").fill("1234")
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text("Model settings saved.")
    stored = rpc(panel, "settings.get", {})["settings"]
    assert stored["modelLimits"] == {
        "claude-sonnet-4-5": {"contextWindow": 50000, "maxOutputTokens": 1234}
    }
    # shown again from the host, and used: the next model call asks for 1234 tokens at most
    panel.reload()
    connected(panel)
    panel.get_by_role("button", name="Settings").click()
    expect(settings.get_by_role("spinbutton", name="Output limit")).to_have_value("1234")
    expect(settings.get_by_role("spinbutton", name="Context window")).to_have_value("50000")
    panel.get_by_role("button", name="Back to chat").click()
    send(panel, "How long may you answer?")
    expect(log(panel).get_by_role("listitem").filter(has_text="Echo: How long")).to_be_visible()
    # the turn's own request (a title request for the new thread may come after it)
    asked = [b for b in model.bodies if last_user_text(b) == "How long may you answer?"]
    assert [b["max_tokens"] for b in asked] == [1234]
    # emptied: the override is removed
    panel.get_by_role("button", name="Settings").click()
    settings.get_by_role("spinbutton", name="Output limit").fill("")
    settings.get_by_role("spinbutton", name="Context window").fill("")
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text("Model settings saved.")
    assert rpc(panel, "settings.get", {})["settings"]["modelLimits"] == {}
