"""The real ``panelot-host serve``: what the prelude answers over a pipe is byte for byte
what the async server answers (it serves stdin from a regular file: no prelude there), and
the handover loses nothing, whenever it happens."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.support.wire_client import HostProcess, initialize_params

from panelot_host.protocol.codec import encode_request
from panelot_host.server.prelude import NEXT_REQUEST_WAIT_S
from panelot_host.wire import decode_frames, encode_frame

pytestmark = pytest.mark.slow


def _frames(*requests: tuple[str, Any]) -> bytes:
    return b"".join(
        encode_frame(encode_request(number, method, params))
        for number, (method, params) in enumerate(requests, start=1)
    )


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "PANELOT_HOME": str(home)}
    env.pop("PANELOT_FAILPOINTS", None)
    return env


def _serve(home: Path, **stdin: Any) -> bytes:
    """The host's whole output for ``input=`` (a pipe) or ``stdin=`` (a file)."""
    proc = subprocess.run(
        [sys.executable, "-m", "panelot_host", "serve"],
        **stdin,
        capture_output=True,
        env=_env(home),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stdout


def _threads_made(home: Path) -> str:
    host = HostProcess(home)
    try:
        host.call("initialize", initialize_params())
        made = host.call("thread.create", {"commandId": "c1", "title": "Groceries"})
        host.call("thread.create", {"commandId": "c2", "title": "Taxes 2026"})
        host.close_stdin()
        assert host.wait(10) == 0
    finally:
        host.kill()
    thread_id: str = made["result"]["thread"]["id"]
    return thread_id


def test_the_prelude_answers_exactly_what_the_server_answers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _threads_made(home)
    host = HostProcess(home)
    try:
        # written at once, all three are read before the prelude could stop waiting:
        # it answers them (not the server)
        host.write_raw(
            _frames(
                ("initialize", initialize_params()),
                ("thread.list", {"limit": 50}),
                ("thread.list", {"query": "taxes"}),
            )
        )
        assert [host.next_message()["id"] for _ in range(3)] == [1, 2, 3]
        time.sleep(NEXT_REQUEST_WAIT_S * 10)  # the prelude hands over meanwhile
        host.send("thread.list", {"limit": 50})  # the server's answers (ids 1 and 2 again)
        host.send("thread.list", {"query": "taxes"})
        assert sorted(host.next_message()["id"] for _ in range(2)) == [1, 2]  # any order
        host.close_stdin()
        assert host.wait(10) == 0, host.stderr_text()
    finally:
        host.kill()
    init, listed, found, *later = (f[4:] for f in host.raw_frames)
    listed_later, found_later = sorted(later, key=lambda f: b'"id":2,' in f)  # by id
    assert _result(listed) == _result(listed_later)
    assert _result(found) == _result(found_later)
    assert b"Taxes 2026" in found and b"Groceries" not in found
    # initialize: the server answers it at once, also when reading stdin from a file
    (tmp_path / "frames").write_bytes(_frames(("initialize", initialize_params())))
    with open(tmp_path / "frames", "rb") as file:  # not pollable: no prelude
        served = _serve(home, stdin=file)
    assert decode_frames(served) == [init]


def test_what_arrived_with_the_first_requests_is_served_after_the_handover(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    thread_id = _threads_made(home)
    host = HostProcess(home)
    try:
        host.write_raw(
            _frames(
                ("initialize", initialize_params()),
                ("thread.list", {"limit": 50}),
                ("thread.open", {"threadId": thread_id}),  # ends the prelude
                ("thread.list", {"limit": 1}),
            )
        )
        answers = [host.next_message() for _ in range(4)]
        assert sorted(a["id"] for a in answers) == [1, 2, 3, 4]
        assert all("result" in a for a in answers)
        host.close_stdin()
        assert host.wait(10) == 0, host.stderr_text()
    finally:
        host.kill()
    assert host.stdout_garbage == b""


def _result(payload: bytes) -> bytes:
    """A response's bytes after its id."""
    head, result = payload.split(b',"result":', 1)
    assert head.startswith(b'{"jsonrpc":"2.0","id":')
    return result


def test_a_request_after_the_handover_is_answered_as_the_prelude_answered_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    _threads_made(home)
    host = HostProcess(home)
    try:
        host.call("initialize", initialize_params())
        first = host.call("thread.list", {"limit": 50})  # the prelude's answer
        time.sleep(NEXT_REQUEST_WAIT_S * 10)  # the prelude hands over meanwhile
        later = host.call("thread.list", {"limit": 50})  # the server's
        assert later["result"] == first["result"]
        created = host.call("thread.create", {"commandId": "c3", "title": "After"})
        assert "result" in created
        host.close_stdin()
        assert host.wait(10) == 0, host.stderr_text()
    finally:
        host.kill()
    assert host.stdout_garbage == b""
