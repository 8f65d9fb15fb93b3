"""A real terminal for tests: a command in a tmux session on its own tmux server (its own
socket, no user configuration), so tests never meet other tmux sessions on the machine."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Pane:
    """``command`` (a shell line) running in a ``width`` x ``height`` terminal."""

    def __init__(self, command: str, *, width: int = 120, height: int = 40) -> None:
        self.name = f"panelot-{uuid.uuid4().hex[:10]}"
        self._folder = Path(tempfile.mkdtemp(prefix="panelot-tmux-"))
        self._tmux(
            "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), command
        )

    def _tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self._folder / "socket"), "-f", "/dev/null", *args],
            check=check,
            capture_output=True,
            text=True,
        )
        return done.stdout

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def text(self) -> str:
        return self._tmux("capture-pane", "-p", "-J", "-t", self.name)

    def wait_for(self, text: str, within_s: float = 20.0) -> str:
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            screen = self.text()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear; the pane shows:\n{self.text()}")

    def close(self) -> None:
        self._tmux("kill-server", check=False)
        shutil.rmtree(self._folder, ignore_errors=True)
