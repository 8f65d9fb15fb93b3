"""The chat in a real terminal (tmux): prompts, typed lines, Ctrl-D. Skipped without tmux."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Pane:
    def __init__(self, name: str) -> None:
        self.name = name

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def text(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name],
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def wait_for(self, text: str, within_s: float = 20.0) -> str:
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            screen = self.text()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear; the pane shows:\n{self.text()}")


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    name = f"panelot-chat-{uuid.uuid4().hex[:8]}"
    command = (
        f"env PANELOT_HOME={shlex.quote(str(tmp_path))} PANELOT_PROVIDER=scripted "
        f"{shlex.quote(sys.executable)} -m panelot_host chat; echo EXIT=$?; sleep 60"
    )
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", command], check=True
    )
    try:
        yield Pane(name)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], check=False)


def test_a_terminal_chat_prompts_answers_and_exits_on_ctrl_d(pane: Pane) -> None:
    screen = pane.wait_for("\nyou>")
    assert "Ctrl-C interrupts" in screen  # the hints are shown on a terminal
    pane.keys("hi there", "Enter")
    screen = pane.wait_for("= completed")
    assert "you> hi there\nYou said: hi there\n" in screen  # no echo, no blank line
    pane.keys("C-d")
    pane.wait_for("EXIT=0")


def test_ctrl_c_at_an_idle_prompt_exits_0(pane: Pane) -> None:
    pane.wait_for("\nyou>")
    pane.keys("C-c")
    screen = pane.wait_for("EXIT=0")
    assert "Traceback" not in screen
