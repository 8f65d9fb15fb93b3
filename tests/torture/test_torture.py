"""The kill -9 torture harness in CI: a small N with no failpoint must find nothing, and each
failpoint (a bug put in on purpose) must be caught by the check of its class."""

from __future__ import annotations

import sqlite3
import typing
from contextlib import closing
from pathlib import Path

import msgspec
import pytest
from tests.torture.harness import DB_PATH, Torture, run_torture
from tests.torture.killer import KillPlan
from tests.torture.ledger import EXPECTED_KINDS

from panelot_host.protocol.common import ErrorKind
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


def test_the_errors_the_workload_tolerates_are_protocol_error_kinds() -> None:
    assert set(typing.get_args(ErrorKind)) >= EXPECTED_KINDS


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_random_kills_break_nothing(tmp_path: Path, seed: int) -> None:
    report = run_torture(8, seed, home=tmp_path / "home")
    assert report.violations == [], report.summary()
    assert report.kills_survived == 8
    assert report.acks_checked > 10 and report.requests_checked > 5 and report.executions > 5


@pytest.mark.slow
@pytest.mark.parametrize("trigger", ["write_invoked", None])
def test_unexpected_exceptions_break_nothing(tmp_path: Path, trigger: str | None) -> None:
    """The fourth way to die: an unexpected exception in the host (the ``unexpected_exception``
    failpoint on SIGUSR1) settles like EOF: no Turn fails as ``internal``, a write in
    flight is left ``uncertain``, every acknowledged command survives."""
    triggers = [trigger] if trigger else None
    report = run_torture(6, 11, home=tmp_path / "home", triggers=triggers, crash=True)
    assert report.violations == [], report.summary()
    assert report.kills_survived == 6


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


def _tampered(torture: Torture, sql: str) -> set[str]:
    """The violation kinds the checks report after ``sql`` changed the killed host's store."""
    with closing(sqlite3.connect(torture.home / DB_PATH)) as conn, conn:
        conn.execute(sql)
    before = len(torture.ledger.violations)
    torture.check()
    return {v.kind for v in torture.ledger.violations[before:]}


@pytest.mark.slow
def test_the_other_checks_see_a_tampered_store(tmp_path: Path) -> None:
    torture = Torture(3, (), tmp_path / "home")
    for _ in range(2):
        torture.round(KillPlan("action", 14, 0.1), fallback_s=3.0)
        torture.ledger.kill_no += 1
    torture.check()
    assert torture.ledger.violations == []
    assert "usage" in _tampered(torture, "UPDATE thread SET turns = turns + 1")
    assert "receipt_missing" in _tampered(
        torture, "DELETE FROM command_receipt WHERE method = 'thread.create'"
    )
    assert "ack_lost" in _tampered(torture, "DELETE FROM turn")
    assert "tool_result" in _tampered(torture, "UPDATE item SET result = NULL")
    with torture.requests.path.open("ab") as log:
        orphan = ModelRequest("m", "", [ToolResultMessage("c9", "browser_read", [])])
        log.write(msgspec.json.encode(orphan) + b"\n")
    torture.requests.check_new(torture.violation)
    assert torture.ledger.violations[-1].kind == "request"
    _corrupt(torture.home / DB_PATH)
    torture.check()
    assert torture.ledger.violations[-1].kind == "integrity"


def _corrupt(db: Path) -> None:
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    data[4096 * 2 : 4096 * 4] = b"\xa5" * (4096 * 2)
    db.write_bytes(bytes(data))
