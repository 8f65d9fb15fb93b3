"""Python code run in a fresh interpreter (what a module imports shows only there)."""

from __future__ import annotations

import subprocess
import sys


def python_output(code: str, *args: str) -> str:
    """What ``python -c code args...`` prints; raises ``CalledProcessError`` if it fails."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, check=True, text=True
    )
    return done.stdout
