"""The frame channel over the process's stdin/stdout (or any fds or binary files).

Reading. A pipe or socket fd (what Chrome gives us on POSIX) is switched to non-blocking
and read after ``anyio.wait_readable``: cancelling ``receive`` then cancels only the wait,
so no bytes are lost and no thread stays blocked in ``read`` (anyio's worker threads are
not daemons; one stuck on an open stdin would keep the process alive after the server
stops). Anything that cannot be polled (Windows pipes, regular files, file objects) is read
in a worker thread with ``abandon_on_cancel=True``; the pending read is kept and the next
``receive`` collects its bytes, so a cancelled receive loses nothing there either.

Writing. One lock serialises senders in arrival order; each batch of messages (each
message one frame, or its ``$/chunk`` frames) is written whole and flushed in a worker
thread that is not abandoned on cancel, so the peer never sees half a frame or an
interleaved chunk run. Headers and payloads are handed to ``os.writev`` side by side: a
message is never copied to be framed, and a batch costs one thread hop and one syscall.
Only raw fds or binary files are used: text mode would turn ``\\n`` into ``\\r\\n`` on
Windows and corrupt every frame.
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable
from typing import BinaryIO, Protocol

import anyio
import anyio.to_thread

from panelot_host.wire.blocking import READ_SIZE, ReadAhead, pollable
from panelot_host.wire.errors import FrameError
from panelot_host.wire.fds import (
    protect_stdin,
    protect_stdout,
    set_binary,
    write_all,
    write_fd,
    writev_all,
)
from panelot_host.wire.framing import MAX_INBOUND_FRAME, FrameDecoder
from panelot_host.wire.outbound import chunk_ids, frame_parts


class _Reader(Protocol):
    async def read(self) -> bytes: ...


class _PollingReader:
    """Reads a pollable fd without threads; cancellation never loses bytes."""

    def __init__(self, fd: int, size: int) -> None:
        self._fd = fd
        self._size = size
        os.set_blocking(fd, False)

    async def read(self) -> bytes:
        while True:
            try:
                return os.read(self._fd, self._size)
            except BlockingIOError:
                await anyio.wait_readable(self._fd)


class _ThreadReader:
    """Reads in a worker thread; a read abandoned by a cancelled caller is collected later."""

    def __init__(self, read: Callable[[int], bytes], size: int) -> None:
        self._read = read
        self._size = size
        self._pending: concurrent.futures.Future[bytes] | None = None

    async def read(self) -> bytes:
        future = self._pending
        if future is None:
            future = self._pending = concurrent.futures.Future()
            await anyio.to_thread.run_sync(self._read_into, future, abandon_on_cancel=True)
        elif not future.done():
            await anyio.to_thread.run_sync(future.exception, abandon_on_cancel=True)
        self._pending = None
        return future.result()

    def _read_into(self, future: concurrent.futures.Future[bytes]) -> None:
        try:
            future.set_result(self._read(self._size))
        except BaseException as exc:
            future.set_exception(exc)


def _make_reader(source: int | BinaryIO, size: int) -> _Reader:
    if not isinstance(source, int):
        return _ThreadReader(getattr(source, "read1", source.read), size)
    set_binary(source)
    if pollable(source):
        return _PollingReader(source, size)
    return _ThreadReader(lambda n: os.read(source, n), size)


def _make_writer(sink: int | BinaryIO) -> Callable[[list[bytes]], None]:
    if isinstance(sink, int):
        set_binary(sink)
        if hasattr(os, "writev"):
            return lambda parts: writev_all(sink, parts)
        return lambda parts: write_all(lambda view: write_fd(sink, view), b"".join(parts))

    def write_and_flush(parts: list[bytes]) -> None:
        for part in parts:
            write_all(sink.write, part)
        sink.flush()

    return write_and_flush


class StdioChannel:
    """Frames in from one fd or binary file, frames out to another.

    Give it ``protect_stdin()`` and ``protect_stdout()`` in production (see
    ``from_process_stdio``), or the two ends of ``os.pipe()`` pairs in tests. The channel
    does not close what it is given. ``read_ahead`` is what a ``blocking.BlockingFrames``
    read from ``reader`` before (the host's prelude): the channel goes on from there.
    """

    def __init__(
        self,
        reader: int | BinaryIO,
        writer: int | BinaryIO,
        *,
        max_inbound_frame: int = MAX_INBOUND_FRAME,
        read_size: int = READ_SIZE,
        read_ahead: ReadAhead | None = None,
    ) -> None:
        self._reader = _make_reader(reader, read_size)
        self._write = _make_writer(writer)
        self._input = read_ahead or ReadAhead(FrameDecoder(max_frame=max_inbound_frame))
        self._receive_guard = anyio.ResourceGuard("receiving frames from")
        self._send_lock = anyio.Lock()
        self._chunk_id = chunk_ids()

    @classmethod
    def from_process_stdio(cls) -> StdioChannel:
        """Protect the process's stdin and stdout and open a channel over the originals.

        Raises:
            OSError: as ``protect_stdin`` and ``protect_stdout``.
        """
        return cls(protect_stdin(), protect_stdout())

    async def receive(self) -> bytes | FrameError:
        """Return the next frame payload, or a framing problem to report, in stream order.

        At end of stream a truncated last frame is returned as a ``FrameError`` first.

        Raises:
            anyio.EndOfStream: the stream has ended and everything was delivered.
            anyio.BusyResourceError: another task is already receiving.
            OSError: reading failed.
        """
        with self._receive_guard:
            while not self._input.frames:
                if self._input.at_eof:
                    raise anyio.EndOfStream
                self._input.take(await self._reader.read())
            return self._input.frames.popleft()

    def __aiter__(self) -> StdioChannel:
        return self

    async def __anext__(self) -> bytes | FrameError:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def send(self, payload: bytes) -> None:
        """Write one encoded JSON message, as ``$/chunk`` frames if it is over 1 MiB.

        Concurrent senders are served in call order; each message's frames are written
        consecutively and flushed. Once writing has started, cancellation waits for the
        message to be written whole.

        Raises:
            ValueError: the payload is over 1 MiB and is not valid UTF-8.
            OSError: writing failed (``BrokenPipeError`` once the browser closed the Port).
        """
        await self.send_many([payload])

    async def send_many(self, payloads: list[bytes]) -> None:
        """Write several encoded messages in order, in one write where the OS allows;
        otherwise as ``send``."""
        await self.write_buffers(frame_parts(payloads, self._chunk_id))

    async def write_buffers(self, buffers: list[bytes]) -> None:
        """Write already framed buffers (whole frames, back to back) in order, in one
        write where the OS allows; flushed, and written whole even if cancelled.

        Raises:
            OSError: writing failed (``BrokenPipeError`` once the browser closed the Port).
        """
        async with self._send_lock:
            await anyio.to_thread.run_sync(self._write, buffers)
