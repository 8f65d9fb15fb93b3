"""Settings (issue 13, item 7): provider, base URL and models stored by the host; the API
key goes to credentials.set and never appears in the page, its DOM or chrome.storage (only
"set" and a fingerprint); policy rules added and removed; MCP servers listed; item 8: the
connection state. Issue 32: Basic (provider, model, key, the budget per turn in money) and
Advanced, collapsed (limits, rules picked from lists of actions and sites, grants, MCP)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, Page, expect

from .fake_model import FakeAnthropic, last_user_text
from .harness import Browser
from .panel_kit import both_schemes, connected, log, rpc, send, settings_for_model

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


def _open_advanced(settings: Locator) -> None:
    """Advanced starts collapsed: its limits are not shown until it is opened."""
    expect(settings.get_by_role("spinbutton", name="Context window")).to_be_hidden()
    settings.get_by_text("Advanced", exact=True).click()
    expect(settings.get_by_role("spinbutton", name="Context window")).to_be_visible()


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
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text("Model settings saved.")
    _open_advanced(settings)
    settings.get_by_role("textbox", name="Task model").fill("llama3.2:1b")
    settings.get_by_role("button", name="Save limits").click()
    expect(settings.get_by_role("status")).to_have_text("Limits saved.")
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
    # policy rules, picked from lists (Advanced stays open after a save): add one, then
    # remove it
    settings.get_by_role("combobox", name="Action").select_option(label="Click on pages")
    settings.get_by_role("combobox", name="Site", exact=True).select_option(label="Another site…")
    settings.get_by_role("textbox", name="Site address").fill("bank.example")
    settings.get_by_role("combobox", name="Decision").select_option(label="Deny")
    settings.get_by_role("button", name="Add rule").click()
    remove = settings.get_by_role(
        "button", name="Remove rule: Deny: Click on pages, on bank.example"
    )
    expect(remove).to_be_visible()
    rules = rpc(panel, "settings.get", {})["settings"]["policyRules"]
    assert [(r["decision"], r.get("tool"), r.get("origin")) for r in rules] == [
        ("deny", "browser_*click*", "https://bank.example")
    ]
    # MCP servers: added from a form (the program and its arguments, one per line: nothing
    # to quote), listed with their state, removed; the mcp.json stays under its own fold
    expect(settings.get_by_role("heading", name="MCP servers")).to_be_visible()
    settings.get_by_role("textbox", name="Server name").fill("files")
    settings.get_by_role("textbox", name="Program", exact=True).fill("panelot-no-such-program")
    args = settings.get_by_role("textbox", name="Arguments, one per line")
    args.fill("--root\n/tmp/my notes\n")
    settings.get_by_role("button", name="Add server").click()
    remove_server = settings.get_by_role("button", name="Remove the MCP server files")
    expect(remove_server).to_be_visible()
    servers = rpc(panel, "settings.get", {})["settings"]["mcpServers"]
    assert servers == {
        "files": {"command": "panelot-no-such-program", "args": ["--root", "/tmp/my notes"]}
    }
    settings.get_by_role("textbox", name="Server name").fill("web")
    settings.get_by_role("combobox", name="How it runs").select_option(label="A web address")
    settings.get_by_role("textbox", name="Server address").fill("ftp://mcp.example")
    settings.get_by_role("button", name="Add server").click()
    expect(settings.get_by_role("status")).to_have_text(
        "The address must start with https:// or http://."
    )
    assert set(rpc(panel, "settings.get", {})["settings"]["mcpServers"]) == {"files"}
    settings.get_by_text("Edit as mcp.json").click()
    raw = settings.get_by_role("textbox", name="MCP servers (mcp.json)")
    expect(raw).to_have_value(re.compile(r"\"command\": \"panelot-no-such-program\""))
    both_schemes(panel, "settings")
    settings.get_by_role("button", name="Remove the MCP server files").click()
    expect(settings.get_by_role("button", name="Remove the MCP server files")).to_have_count(0)
    assert rpc(panel, "settings.get", {})["settings"]["mcpServers"] == {}
    remove.click()
    expect(remove).to_have_count(0)
    assert rpc(panel, "settings.get", {})["settings"]["policyRules"] == []
    panel.get_by_role("button", name="Back to chat").click()
    expect(panel.get_by_role("textbox", name="Message")).to_be_focused()


def test_a_models_context_window_and_output_limit_are_overridden_in_settings(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel, settings = settings_for_model(browser, "claude-sonnet-4-5")
    _open_advanced(settings)
    settings.get_by_role("spinbutton", name="Context window").fill("50000")
    settings.get_by_role("spinbutton", name="Output limit").fill("1234")
    settings.get_by_role("button", name="Save limits").click()
    expect(settings.get_by_role("status")).to_have_text("Limits saved.")
    stored = rpc(panel, "settings.get", {})["settings"]
    assert stored["modelLimits"] == {
        "claude-sonnet-4-5": {"contextWindow": 50000, "maxOutputTokens": 1234}
    }
    # shown again from the host, and used: the next model call asks for 1234 tokens at most
    panel.reload()
    connected(panel)
    panel.get_by_role("button", name="Settings").click()
    _open_advanced(settings)
    expect(settings.get_by_role("spinbutton", name="Output limit")).to_have_value("1234")
    expect(settings.get_by_role("spinbutton", name="Context window")).to_have_value("50000")
    panel.get_by_role("button", name="Back to chat").click()
    send(panel, "How long may you answer?")
    expect(log(panel).get_by_role("listitem").filter(has_text="Echo: How long")).to_be_visible()
    # the turn's own request (a title request for the new thread may come after it)
    asked = [b for b in model.bodies if last_user_text(b) == "How long may you answer?"]
    assert [b["max_tokens"] for b in asked] == [1234]
    # emptied: the override is removed (Advanced is still open: the panel remembers)
    panel.get_by_role("button", name="Settings").click()
    settings.get_by_role("spinbutton", name="Output limit").fill("")
    settings.get_by_role("spinbutton", name="Context window").fill("")
    settings.get_by_role("button", name="Save limits").click()
    expect(settings.get_by_role("status")).to_have_text("Limits saved.")
    assert rpc(panel, "settings.get", {})["settings"]["modelLimits"] == {}


def test_basic_holds_the_model_the_key_and_a_budget_in_money_and_advanced_opens(
    browser: Browser,
) -> None:
    panel = browser.open_panel()
    connected(panel)
    panel.get_by_role("button", name="Settings").click()
    settings = panel.get_by_role("region", name="Settings")
    for role, name in [
        ("combobox", "Provider"),
        ("textbox", "Model"),
        ("textbox", "API key"),
        ("combobox", "Budget per turn"),
    ]:
        expect(settings.get_by_role(role, name=name, exact=True)).to_be_visible()
    budget = settings.get_by_role("combobox", name="Budget per turn")
    expect(budget).to_have_accessible_description(re.compile("need a model whose price"))
    assert budget.locator("option").all_inner_texts() == [
        "No limit",
        "$0.10",
        "$0.50",
        "$2.00",
        "Custom…",
    ]
    expect(budget).to_have_value("")  # no limit until one is chosen
    # what Basic does not show: limits, rules, grants, MCP are under Advanced, collapsed
    for hidden in ("Task model", "Default token budget", "Site address"):
        expect(settings.get_by_label(hidden)).to_be_hidden()
    expect(settings.get_by_role("heading", name="Rules")).to_be_hidden()
    both_schemes(panel, "settings-basic")
    # a preset, stored as dollars
    budget.select_option(label="$0.50")
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text("Model settings saved.")
    assert rpc(panel, "settings.get", {})["settings"]["defaultCostBudgetUsd"] == 0.5
    expect(budget).to_have_value("0.5")
    # a custom amount; one that is not an amount is refused in words, nothing is stored
    budget.select_option(label="Custom…")
    custom = settings.get_by_role("spinbutton", name="Custom budget (US$)")
    expect(custom).to_be_focused()
    custom.fill("0.75")
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text("Model settings saved.")
    assert rpc(panel, "settings.get", {})["settings"]["defaultCostBudgetUsd"] == 0.75
    expect(budget).to_have_value("custom")
    expect(custom).to_have_value("0.75")
    custom.fill("")
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text(
        "The budget per turn must be an amount in dollars, like 0.75."
    )
    assert rpc(panel, "settings.get", {})["settings"]["defaultCostBudgetUsd"] == 0.75
    budget.select_option(label="No limit")
    settings.get_by_role("button", name="Save model settings").click()
    expect(settings.get_by_role("status")).to_have_text("Model settings saved.")
    assert rpc(panel, "settings.get", {})["settings"]["defaultCostBudgetUsd"] is None
    # Advanced opens on the limits, the rules, the grants and MCP
    _open_advanced(settings)
    for heading in ("Limits", "Rules", "Grants", "MCP servers"):
        expect(settings.get_by_role("heading", name=heading)).to_be_visible()
    # the actions are the host's browser tools in words, never a tool's name
    actions = settings.get_by_role("combobox", name="Action").locator("option").all_inner_texts()
    assert {"Click on pages", "Type into pages", "Open pages"} <= set(actions)
    assert not [a for a in actions if "browser_" in a]
    # a site that is not one is refused in words
    settings.get_by_role("combobox", name="Site", exact=True).select_option(label="Another site…")
    settings.get_by_role("textbox", name="Site address").fill("not a site")
    settings.get_by_role("button", name="Add rule").click()
    expect(settings.get_by_role("status")).to_contain_text("“not a site” is not a site address")
    assert rpc(panel, "settings.get", {})["settings"]["policyRules"] == []
    # every site, "Ask first" before typing: saved and shown in words
    settings.get_by_role("combobox", name="Action").select_option(label="Type into pages")
    settings.get_by_role("combobox", name="Site", exact=True).select_option(label="Every site")
    expect(settings.get_by_role("textbox", name="Site address")).to_be_hidden()
    settings.get_by_role("combobox", name="Decision").select_option(label="Ask first")
    settings.get_by_role("button", name="Add rule").click()
    expect(settings.get_by_text("Ask first: Type into pages, on every site")).to_be_visible()
    rules = rpc(panel, "settings.get", {})["settings"]["policyRules"]
    assert rules == [{"decision": "ask", "tool": "browser_type"}]
    settings.get_by_role("heading", name="Rules").evaluate("h => h.scrollIntoView()")
    both_schemes(panel, "settings-advanced")
