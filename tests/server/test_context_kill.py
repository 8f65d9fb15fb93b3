"""Context that always fits (issue 17), killed for real: the ``panelot-host serve``
subprocess over pipes against a fake Anthropic API on loopback that enforces a 100k-token
window and records every request body; the test plays the shim. The host is SIGKILLed
while a model call (or a compaction's summary call) is in flight, restarted on the same
profile and resumed: the request it sends again is the same bytes, the store kept every
item, and a killed compaction left nothing half-written."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tests.support.context_session import BROWSER_TOOLS, WINDOW, BrowsingShim
from tests.support.windowed_anthropic import WindowedAnthropic
from tests.torture.client import HostClient

from panelot_host.store.profiles import database_path

MODEL = "claude-sonnet-4-5"
STEP_CHARS = 6_000  # the model's own words per step: compactions come every ~35 steps

Row = tuple[Any, ...]


@pytest.fixture
def server() -> Iterator[WindowedAnthropic]:
    fake = WindowedAnthropic(steps=0, step_chars=STEP_CHARS)
    fake.start()
    yield fake
    fake.stop()


def _shim(browsing: BrowsingShim) -> Callable[[HostClient, dict[str, Any]], None]:
    def answer(client: HostClient, message: dict[str, Any]) -> None:
        result = browsing.answer(message["method"], message.get("params") or {})
        client.answer(message["id"], result)

    return answer


class Session:
    """One ``panelot-host serve`` on ``home`` talking to ``server``."""

    def __init__(self, home: Path, server: WindowedAnthropic, browsing: BrowsingShim) -> None:
        env = {
            "PANELOT_PROVIDER": "anthropic",
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "sk-ant-test-key",
            "PANELOT_MODEL": MODEL,
        }
        home.mkdir(parents=True, exist_ok=True)
        self.client = HostClient(home, env, _shim(browsing))
        init = {"protocolVersion": 1, "client": {"name": "pytest", "version": "0"},
                "capabilities": {"browserTools": BROWSER_TOOLS}}  # fmt: skip
        self.client.call("initialize", init, timeout=30)

    def wait_for(self, method: str, within_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            event = self.client.next_event(max(deadline - time.monotonic(), 0.01))
            if event is not None and event.get("method") == method:
                params: dict[str, Any] = event["params"]
                return params
        raise AssertionError(f"no {method} within {within_s} s")

    def kill(self) -> None:
        self.client.kill()
        self.client.reap()

    def close(self) -> None:
        assert self.client.close_gracefully() == 0


def _start_session(
    home: Path, server: WindowedAnthropic, browsing: BrowsingShim
) -> tuple[Session, str]:
    session = Session(home, server, browsing)
    limits = {MODEL: {"contextWindow": WINDOW, "maxOutputTokens": 8_192}}
    session.client.call("settings.update", {"commandId": "lim", "modelLimits": limits})
    created = session.client.call("thread.create", {"commandId": "t"})
    thread_id: str = created["thread"]["id"]
    session.client.call(
        "turn.submit", {"commandId": "go", "threadId": thread_id, "text": "Compare the prices"}
    )
    return session, thread_id


def _resume_to_the_end(
    home: Path, server: WindowedAnthropic, browsing: BrowsingShim, thread_id: str
) -> None:
    """Restart the host on ``home``, resume the interrupted run, and see its Turn complete."""
    session = Session(home, server, browsing)
    try:
        opened = session.client.call("thread.open", {"threadId": thread_id})
        assert opened["run"]["state"] == "interrupted", opened["run"]
        run_id = opened["run"]["id"]
        session.client.call(
            "run.resume", {"commandId": "r", "threadId": thread_id, "runId": run_id}
        )
        done = session.wait_for("turn.complete", within_s=120)
        session.close()
    finally:
        session.kill()
    assert done["status"] == "completed", done


def _store(home: Path) -> tuple[list[Row], int, str]:
    """(every item, the usage rows, the integrity check), read straight from the file."""
    conn = sqlite3.connect(database_path(home, None))
    try:
        rows = conn.execute(
            "SELECT id, parent_id, kind, text, result, name, status FROM item ORDER BY ord"
        ).fetchall()
        usage = conn.execute("SELECT count(*) FROM usage").fetchone()[0]
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    return rows, int(usage), str(integrity)


def _wait(event: Any, what: str, within_s: float = 90) -> None:
    assert event.wait(within_s), f"{what} did not happen within {within_s} s"


def _check_pairing(body: dict[str, Any]) -> None:
    """Every tool_use is answered by a tool_result at the start of the next message."""
    messages = body["messages"]
    for index, message in enumerate(messages):
        calls = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
        if not calls:
            continue
        following = messages[index + 1]["content"] if index + 1 < len(messages) else []
        results = [b["tool_use_id"] for b in following if b.get("type") == "tool_result"]
        assert results[: len(calls)] == calls, (index, calls, results)


def test_kill_9_mid_session_resends_the_same_bytes_and_keeps_every_item(
    tmp_path: Path, server: WindowedAnthropic
) -> None:
    home, browsing = tmp_path / "home", BrowsingShim()
    server.steps = 110
    held_once: list[int] = []

    def hold_after_two_compactions(body: dict[str, Any], summary: bool) -> bool:
        compactions = [i for i, r in enumerate(server.seen) if r.summary]
        if summary or held_once or len(compactions) < 2:
            return False
        if b"result elided" not in msgspec.json.encode(body["messages"]):
            return False  # hold one that carries elided page reads
        held_once.append(len(server.seen) - 1)
        return True

    server.hold = hold_after_two_compactions
    session, thread_id = _start_session(home, server, browsing)
    try:
        _wait(server.held, "a model call after two compactions")
        held = server.seen[held_once[0]]
        before, _, _ = _store(home)
    finally:
        session.kill()  # SIGKILL while the call is in flight
    server.hold = None
    after_kill, _, integrity = _store(home)
    assert integrity == "ok" and after_kill == before

    _resume_to_the_end(home, server, browsing, thread_id)

    resent = server.seen[held_once[0] + 1]
    assert not resent.summary
    assert resent.raw == held.raw  # byte for byte what the killed host was sending
    assert b"result elided" in held.raw and b"[Summary of the earlier part" in held.raw
    # the session went on to the end within the window, with more elision and compaction
    assert server.rejected == 0
    assert max(r.size.total for r in server.seen) <= WINDOW
    assert len(server.summaries) >= 3
    for recorded in server.main:
        _check_pairing(recorded.body)
    # the store kept every item it had, unchanged, and every step's call and result
    final, _, integrity = _store(home)
    assert integrity == "ok"
    assert final[: len(before)] == before
    calls = [row for row in final if row[2] == "toolCall"]
    assert len(calls) == server.steps and all(row[4] and row[6] == "succeeded" for row in calls)
    snapshots = [msgspec.json.decode(row[4]) for row in calls if row[5] == "browser_snapshot"]
    assert all(len(s["content"]) >= 20_000 for s in snapshots)
    assert [row[2] for row in final].count("compaction") == len(server.summaries)


def test_kill_9_during_a_compaction_leaves_no_half_written_state(
    tmp_path: Path, server: WindowedAnthropic
) -> None:
    home, browsing = tmp_path / "home", BrowsingShim()
    server.steps = 45
    server.hold = lambda body, summary: summary and not server.held.is_set()
    session, thread_id = _start_session(home, server, browsing)
    try:
        _wait(server.held, "a summary call")
        held = server.summaries[0]
        before, usage_before, _ = _store(home)
    finally:
        session.kill()  # SIGKILL while the summary streams
    server.hold = None
    after_kill, usage_after, integrity = _store(home)
    assert integrity == "ok"
    assert after_kill == before and usage_after == usage_before
    assert "compaction" not in [row[2] for row in after_kill]

    _resume_to_the_end(home, server, browsing, thread_id)
    assert server.summaries[1].raw == held.raw  # the summary call, asked again the same
    final, _, _ = _store(home)
    assert final[: len(before)] == before
    kinds = [row[2] for row in final]
    assert kinds.count("compaction") == len(server.summaries) - 1 >= 1
    assert kinds.count("toolCall") == server.steps
