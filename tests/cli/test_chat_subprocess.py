"""``python -m panelot_host chat`` as a user runs it: a real process, real stdin and signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

PROVIDER_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "PANELOT_PROVIDER")
CHAT = [sys.executable, "-m", "panelot_host", "chat"]


def chat_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARS}
    env.update(PANELOT_HOME=str(home), PYTHONUNBUFFERED="1", **extra)
    return env


def test_the_echo_demo_answers_a_prompt_and_exits_0(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CHAT, "hello"],
        env=chat_env(tmp_path, PANELOT_PROVIDER="scripted"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: hello\n"  # the answer only: stdout is not a terminal
    assert "= completed (end_turn)" in done.stderr
    assert "WARNING" not in done.stderr and "INFO" not in done.stderr  # logs go to the file
    assert (tmp_path / "logs" / "host.log").exists()


def test_without_a_provider_it_exits_2_and_says_which_variable_to_set(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CHAT, "hello"],
        env=chat_env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "ANTHROPIC_API_KEY" in done.stderr and "OPENAI_BASE_URL" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.anyio
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
async def test_ctrl_c_when_idle_exits_0(tmp_path: Path) -> None:
    env = chat_env(tmp_path, PANELOT_PROVIDER="scripted")
    async with await anyio.open_process(CHAT, env=env) as process:
        assert process.stderr is not None
        seen = b""
        with anyio.fail_after(30):
            while b"resume with:" not in seen:
                seen += await process.stderr.receive()
            process.send_signal(signal.SIGINT)
            status = await process.wait()
    assert status == 0
