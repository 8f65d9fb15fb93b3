"""What an end-to-end test leaves behind, read from ``/proc``: the processes it started
(Chromium's and the host's), and the loopback ports this test process still listens on.

Every browser of the suite is launched with ``SUITE_MARK`` in its environment (its own
processes and the host it starts inherit it) and with its profile root in ``HOME`` and
``PANELOT_HOME``; so one test's leftovers are found by its root, the whole suite's by the
mark, and nothing else on this shared machine is touched.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

SUITE_VARIABLE = "PANELOT_E2E_SUITE"
# One value per pytest process; it goes into the browsers' environment only.
SUITE_MARK = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


@dataclass(frozen=True)
class SuiteStart:
    """The test process as the suite found it (kept in the config's stash)."""

    environ: dict[str, str]
    ports: frozenset[int]
    time: float

    @classmethod
    def now(cls) -> SuiteStart:
        return cls(environ=dict(os.environ), ports=frozenset(listening_ports()), time=time.time())


SUITE_START = pytest.StashKey[SuiteStart]()


@dataclass(frozen=True)
class Leftover:
    pid: int
    command: str

    def __str__(self) -> str:
        return f"{self.pid}: {self.command[:160]}"


def processes_with(needle: bytes) -> list[Leftover]:
    """Processes (not this one) whose environment holds ``needle``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in environ:
            command = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
            found.append(Leftover(int(entry.name), command or f"[{entry.name}]"))
    return found


def profile_needle(root: Path) -> bytes:
    """Matches ``HOME=<root>/home`` and ``PANELOT_HOME=<root>/panelot-home``, never a
    sibling profile whose root merely starts with the same characters."""
    return b"=" + str(root).encode() + b"/"


def suite_needle() -> bytes:
    return f"{SUITE_VARIABLE}={SUITE_MARK}".encode() + b"\0"


def reap(needle: bytes, grace_s: float) -> list[Leftover]:
    """Wait up to ``grace_s`` for the processes matching ``needle`` to exit; kill those
    still running and return them (empty: nothing was left)."""
    deadline = time.monotonic() + grace_s
    left = processes_with(needle)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = processes_with(needle)
    for leftover in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(leftover.pid, signal.SIGKILL)
    return left


def listening_ports() -> set[int]:
    """TCP ports this process listens on (its sockets matched in /proc/net/tcp{,6})."""
    inodes = set()
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            listening = fields[3] == "0A"
            if listening and fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports
