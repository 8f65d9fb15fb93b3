"""The browser tools' contract for the extension, declared once here (``tools/browser.py``)
and published as ``schema/browser-tools.json``: each tool's label, level, effect, recovery
class, page traits (``tools.browser.PageTraits``) and argument schema. The extension's
types are generated from it, so its tool table cannot name a tool the host does not
declare (``extension-shim/scripts/gen-protocol-types.mjs``).

``python -m panelot_host.tools.browser_contract`` prints it; ``--write`` writes it (committed;
a test fails when it is stale); ``--check`` exits 1 when the committed file differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from panelot_host.generated_file import json_text, write_or_check
from panelot_host.tools.browser import BROWSER_TOOL_NAMES, PAGE_TRAITS, browser_tools

CONTRACT_PATH: Final = Path(__file__).resolve().parents[3] / "schema" / "browser-tools.json"
REGENERATE: Final = "python -m panelot_host.tools.browser_contract --write"


def generate() -> dict[str, Any]:
    """``{"tools": {name: {label, level, effect, recovery, pageState, activeTab,
    parameters}}}`` in the host's order."""
    tools: dict[str, Any] = {}
    for tool in browser_tools(BROWSER_TOOL_NAMES):
        [effect] = tool.effects
        tools[tool.name] = {
            "label": tool.label,
            "level": tool.level,
            "effect": effect,
            "recovery": tool.recovery,
            "pageState": PAGE_TRAITS[tool.name].page_state,
            "activeTab": PAGE_TRAITS[tool.name].active_tab,
            "parameters": tool.parameters,
        }
    return {
        "$comment": f"Generated from host/panelot_host/tools/browser.py; run {REGENERATE}",
        "tools": tools,
    }


def render() -> str:
    """``generate()`` as the exact text committed in ``schema/browser-tools.json``."""
    return json_text(generate())


def main(argv: Sequence[str] | None = None) -> int:
    """Print the contract, or ``--write`` it to ``CONTRACT_PATH``, or ``--check`` it."""
    return write_or_check(
        argv,
        prog="python -m panelot_host.tools.browser_contract",
        path=CONTRACT_PATH,
        render=render,
        regenerate=REGENERATE,
    )


if __name__ == "__main__":
    raise SystemExit(main())
