"""The real ``panelot-host serve`` over pipes: frames, bad input, EOF, launch rules."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.support.wire_client import HostProcess, initialize_params

from panelot_host.cli.config import ORIGINS_FILE

pytestmark = pytest.mark.slow


def test_serve_initializes_creates_and_exits_zero_on_eof(host_proc: HostProcess) -> None:
    init = host_proc.call("initialize", initialize_params())
    assert init["result"]["protocolVersion"] == 1
    created = host_proc.call("thread.create", {"commandId": "c1", "title": "Over pipes"})
    thread_id = created["result"]["thread"]["id"]
    opened = host_proc.call("thread.open", {"threadId": thread_id})
    assert opened["result"]["thread"]["title"] == "Over pipes"
    started = time.monotonic()
    host_proc.close_stdin()
    assert host_proc.wait(5) == 0
    assert time.monotonic() - started < 2.0
    assert host_proc.stdout_garbage == b""


def test_every_bad_frame_is_answered_and_the_host_stays_up(host_proc: HostProcess) -> None:
    host_proc.call("initialize", initialize_params())
    host_proc.send_frame(b"\xff\xfe not utf-8")
    assert host_proc.next_message()["error"]["code"] == -32700
    host_proc.send_frame(b'{"jsonrpc": "2.0", "id": 1, ')
    assert host_proc.next_message()["error"]["code"] == -32700
    host_proc.send_frame(b"[1, 2, 3]")
    assert host_proc.next_message()["error"]["code"] == -32600
    host_proc.send_frame(b'{"hello": "world"}')
    assert host_proc.next_message()["error"]["code"] == -32600
    host_proc.send_frame(b'{"jsonrpc": "2.0", "id": 7, "method": 12}')
    bad = host_proc.next_message()
    assert bad["error"]["code"] == -32600 and bad["id"] == 7
    # an absurd declared length, followed by a good frame after resynchronisation
    host_proc.write_raw(struct.pack("=I", 0xFFFFFFF0) + b"garbage")
    error = host_proc.next_message()
    assert error["method"] == "$/error" and error["params"]["kind"] == "frame_too_large"
    assert error["params"]["code"] == -32011  # too_large (protocol.md section 3)
    listed = host_proc.call("thread.list", {})
    assert listed["result"]["threads"] == []


def test_truncated_frame_at_eof_is_reported_then_clean_exit(host_proc: HostProcess) -> None:
    host_proc.call("initialize", initialize_params())
    host_proc.write_raw(struct.pack("=I", 100) + b'{"jsonrpc"')
    host_proc.close_stdin()
    error = host_proc.next_message()
    assert error["method"] == "$/error" and error["params"]["kind"] == "truncated_frame"
    assert error["params"]["code"] == -32700
    assert host_proc.wait(5) == 0


def test_messages_over_one_mebibyte_go_out_as_chunks(tmp_path: Path) -> None:
    proc = HostProcess(tmp_path / "home", env={"PANELOT_PROVIDER": "scripted"})
    try:
        proc.call("initialize", initialize_params())
        thread_id = proc.call("thread.create", {"commandId": "c"})["result"]["thread"]["id"]
        big = '\u4e2d\u6587 "q" ' * 112_500  # 900,000 characters (limit 1,000,000), 2.3 MB
        turn = proc.call("turn.submit", {"commandId": "s", "threadId": thread_id, "text": big})
        turn_id = turn["result"]["turnId"]
        while not any(
            e.get("method") == "turn.complete" and e["params"]["turnId"] == turn_id
            for e in proc.events
        ):
            proc.events.append(proc.next_message(timeout=20))
        opened = proc.call("thread.open", {"threadId": thread_id}, timeout=20)["result"]
        assert [i["text"] for i in opened["items"]] == [big, f"You said: {big}"]
        assert all(len(frame) - 4 <= 1024 * 1024 for frame in proc.raw_frames)
        chunks = [f for f in proc.raw_frames if b'"method":"$/chunk"' in f[4:64]]
        assert len(chunks) >= 6  # the user item, the echo and the snapshot, each in pieces
    finally:
        proc.kill()


def test_profiles_keep_their_threads_apart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = HostProcess(home)
    try:
        first.call("initialize", initialize_params("profileA"))
        first.call("thread.create", {"commandId": "c", "title": "only in A"})
        first.close_stdin()
        assert first.wait() == 0
    finally:
        first.kill()
    second = HostProcess(home)
    try:
        second.call("initialize", initialize_params("profileB"))
        assert second.call("thread.list", {})["result"]["threads"] == []
    finally:
        second.kill()
    assert (home / "profiles" / "profileA" / "panelot.db").exists()


def _run_with_origin(
    home: Path, origin: str, env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "panelot_host", origin],
        input=b"",
        capture_output=True,
        env={**os.environ, "PANELOT_HOME": str(home), **env},
        timeout=20,
    )


def test_origin_not_allowed_is_refused_on_stderr(tmp_path: Path) -> None:
    done = _run_with_origin(tmp_path, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/", {})
    assert done.returncode != 0
    assert done.stdout == b""
    assert b"refusing to serve chrome-extension://abcdefghijklmnopabcdefghijklmnop/" in done.stderr
    assert b"allowed-origins.json" in done.stderr and b"PANELOT_ALLOWED_ORIGINS" in done.stderr


def test_allowed_origin_is_served(tmp_path: Path) -> None:
    origin = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"
    # the file a user (or an administrator) writes: a JSON list of origins
    (tmp_path / ORIGINS_FILE).write_text(json.dumps([origin]), "utf-8")
    done = _run_with_origin(tmp_path, origin, {})
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""


def test_second_host_on_the_same_profile_waits_then_refuses(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = HostProcess(home)
    second = HostProcess(home)
    try:
        first.call("initialize", initialize_params())
        reply = second.call("initialize", initialize_params(), timeout=15)
        assert "error" in reply
        assert "another panelot-host process" in reply["error"]["message"]
    finally:
        first.kill()
        second.kill()


def test_a_turn_runs_over_pipes_with_the_echo_model(tmp_path: Path) -> None:
    proc = HostProcess(tmp_path / "home", env={"PANELOT_PROVIDER": "scripted"})
    try:
        proc.call("initialize", initialize_params())
        thread_id = proc.call("thread.create", {"commandId": "c"})["result"]["thread"]["id"]
        submitted = proc.call(
            "turn.submit", {"commandId": "s", "threadId": thread_id, "text": "ping over pipes"}
        )
        turn_id = submitted["result"]["turnId"]
        deadline = time.monotonic() + 10
        while not any(
            e.get("method") == "turn.complete" and e["params"]["turnId"] == turn_id
            for e in proc.events
        ):
            assert time.monotonic() < deadline, proc.events
            proc.events.append(proc.next_message())
        complete = next(e for e in proc.events if e.get("method") == "turn.complete")
        assert complete["params"]["status"] == "completed"
        seqs = [e["params"]["seq"] for e in proc.events if "seq" in e.get("params", {})]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        opened = proc.call("thread.open", {"threadId": thread_id})["result"]
        assert "ping over pipes" in opened["items"][-1]["text"]
        proc.close_stdin()
        assert proc.wait(5) == 0
    finally:
        proc.kill()
