"""``panelot-host chat "..." </dev/null > answer.txt`` against a fake OpenAI-compatible
server on loopback: only the answer on stdout, everything else on stderr, and an exit
status that says how the turn ended (docs/chat.md)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from tests.cli.fake_openai import (
    CHAT,
    HANG,
    SSEServer,
    error_reply,
    host_env,
    requests_of,
    text_reply,
    tool_reply,
)


def run_chat(*args: str, env: dict[str, str], stdout: Path) -> subprocess.CompletedProcess[str]:
    with stdout.open("w") as answer:
        return subprocess.run(
            [*CHAT, *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=answer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )


def test_only_the_answer_goes_to_stdout_and_model_alone_is_enough(
    tmp_path: Path, model_server: SSEServer
) -> None:
    model_server.add(text_reply("- one\n", "- two\n", "- three"))
    answer = tmp_path / "answer.txt"
    done = run_chat(
        "--model",
        "llama-test",
        "Summarise the plan in three bullets",
        env=host_env(tmp_path / "home", model_server),
        stdout=answer,
    )
    assert done.returncode == 0, done.stderr
    assert answer.read_text() == "- one\n- two\n- three\n"
    assert "panelot · llama-test · thread thr_" in done.stderr
    assert "resume with: panelot-host chat --thread thr_" in done.stderr
    assert "you> Summarise the plan in three bullets" in done.stderr
    assert "= completed (end_turn) · 12 in, 5 out · cost unknown" in done.stderr
    assert "$0.0000" not in done.stderr
    assert [r["model"] for r in requests_of(model_server)] == ["llama-test"]


def test_a_failed_turn_exits_3(tmp_path: Path, model_server: SSEServer) -> None:
    model_server.add(error_reply(400, "model 'nope' not found"))
    answer = tmp_path / "answer.txt"
    env = host_env(tmp_path / "home", model_server)
    done = run_chat("--model", "nope", "hello", env=env, stdout=answer)
    assert done.returncode == 3, done.stderr
    assert answer.read_text() == ""
    assert "= failed (provider:" in done.stderr and "not found" in done.stderr
    assert "cost unknown" in done.stderr and "$0.0000" not in done.stderr


def test_retries_are_announced_once(tmp_path: Path, model_server: SSEServer) -> None:
    model_server.add(
        *[error_reply(429, "slow down", retry_after="0") for _ in range(3)],
        text_reply("Made it."),
    )
    answer = tmp_path / "answer.txt"
    env = host_env(tmp_path / "home", model_server)
    done = run_chat("--model", "busy-model", "hello", env=env, stdout=answer)
    assert done.returncode == 0, done.stderr
    assert answer.read_text() == "Made it.\n"
    assert done.stderr.count("retrying") == 1, done.stderr
    assert len(model_server.requests) == 4


def test_each_model_call_announces_its_own_retries_once(
    tmp_path: Path, model_server: SSEServer
) -> None:
    busy = [error_reply(503, "overloaded", retry_after="0") for _ in range(2)]
    model_server.add(
        *busy,
        tool_reply("no_such_tool", {}),  # an error result the model corrects from
        *busy,
        text_reply("Done."),
    )
    answer = tmp_path / "answer.txt"
    env = host_env(tmp_path / "home", model_server)
    done = run_chat("--model", "busy-model", "hello", env=env, stdout=answer)
    assert done.returncode == 0, done.stderr
    assert answer.read_text() == "Done.\n"
    assert done.stderr.count("retrying") == 2, done.stderr  # one line per model call


@pytest.mark.anyio
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
async def test_an_interrupted_turn_exits_4(tmp_path: Path, model_server: SSEServer) -> None:
    model_server.add(text_reply("Working on it", HANG))
    env = host_env(tmp_path / "home", model_server)
    command = [*CHAT, "--model", "slow-model", "do the long thing"]
    async with await anyio.open_process(command, env=env, stdin=subprocess.DEVNULL) as process:
        assert process.stdout is not None and process.stderr is not None
        seen = b""
        with anyio.fail_after(30):
            while b"Working on it" not in seen:
                seen += await process.stdout.receive()
            process.send_signal(signal.SIGINT)
            status = await process.wait()
        errors = b""
        async for chunk in process.stderr:
            errors += chunk
    assert status == 4, errors.decode()
    assert b"= interrupted" in errors
    assert seen.decode().strip() == "Working on it"
