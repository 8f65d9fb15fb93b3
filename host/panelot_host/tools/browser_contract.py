"""The browser tools' contract for the extension, declared once here (``tools/browser.py``)
and published as ``schema/browser-tools.json``: each tool's label, level, effect, recovery
class and argument schema. The extension's types are generated from it, so its tool table
cannot name a tool the host does not declare (``extension-shim/scripts/gen-protocol-types.mjs``).

``python -m panelot_host.tools.browser_contract`` prints it; ``--write`` writes it (committed;
a test fails when it is stale); ``--check`` exits 1 when the committed file differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from panelot_host.tools.browser import BROWSER_TOOL_NAMES, browser_tools

CONTRACT_PATH: Final = Path(__file__).resolve().parents[3] / "schema" / "browser-tools.json"
REGENERATE: Final = "python -m panelot_host.tools.browser_contract --write"


def generate() -> dict[str, Any]:
    """``{"tools": {name: {label, level, effect, recovery, parameters}}}`` in the host's order."""
    tools: dict[str, Any] = {}
    for tool in browser_tools(BROWSER_TOOL_NAMES):
        [effect] = tool.effects
        tools[tool.name] = {
            "label": tool.label,
            "level": tool.level,
            "effect": effect,
            "recovery": tool.recovery,
            "parameters": tool.parameters,
        }
    return {
        "$comment": f"Generated from host/panelot_host/tools/browser.py; run {REGENERATE}",
        "tools": tools,
    }


def render() -> str:
    """``generate()`` as the exact text committed in ``schema/browser-tools.json``."""
    return json.dumps(generate(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the contract, or ``--write`` it to ``CONTRACT_PATH``, or ``--check`` it."""
    parser = argparse.ArgumentParser(prog="python -m panelot_host.tools.browser_contract")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help=f"write {CONTRACT_PATH}")
    action.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        CONTRACT_PATH.write_text(text, encoding="utf-8")
        return 0
    if args.check:
        current = CONTRACT_PATH.read_text(encoding="utf-8") if CONTRACT_PATH.exists() else ""
        if current != text:
            print(f"{CONTRACT_PATH} is stale; run: {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
