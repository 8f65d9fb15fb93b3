"""The kill -9 torture harness in CI: a small N with no failpoint must find nothing, and each
failpoint (a bug put in on purpose) must be caught by the check of its class."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.torture.harness import run_torture

from panelot_host.providers.directives import STEERING_SEEN, parse_directives, respond
from panelot_host.providers.scripted import Pause, Stop, Text, ToolCall
from panelot_host.providers.types import (
    AssistantMessage,
    ModelRequest,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)

TOOLS = [ToolSpec("browser_read", "read", {"type": "object"})]


def _user(text: str) -> UserMessage:
    return UserMessage([TextPart(text)])


def _request(*messages: UserMessage | AssistantMessage | ToolResultMessage) -> ModelRequest:
    return ModelRequest(model="scripted", system="", messages=list(messages), tools=TOOLS)


def test_directives_play_one_tool_call_per_model_call_then_list_the_steering() -> None:
    turn = _user('go [[pace 0.01]] [[browser_read {"tabId": 2}]] [[browser_click]] [[text ok]]')
    first = respond(_request(turn))
    assert [type(s) for s in first] == [Pause, ToolCall, Pause, Stop]
    assert first[1] == ToolCall("browser_read", {"tabId": 2})
    call = AssistantMessage([ToolCallPart("c1", "browser_read", {"tabId": 2})])
    result = ToolResultMessage("c1", "browser_read", [TextPart("page")])
    second = respond(_request(turn, call, result, _user("steer#1")))
    assert second[1] == ToolCall("browser_click", {})
    call2 = AssistantMessage([ToolCallPart("c2", "browser_click", {})])
    result2 = ToolResultMessage("c2", "browser_click", [TextPart("clicked")])
    final = respond(_request(turn, call, result, _user("steer#1"), call2, result2))
    text = "".join(s.text for s in final if isinstance(s, Text))
    assert text == "ok | " + STEERING_SEEN + '["steer#1"]'
    stop = final[-1]
    assert isinstance(stop, Stop) and stop.usage.input_tokens == 120


def test_a_new_turn_starts_from_its_own_message_and_no_tools_means_an_answer() -> None:
    old = _user("[[browser_read]]")
    answer = AssistantMessage([TextPart("done")])
    script = respond(_request(old, answer, _user("[[text second]]")))
    assert [type(s) for s in script] == [Text, Text, Stop]
    no_tools = ModelRequest(model="m", system="", messages=[_user("[[browser_read]]")])
    assert not any(isinstance(s, ToolCall) for s in respond(no_tools))
    assert [d.verb for d in parse_directives("[[a 1]] x [[b]]")] == ["a", "b"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_random_kills_break_nothing(tmp_path: Path, seed: int) -> None:
    report = run_torture(8, seed, home=tmp_path / "home")
    assert report.violations == [], report.summary()
    assert report.kills_survived == 8
    assert report.acks_checked > 10 and report.requests_checked > 5 and report.executions > 5


FAILPOINT_CASES = [
    # failpoint, where kills land, the check that must catch it
    ("ack_before_commit", "steer_ack", "ack_lost"),
    ("split_result_state", "invoke_answered", "tool_result"),
    ("rerun_write", "write_invoked", "write_twice"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("failpoint", "trigger", "kind"), FAILPOINT_CASES)
def test_each_failpoint_is_caught(tmp_path: Path, failpoint: str, trigger: str, kind: str) -> None:
    report = run_torture(6, 7, [failpoint], tmp_path / "home", triggers=[trigger])
    assert kind in report.kinds(), report.summary()
    assert report.kills_survived < report.kills
