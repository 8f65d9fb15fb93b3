"""The chat in a real terminal (tmux): prompts, typed lines, Ctrl-D. Skipped without tmux."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.cli.fake_openai import (
    HANG,
    PROVIDER_VARS,
    Delay,
    SSEServer,
    requests_of,
    text_reply,
)
from tests.cli.terminal import Pane, needs_tmux

pytestmark = needs_tmux


class Panes:
    """Starts ``panelot-host chat`` in tmux sessions; kills them at the end."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.panes: list[Pane] = []

    def start(self, *args: str, **env: str) -> Pane:
        variables = {"PANELOT_HOME": str(self.home), "NO_COLOR": "1", **env}
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in variables.items())
        unset = " ".join(f"-u {v}" for v in PROVIDER_VARS)
        chat = " ".join(
            shlex.quote(a) for a in [sys.executable, "-m", "panelot_host", "chat", *args]
        )
        pane = Pane(f"env {unset} {assignments} {chat}; echo EXIT=$?; sleep 60")
        self.panes.append(pane)
        return pane

    def close(self) -> None:
        for pane in self.panes:
            pane.close()


@pytest.fixture
def panes(tmp_path: Path) -> Iterator[Panes]:
    started = Panes(tmp_path / "home")
    try:
        yield started
    finally:
        started.close()


@pytest.fixture
def pane(panes: Panes) -> Pane:
    return panes.start(PANELOT_PROVIDER="scripted")


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


def test_ctrl_d_while_a_turn_runs_interrupts_it_first(
    panes: Panes, model_server: SSEServer
) -> None:
    model_server.add(text_reply("Working on it", HANG))
    pane = panes.start("--model", "slow-model", OPENAI_BASE_URL=model_server.url + "/v1")
    pane.wait_for("\nyou>")
    pane.keys("go", "Enter")
    pane.wait_for("Working on it")
    pane.keys("C-d")
    screen = pane.wait_for("EXIT=")
    assert "= interrupted" in screen
    assert "EXIT=4" in screen  # the turn was interrupted
    assert model_server.closed_at  # the model's stream was closed, not left running


def test_steering_typed_while_the_reply_streams_stays_out_of_the_reply(
    panes: Panes, model_server: SSEServer
) -> None:
    model_server.add(
        text_reply("alpha ", Delay(2.0), "beta gamma"),
        text_reply("Steered."),
    )
    pane = panes.start("--model", "local-model", OPENAI_BASE_URL=model_server.url + "/v1")
    pane.wait_for("\nyou>")
    pane.keys("go", "Enter")
    pane.wait_for("alpha")
    pane.keys("be brief", "Enter")  # typed while the reply streams
    screen = pane.wait_for("Steered.")
    screen = pane.wait_for("= completed")
    lines = screen.splitlines()
    assert "alpha beta gamma" in lines  # the reply's line is whole
    steering = [line for line in lines if "be brief" in line]
    assert steering and all(line.strip().startswith("(steering") for line in steering), screen
    assert "be brief" in str(requests_of(model_server)[1]["messages"])


def test_help_lists_the_commands_and_unknown_commands_stay_local(
    panes: Panes, model_server: SSEServer
) -> None:
    pane = panes.start("--model", "paid-model", OPENAI_BASE_URL=model_server.url + "/v1")
    pane.wait_for("\nyou>")
    pane.keys("/help", "Enter")
    screen = pane.wait_for("/decline")
    assert "/quit" in screen and "/exit" in screen and "//text" in screen
    pane.keys("/frobnicate now", "Enter")
    pane.wait_for("unknown command: /frobnicate not sent · /help lists the commands")
    pane.keys("/decline", "Enter")
    pane.wait_for("no question from the agent waits: /decline not sent")
    pane.keys("C-d")
    pane.wait_for("EXIT=0")
    assert model_server.requests == []  # nothing reached the model
