"""Frames read with blocking reads, before an event loop runs (the host's prelude).

A ``BlockingFrames`` reads a pollable fd (a pipe or socket: what Chrome gives a host on
POSIX) with ``select`` and ``read``, so a wait can end at a deadline. What it has read but
not handed out, a partial frame included, becomes a ``ReadAhead`` that
``stdio.StdioChannel`` goes on from: no byte is read twice or lost.
"""

from __future__ import annotations

import os
import select
import stat
import sys
import time
from collections import deque

from panelot_host.wire.errors import FrameError
from panelot_host.wire.framing import MAX_INBOUND_FRAME, FrameDecoder

READ_SIZE = 64 * 1024


class ReadAhead:
    """Input read before the channel existed: the decoder (holding any partial frame),
    the frames and framing errors not yet handled, in order, and whether the stream
    ended."""

    def __init__(
        self,
        decoder: FrameDecoder,
        frames: deque[bytes | FrameError] | None = None,
        *,
        at_eof: bool = False,
    ) -> None:
        self.decoder = decoder
        self.frames: deque[bytes | FrameError] = frames if frames is not None else deque()
        self.at_eof = at_eof

    def take(self, data: bytes) -> None:
        """Add what one read returned (``b""``: the stream ended); the whole frames and
        framing problems in it queue up, a partial frame stays in the decoder."""
        if data:
            self.frames.extend(self.decoder.feed(data))
        else:
            self.at_eof = True
            self.frames.extend(self.decoder.eof())


class EndOfFrames(Exception):
    """The stream ended and every frame read was handed out."""


def pollable(fd: int) -> bool:
    """Whether ``fd`` can be waited on with ``select`` (a pipe or socket, not on Windows)."""
    if sys.platform == "win32":
        return False
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class BlockingFrames:
    """Frames from a pollable, blocking fd (see ``pollable``), one at a time."""

    def __init__(
        self,
        fd: int,
        *,
        max_inbound_frame: int = MAX_INBOUND_FRAME,
        read_size: int = READ_SIZE,
    ) -> None:
        self._fd = fd
        self._read_size = read_size
        self._ahead = ReadAhead(FrameDecoder(max_frame=max_inbound_frame))

    def next(self, timeout_s: float | None) -> bytes | FrameError | None:
        """The next frame payload or framing problem, in stream order; None when nothing
        whole arrived within ``timeout_s`` (None: wait as long as it takes).

        A signal handler that raises interrupts the wait, and nothing read is lost.

        Raises:
            EndOfFrames: the stream has ended and everything was handed out.
            OSError: reading failed.
        """
        ahead = self._ahead
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not ahead.frames:
            if ahead.at_eof:
                raise EndOfFrames
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            readable, _, _ = select.select([self._fd], [], [], left)
            if not readable:
                return None
            ahead.take(os.read(self._fd, self._read_size))
        return ahead.frames.popleft()

    def put_back(self, frame: bytes | FrameError) -> None:
        """Return ``frame`` (the last one handed out) to the front of the stream."""
        self._ahead.frames.appendleft(frame)

    def read_ahead(self) -> ReadAhead:
        """What was read and not handed out, for ``StdioChannel(..., read_ahead=...)``;
        this reader must not be used afterwards."""
        return self._ahead
