"""What reaches the chat session: typed lines, end of input, Ctrl-C and engine events.

Everything arrives on one memory stream (``Inbound``) so the session handles it in order,
one message at a time. Reading stdin never blocks the event loop: a pollable descriptor
(a terminal, a pipe) is awaited with ``anyio.wait_readable``; anything else (a regular
file, ``/dev/null``, a ``StringIO``, Windows consoles) is read in a worker thread, where
a read cannot block for long, or is abandoned on cancellation.
"""

from __future__ import annotations

import codecs
import os
import signal
from typing import Any, Protocol, TextIO

import anyio
import anyio.to_thread
import msgspec
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectSendStream

READ_SIZE = 65536


class Line(msgspec.Struct, frozen=True):
    """A line the user typed (without its line ending)."""

    text: str


class EndOfInput(msgspec.Struct, frozen=True):
    """stdin reached its end (Ctrl-D, or the end of piped input)."""


class CtrlC(msgspec.Struct, frozen=True):
    """The user pressed Ctrl-C (SIGINT)."""


class Event(msgspec.Struct, frozen=True):
    """An engine event (a JSON-RPC notification)."""

    method: str
    params: dict[str, Any]


Inbound = Line | EndOfInput | CtrlC | Event
Inbox = MemoryObjectSendStream[Inbound]


class LineSource(Protocol):
    async def read_line(self) -> str | None:
        """The next line without its ending, or None at the end of input."""
        ...


class DescriptorLines:
    """Lines from a file descriptor, awaited without blocking the loop where possible."""

    def __init__(self, fd: int, encoding: str = "utf-8") -> None:
        self._fd = fd
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._buffer = ""
        self._eof = False
        self._pollable = True

    async def read_line(self) -> str | None:
        while "\n" not in self._buffer and not self._eof:
            chunk = await self._read_chunk()
            self._eof = not chunk
            self._buffer += self._decoder.decode(chunk, final=self._eof)
        if not self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition("\n")
        return line.removesuffix("\r")

    async def _read_chunk(self) -> bytes:
        if self._pollable:
            try:
                await anyio.wait_readable(self._fd)
            except (OSError, NotImplementedError):
                self._pollable = False  # regular files, /dev/null, Windows: never "ready"
            else:
                return os.read(self._fd, READ_SIZE)
        return await anyio.to_thread.run_sync(os.read, self._fd, READ_SIZE, abandon_on_cancel=True)


class Readable(Protocol):
    def readline(self) -> str: ...


class StreamLines:
    """Lines from a text stream without a usable descriptor (``StringIO``), via a thread."""

    def __init__(self, stream: Readable) -> None:
        self._stream = stream

    async def read_line(self) -> str | None:
        line = await anyio.to_thread.run_sync(self._stream.readline, abandon_on_cancel=True)
        return line.removesuffix("\n").removesuffix("\r") if line else None


def lines_of(stream: TextIO | None) -> LineSource:
    """The best ``LineSource`` for ``stream`` (None: input has already ended)."""
    if stream is None:
        return StreamLines(_Ended())
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return StreamLines(stream)
    return DescriptorLines(fd, getattr(stream, "encoding", None) or "utf-8")


class _Ended:
    def readline(self) -> str:
        return ""


async def pump_lines(source: LineSource, inbox: Inbox) -> None:
    """Forward every line to ``inbox``, then ``EndOfInput``."""
    while True:
        line = await source.read_line()
        if line is None:
            await inbox.send(EndOfInput())
            return
        await inbox.send(Line(line))


async def pump_sigint(
    inbox: Inbox, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    """Turn SIGINT into ``CtrlC`` messages (where the platform supports signal receivers);
    reports ``started`` once the handler is installed."""
    try:
        with anyio.open_signal_receiver(signal.SIGINT) as signals:
            task_status.started()
            async for _ in signals:
                await inbox.send(CtrlC())
    except NotImplementedError:  # Windows: KeyboardInterrupt ends the program instead
        task_status.started()
        await anyio.sleep_forever()


class TerminalEcho:
    """The terminal's echo of typed characters, switched off while the agent writes (a
    line typed then would be shown inside the reply; the chat shows it after the reply)
    and restored on exit. Lines are still read whole (canonical mode stays on)."""

    def __init__(self, fd: int) -> None:
        # lazy: termios exists on POSIX only (Windows has none)
        import termios

        self._fd = fd
        self._saved = termios.tcgetattr(fd)
        self._visible = True

    def __call__(self, visible: bool) -> None:
        # lazy: termios exists on POSIX only (Windows has none)
        import termios

        if visible == self._visible:
            return
        attrs = termios.tcgetattr(self._fd)
        attrs[3] = attrs[3] | termios.ECHO if visible else attrs[3] & ~termios.ECHO
        termios.tcsetattr(self._fd, termios.TCSANOW, attrs)
        self._visible = visible

    def restore(self) -> None:
        # lazy: termios exists on POSIX only (Windows has none)
        import termios

        termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)


def terminal_echo(stream: TextIO | None) -> TerminalEcho | None:
    """Echo control for ``stream`` when it is a terminal on a POSIX system, else None."""
    try:
        if stream is None or not stream.isatty():
            return None
        return TerminalEcho(stream.fileno())
    except (ImportError, OSError, ValueError, AttributeError):
        return None
