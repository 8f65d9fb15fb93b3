"""The browser tools' contract the extension's types are generated from
(``schema/browser-tools.json``) is the host's declaration, current and complete."""

from __future__ import annotations

import json

from panelot_host.tools.browser import BROWSER_TOOL_NAMES
from panelot_host.tools.browser_contract import CONTRACT_PATH, REGENERATE, main, render


def test_the_committed_contract_is_current() -> None:
    assert CONTRACT_PATH.read_text("utf-8") == render(), f"stale: run {REGENERATE}"
    assert main(["--check"]) == 0


def test_it_declares_each_browser_tool_once_with_its_level_effect_and_arguments() -> None:
    tools = json.loads(render())["tools"]
    assert tuple(tools) == BROWSER_TOOL_NAMES
    click = tools["browser_click"]
    assert (click["level"], click["effect"], click["recovery"]) == ("L1", "write", "write")
    assert click["parameters"]["required"] == ["ref"]
    assert click["parameters"]["additionalProperties"] is False
    # a tool that needs one of several arguments says so in its schema
    assert {"required": ["text"]} in tools["browser_wait_for"]["parameters"]["anyOf"]
