"""A blocking native-messaging client of a real ``panelot-host`` subprocess, for tests."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import msgspec
from tests.support.tabs import ACT_ON_ANY_TAB

from panelot_host.wire.chunking import ChunkAssembler
from panelot_host.wire.framing import MAX_INBOUND_FRAME, encode_frame

_HEADER = struct.Struct("=I")


class HostProcess:
    """``panelot-host`` (or ``python -m panelot_host``) over pipes, speaking frames."""

    def __init__(
        self,
        home: Path,
        *args: str,
        env: dict[str, str] | None = None,
        pause_reading: bool = False,
    ) -> None:
        # the tests of other features act on the tab that is active (issue 26's own tests
        # turn the question before acting on a tab a thread does not own back on)
        environ = {**os.environ, "PANELOT_HOME": str(home), **ACT_ON_ANY_TAB, **(env or {})}
        for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            if env is None or key not in env:
                environ.pop(key, None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "panelot_host", *(args or ("serve",))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environ,
        )
        self._frames: Queue[dict[str, Any] | None] = Queue()
        self._assembler = ChunkAssembler()
        self.raw_frames: list[bytes] = []
        self.stdout_garbage = bytearray()
        self._reading = threading.Event()
        if not pause_reading:
            self._reading.set()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read_loop(self) -> None:
        # Deliberately stricter than ``wire.FrameDecoder``, which resynchronises past
        # garbage: here any byte that is not part of a frame of at most 1 MiB is a failure.
        assert self.proc.stdout is not None
        out = self.proc.stdout
        self._reading.wait()
        while True:
            header = out.read(4)
            if len(header) < 4:
                self.stdout_garbage.extend(header)
                self._frames.put(None)
                return
            (length,) = _HEADER.unpack(header)
            payload = out.read(length)
            self.raw_frames.append(header + payload)
            if len(payload) < length or length > 1024 * 1024:
                self.stdout_garbage.extend(payload)
                self._frames.put(None)
                return
            message = self._assembler.accept(payload)
            if message is not None:
                self._frames.put(msgspec.json.decode(message))

    def resume_reading(self) -> None:
        """Start reading stdout (for a process made with ``pause_reading``)."""
        self._reading.set()

    def write_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_frame(self, payload: bytes) -> None:
        self.write_raw(encode_frame(payload, limit=MAX_INBOUND_FRAME))

    def send(self, method: str, params: Any = None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send_frame(msgspec.json.encode(message))
        return self._next_id

    def next_message(self, timeout: float = 10.0) -> dict[str, Any]:
        try:
            message = self._frames.get(timeout=timeout)
        except Empty:
            raise AssertionError("the host sent nothing in time") from None
        if message is None:
            raise AssertionError(f"the host closed stdout; stderr: {self.stderr_text()}")
        return message

    def call(self, method: str, params: Any = None, timeout: float = 10.0) -> dict[str, Any]:
        """Send a request and return its response, collecting events seen meanwhile."""
        request_id = self.send(method, params)
        return self.response_to(request_id, timeout)

    def response_to(self, request_id: int, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.next_message(max(0.01, deadline - time.monotonic()))
            if message.get("id") == request_id and "method" not in message:
                return message
            self.events.append(message)

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def wait(self, timeout: float = 5.0) -> int:
        return self.proc.wait(timeout)

    def stderr_text(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return "(still running)"
        return self.proc.stderr.read().decode(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def initialize_params(profile_id: str | None = None) -> dict[str, Any]:
    client: dict[str, Any] = {"name": "pytest", "version": "0"}
    if profile_id:
        client["profileId"] = profile_id
    return {"protocolVersion": 1, "client": client}
