"""A generated file committed in the repository (a JSON Schema, the browser tools' contract):
its exact text, and the command line that prints it, ``--write``s it or ``--check``s that the
committed copy is current (a test fails when it is stale)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def json_text(document: Any) -> str:
    """``document`` as the exact text committed: indented by 2, UTF-8 kept, one final newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_or_check(
    argv: Sequence[str] | None,
    *,
    prog: str,
    path: Path,
    render: Callable[[], str],
    regenerate: str,
) -> int:
    """Print ``render()``, or ``--write`` it to ``path``, or ``--check`` that ``path`` holds it.

    Returns the exit status: 1 when ``--check`` finds the file stale (it says so on stderr,
    with the ``regenerate`` command), else 0.
    """
    parser = argparse.ArgumentParser(prog=prog)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help=f"write {path}")
    action.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return 0
    if args.check:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            print(f"{path} is stale; run: {regenerate}", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0
