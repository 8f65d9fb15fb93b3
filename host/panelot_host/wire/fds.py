"""The process's stdin and stdout reserved for frames, and whole writes to an fd.

What needs no event loop: the host's prelude (``server.prelude``) answers its first
requests with these before anyio is imported, and ``stdio.StdioChannel`` writes with them
afterwards.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable

IOV_MAX = 512  # buffers per writev call (POSIX guarantees at least 16; Linux takes 1024)


def protect_stdout() -> int:
    """Reserve the real stdout for frames and send everything else written there to stderr.

    Returns a private, non-inheritable duplicate of the original fd 1 for the channel.
    Afterwards fd 1 (inherited by child processes) and ``sys.stdout`` point at stderr,
    so a stray ``print`` from any library can never corrupt the frame stream.

    Raises:
        OSError: the fds cannot be duplicated.
    """
    if sys.stdout is not None:
        sys.stdout.flush()
    frame_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    set_binary(frame_fd)
    return frame_fd


def protect_stdin() -> int:
    """Reserve the real stdin for frames; point fd 0 at the null device.

    Returns a private, non-inheritable duplicate of the original fd 0. Child processes
    (MCP servers, tools) then inherit an empty stdin and cannot swallow frames.

    Raises:
        OSError: the fds cannot be duplicated or the null device cannot be opened.
    """
    frame_fd = os.dup(0)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null_fd, 0)
    finally:
        os.close(null_fd)
    set_binary(frame_fd)
    return frame_fd


def set_binary(fd: int) -> None:
    if sys.platform == "win32":
        # lazy: msvcrt exists on Windows only
        import msvcrt

        msvcrt.setmode(fd, os.O_BINARY)


def write_fd(fd: int, view: memoryview) -> int:
    try:
        return os.write(fd, view)
    except BlockingIOError:  # a non-blocking fd (a socket also polled for reading) is full
        select.select([], [fd], [])
        return 0


def write_all(write: Callable[[memoryview], int | None], data: bytes) -> None:
    with memoryview(data) as view:
        while view:
            written = write(view)
            view = view[written or 0 :]


def writev_all(fd: int, parts: list[bytes]) -> None:
    """Write every part, in order, with as few ``writev`` calls as the kernel allows."""
    pending: list[bytes | memoryview] = [part for part in parts if part]
    start = 0
    while start < len(pending):
        try:
            written = os.writev(fd, pending[start : start + IOV_MAX])
        except BlockingIOError:  # a non-blocking fd is full
            select.select([], [fd], [])
            continue
        while written:  # skip what was written; a part written in part keeps its rest
            size = len(pending[start])
            if written < size:
                pending[start] = memoryview(pending[start])[written:]
                break
            written -= size
            start += 1
