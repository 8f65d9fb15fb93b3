"""``chat()`` end to end in process: a real host and store, stdin a real pipe."""

from __future__ import annotations

import io
from pathlib import Path

import anyio
import pytest
from tests.cli.chat_driver import Keyboard, Screen, run_chat

from panelot_host.cli.chat import ChatIO, ChatOptions, chat
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import Hang, ScriptedProvider, Stop, Text, Thinking, ToolCall
from panelot_host.providers.types import Usage
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host

pytestmark = pytest.mark.anyio


def thread_id_in(screen: Screen) -> str:
    marker = "panelot-host chat --thread "
    text = screen.getvalue()
    start = text.index(marker) + len(marker)
    return text[start:].split()[0]


async def test_a_prompt_streams_the_reply_and_reports_the_turn(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo
) -> None:
    provider.add(
        [
            Thinking("pondering"),
            Text("Hello there, friend", chunks=3),
            Stop("end_turn", usage=Usage(10, 5)),
        ]
    )
    screen = Screen()
    status = await run_chat(ChatOptions(prompt="hi"), home, provider, model_info, screen=screen)
    out = screen.getvalue()
    assert status == 0, out
    assert "panelot · scripted-model · thread thr_" in out
    assert "you> hi" in out
    assert "thinking: pondering\nHello there, friend\n" in out
    assert "= completed (end_turn) · 10 in, 5 out" in out
    assert thread_id_in(screen).startswith("thr_")


async def test_a_thread_continues_with_thread_id_and_with_resume(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo
) -> None:
    provider.add([Text("First answer")], [Text("Second answer")], [Text("Third answer")])
    first = Screen()
    assert await run_chat(ChatOptions(prompt="one"), home, provider, model_info, screen=first) == 0
    thread_id = thread_id_in(first)

    again = Screen()
    options = ChatOptions(prompt="two", thread=thread_id)
    assert await run_chat(options, home, provider, model_info, screen=again) == 0
    assert thread_id_in(again) == thread_id
    recap, _, rest = again.getvalue().partition("= completed")  # the recap comes first
    assert "you> one" in recap and "First answer" in recap
    assert "Second answer" in recap + rest

    latest = Screen()
    resumed = ChatOptions(prompt="three", resume=True)
    assert await run_chat(resumed, home, provider, model_info, screen=latest) == 0
    assert thread_id_in(latest) == thread_id
    assert "Third answer" in latest.getvalue()


async def test_an_unknown_thread_is_an_error_with_status_1(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo
) -> None:
    errors = io.StringIO()
    options = ChatOptions(thread="thr_missing")
    status = await run_chat(options, home, provider, model_info, stderr=errors)
    assert status == 1
    assert "cannot open thread thr_missing" in errors.getvalue()


async def test_no_provider_configured_exits_2_naming_the_variable(home: Path) -> None:
    errors, screen = io.StringIO(), Screen()
    terminal = ChatIO(None, screen, errors, {})
    config = HostConfig(home=home, environ={}, lease_wait_s=0.5)
    status = await chat(ChatOptions(prompt="hi"), terminal, lambda: Host(config))
    assert status == 2
    assert "ANTHROPIC_API_KEY" in errors.getvalue()
    assert "OPENAI_BASE_URL" in errors.getvalue()  # how to use a local server
    assert "thread" not in screen.getvalue()  # nothing started


async def test_ask_user_is_answered_at_the_prompt(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo
) -> None:
    question = {"question": "Which color?", "options": ["red", "blue"]}
    provider.add([ToolCall("ask_user", question)], [Text("Blue it is.")])
    keyboard, screen = Keyboard(), Screen()
    try:
        async with anyio.create_task_group() as tasks:

            async def converse() -> None:
                options = ChatOptions(prompt="paint it")
                stdin = keyboard.stdin
                assert (
                    await run_chat(options, home, provider, model_info, stdin=stdin, screen=screen)
                    == 0
                )

            tasks.start_soon(converse)
            seen = await screen.wait_for("? Which color?")
            seen = await screen.wait_for("1) red  2) blue", after=seen)
            keyboard.type("purple")  # not an option: asked again
            seen = await screen.wait_for("pick a number or one of: red, blue", after=seen)
            keyboard.type("2")
            await screen.wait_for("succeeded: The user answered: blue", after=seen)
            await screen.wait_for("Blue it is.", after=seen)
            await screen.wait_for("= completed", after=seen)
            keyboard.close()
    finally:
        keyboard.dispose()
    tool_results = repr(provider.requests[-1].messages)
    assert "The user answered: blue" in tool_results


async def test_the_end_of_input_interrupts_a_turn_that_waits_for_an_answer(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo
) -> None:
    provider.add([ToolCall("ask_user", {"question": "Your name?"})])
    screen = Screen()
    status = await run_chat(ChatOptions(prompt="hi"), home, provider, model_info, screen=screen)
    out = screen.getvalue()
    assert status == 4, out  # the turn was interrupted
    assert "? Your name?" in out
    assert "interrupting the turn" in out
    assert "= interrupted" in out


async def test_quitting_while_a_turn_runs_interrupts_it_and_leaves_the_thread_idle(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo
) -> None:
    provider.add([Text("Working on it"), Hang()])
    keyboard, screen = Keyboard(), Screen()
    try:
        async with anyio.create_task_group() as tasks:

            async def converse() -> None:
                stdin = keyboard.stdin
                options = ChatOptions(prompt="start")
                assert (
                    await run_chat(options, home, provider, model_info, stdin=stdin, screen=screen)
                    == 4  # quitting interrupted the turn
                )

            tasks.start_soon(converse)
            await screen.wait_for("Working on it")
            keyboard.type("/quit")
    finally:
        keyboard.dispose()
    # quitting ended the running turn, so the thread is idle for the next chat
    assert "= interrupted" in screen.getvalue()
    provider.add([Text("Fresh turn")])
    again = Screen()
    options = ChatOptions(prompt="next", resume=True)
    assert await run_chat(options, home, provider, model_info, screen=again) == 0
    assert "Fresh turn" in again.getvalue()
