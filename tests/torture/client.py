"""A threaded client of the real ``panelot-host serve`` that also plays the extension shim.

A reader thread decodes frames; responses go to the request waiting for them, events to a
queue, and the host's ``browser.*`` requests are answered by the ``Shim`` (which records
every ``browser.invoke`` it ran, across host processes). Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import msgspec
from tests.support.tabs import ACT_ON_ANY_TAB

from panelot_host.wire import (
    MAX_INBOUND_FRAME,
    ChunkAssembler,
    FrameDecoder,
    FrameError,
    encode_frame,
)

_EOF: dict[str, Any] = {"eof": True}


class HostDied(Exception):
    """The host process ended (killed) or stopped answering."""


class RpcFailure(Exception):
    """An error response; ``kind`` is its ``data.kind``."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message", ""))
        self.kind: str = str((error.get("data") or {}).get("kind", "unknown"))
        self.code: int = int(error.get("code", 0))


class HostClient:
    """One ``panelot-host serve`` process on ``home``; ``shim`` answers browser requests."""

    def __init__(
        self,
        home: Path,
        env: dict[str, str],
        shim: Callable[[HostClient, dict[str, Any]], None],
    ) -> None:
        # its fake browsers act on the active tab (tests/support/tabs.py)
        environ = {**os.environ, "PANELOT_HOME": str(home), **ACT_ON_ANY_TAB, **env}
        for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "PANELOT_FAILPOINTS"):
            if key not in env:
                environ.pop(key, None)
        self._stderr = (home / "host-stderr.log").open("ab")
        self.spawned_at = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "panelot_host", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=environ,
        )
        self._shim = shim
        self._write_lock = threading.Lock()
        self._waiters: dict[int, Queue[dict[str, Any]]] = {}
        self._waiters_lock = threading.Lock()
        self.events: Queue[dict[str, Any]] = Queue()
        self._next_id = 0
        self.dead = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # ------------------------------------------------------------ reading

    def _read_loop(self) -> None:
        assert self.proc.stdout is not None
        decoder, assembler = FrameDecoder(), ChunkAssembler()
        try:
            while data := self.proc.stdout.read1():
                for payload in decoder.feed(data):
                    if isinstance(payload, FrameError):
                        return
                    message = assembler.accept(payload)
                    if message is not None:
                        self._dispatch(msgspec.json.decode(message))
        finally:
            self._mark_dead()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self._shim(self, message)
        elif "method" in message:
            self.events.put(message)
        else:
            with self._waiters_lock:
                waiter = self._waiters.pop(message.get("id"), None)  # type: ignore[arg-type]
            if waiter is not None:
                waiter.put(message)

    def _mark_dead(self) -> None:
        self.dead.set()
        with self._waiters_lock:
            waiters, self._waiters = list(self._waiters.values()), {}
        for waiter in waiters:
            waiter.put(_EOF)
        self.events.put(_EOF)

    # ------------------------------------------------------------ writing

    def _write(self, message: dict[str, Any]) -> None:
        payload = msgspec.json.encode(message)
        assert self.proc.stdin is not None
        with self._write_lock:
            try:
                self.proc.stdin.write(encode_frame(payload, limit=MAX_INBOUND_FRAME))
                self.proc.stdin.flush()
            except (OSError, ValueError):
                raise HostDied("the host's stdin is closed") from None

    def answer(self, request_id: Any, result: dict[str, Any]) -> None:
        """Answer a host -> shim request (ignored when the host is gone)."""
        with contextlib.suppress(HostDied):
            self._write({"jsonrpc": "2.0", "id": request_id, "result": result})

    def call(self, method: str, params: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """The ``result`` of a request; raises ``RpcFailure`` or ``HostDied``."""
        waiter: Queue[dict[str, Any]] = Queue(maxsize=1)
        with self._waiters_lock:
            if self.dead.is_set():
                raise HostDied("the host is gone")
            self._next_id += 1
            request_id = self._next_id
            self._waiters[request_id] = waiter
        self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        try:
            message = waiter.get(timeout=timeout)
        except Empty:
            raise HostDied(f"no answer to {method} within {timeout:.0f} s") from None
        if message is _EOF:
            raise HostDied(f"the host died before answering {method}")
        if "error" in message:
            raise RpcFailure(message["error"])
        result: dict[str, Any] = message["result"]
        return result

    def next_event(self, timeout: float) -> dict[str, Any] | None:
        """The next event, or None after ``timeout`` or when the host is gone."""
        try:
            event = self.events.get(timeout=timeout)
        except Empty:
            return None
        return None if event is _EOF else event

    # ------------------------------------------------------------ ending

    def kill(self) -> None:
        """SIGKILL (no-op when it already ended)."""
        if self.proc.poll() is None:
            self.proc.kill()

    def crash(self) -> None:
        """SIGUSR1: with the ``unexpected_exception`` failpoint, the host raises an
        unexpected exception and must settle and exit 1 by itself."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)

    def wait_exit(self, timeout: float) -> int | None:
        """The exit status once the process ended by itself within ``timeout``."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close_gracefully(self, timeout: float = 5.0) -> int:
        """stdin EOF; the exit code (the process is killed when it overstays)."""
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.wait(timeout)

    def reap(self, timeout: float = 10.0) -> None:
        """Wait for the process and the reader to end; kill a straggler."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            self.proc.wait(timeout)
        self._reader.join(timeout)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._stderr.close()
