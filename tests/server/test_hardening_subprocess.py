"""No input kills the real ``panelot-host serve``; one connection serves slow and fast
requests side by side; a client that stops reading does not grow the host (issue 11)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from tests.support.wire_client import HostProcess, initialize_params

pytestmark = pytest.mark.slow


@pytest.fixture
def host_proc(tmp_path: Path):  # type: ignore[no-untyped-def]
    proc = HostProcess(tmp_path / "home")
    yield proc
    proc.kill()


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize(
    "template",
    [
        b'{"jsonrpc":"2.0","id":5,"method":"thread.list","params":{"query":%s}}',
        b'{"jsonrpc":"2.0","id":5,"method":"thread.list","params":{},"extra":%s}',
        b'{"jsonrpc":"2.0","method":"thread.list","params":%s,"id":5}',
        b'{"jsonrpc":"2.0","id":%s,"method":"thread.list"}',
        b'{"jsonrpc":"2.0","id":5,"result":%s}',
        b'{"jsonrpc":"2.0","method":"note","params":{"x":%s}}',
        b"%s",
    ],
)
@pytest.mark.parametrize("before_initialize", [True, False])
def test_deep_nesting_anywhere_is_answered_and_the_host_keeps_serving(
    host_proc: HostProcess, template: bytes, before_initialize: bool
) -> None:
    if not before_initialize:
        host_proc.call("initialize", initialize_params())
    host_proc.send_frame(template % _nested(1000))
    if template.startswith(b'{"jsonrpc":"2.0","id":5,"result"'):
        pass  # a response to no request of ours: logged and dropped, never answered
    else:
        error = host_proc.next_message()["error"]
        assert error["code"] == -32600 and "nested deeper" in error["message"]
    if before_initialize:
        host_proc.call("initialize", initialize_params())
    assert host_proc.call("thread.list", {})["result"]["threads"] == []
    host_proc.close_stdin()
    assert host_proc.wait(5) == 0


def test_a_deep_request_is_answered_with_its_own_id(host_proc: HostProcess) -> None:
    host_proc.call("initialize", initialize_params())
    frame = b'{"jsonrpc":"2.0","id":"deep-1","method":"thread.list","params":{"query":%s}}'
    host_proc.send_frame(frame % _nested(5000))
    assert host_proc.next_message()["id"] == "deep-1"


def test_a_malformed_response_is_dropped_not_answered(host_proc: HostProcess) -> None:
    host_proc.call("initialize", initialize_params())
    host_proc.send_frame(b'{"jsonrpc":"2.0","id":99,"result":1,"error":{"code":1}}')
    host_proc.send_frame(b'{"jsonrpc":"2.0","id":98,"error":{"code":"x"}}')
    listed = host_proc.call("thread.list", {})
    assert listed["id"] == 1 + 1 and host_proc.events == []  # nothing else came back


def test_an_unknown_method_name_is_not_echoed_whole(host_proc: HostProcess) -> None:
    host_proc.call("initialize", initialize_params())
    answer = host_proc.call("x" * 1_000_000, {})
    assert answer["error"]["code"] == -32601
    assert len(answer["error"]["message"]) < 300


def test_a_slow_op_does_not_stall_a_fast_one(host_proc: HostProcess) -> None:
    """``settings.update`` with an MCP server that takes seconds to start blocks only the
    configuration ops; a ``thread.list`` sent after it is answered first."""
    host_proc.call("initialize", initialize_params())
    slow_server = {
        "command": "python3",
        "args": ["-c", "import time; time.sleep(30)"],
    }
    slow = host_proc.send(
        "settings.update", {"commandId": "s1", "mcpServers": {"slow": slow_server}}
    )
    fast = host_proc.send("thread.list", {})
    first = host_proc.next_message(timeout=20)
    while "method" in first:  # authority.widened: the new server runs a command as the user
        assert first["method"] == "authority.widened", first
        first = host_proc.next_message(timeout=20)
    assert first.get("id") == fast, first
    assert host_proc.response_to(slow, timeout=30)["id"] == slow


def test_a_client_that_stops_reading_does_not_grow_the_host(tmp_path: Path) -> None:
    """Requests keep coming while nothing is read: the host stops reading them once a few
    MB of answers are queued, and answers every one once the client drains."""
    proc = HostProcess(tmp_path / "home", pause_reading=True)
    threads, total = 20, 5_000  # about 30 MB of answers: far over the host's bound
    sent = [0]

    def write_all() -> None:
        proc.send("initialize", initialize_params())
        for n in range(threads):
            proc.send("thread.create", {"commandId": f"t{n}", "title": "x" * 200})
        for _ in range(total):
            proc.send("thread.list", {})
            sent[0] += 1

    writer = threading.Thread(target=write_all, daemon=True)
    try:
        writer.start()
        last, stable_since = -1, time.monotonic()
        while time.monotonic() - stable_since < 1.5 and writer.is_alive():
            time.sleep(0.1)
            if sent[0] != last:
                last, stable_since = sent[0], time.monotonic()
        assert writer.is_alive() and sent[0] < total, "the host read every request unanswered"
        rss_mb = _rss_mb(proc.proc.pid)
        assert rss_mb < 150, f"{rss_mb:.0f} MB with {sent[0]} requests unread"
        proc.resume_reading()
        ids = {proc.next_message(timeout=60)["id"] for _ in range(total + threads + 1)}
        assert ids == set(range(1, total + threads + 2))
        writer.join(10)
    finally:
        proc.kill()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_a_stop_signal_settles_like_stdin_eof(host_proc: HostProcess) -> None:
    host_proc.call("initialize", initialize_params())
    os.kill(host_proc.proc.pid, signal.SIGTERM)
    assert host_proc.wait(5) == 0


def test_an_unexpected_exception_is_logged_whole_and_exits_1(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proc = HostProcess(home, env={"PANELOT_FAILPOINTS": "unexpected_exception"})
    try:
        proc.call("initialize", initialize_params())
        os.kill(proc.proc.pid, signal.SIGUSR1)
        assert proc.wait(5) == 1
        log = (home / "logs" / "host.log").read_text()
        assert "InjectedCrash" in log and "Traceback" in log
    finally:
        proc.kill()
