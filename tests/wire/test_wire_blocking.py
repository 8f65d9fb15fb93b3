"""Frames read before the event loop (``wire.blocking``), then the channel going on from
what was read: real pipes, no byte read twice or lost."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelot_host.wire import FrameError, encode_frame, encode_frames
from panelot_host.wire.blocking import BlockingFrames, EndOfFrames, pollable
from panelot_host.wire.stdio import StdioChannel


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        with contextlib.suppress(OSError):
            os.close(fd)


def test_pipes_are_pollable_and_files_are_not(tmp_path, pipe) -> None:
    assert pollable(pipe[0])
    with open(tmp_path / "f", "wb") as file:
        assert not pollable(file.fileno())


def test_a_wait_ends_at_its_deadline_with_nothing_lost(pipe) -> None:
    read_end, write_end = pipe
    frames = BlockingFrames(read_end)
    os.write(write_end, encode_frame(b'{"a":1}')[:5])  # a partial frame: nothing whole yet
    assert frames.next(0.02) is None
    os.write(write_end, encode_frame(b'{"a":1}')[5:])
    assert frames.next(0.02) == b'{"a":1}'


def test_end_of_stream_reports_a_cut_frame_then_ends(pipe) -> None:
    read_end, write_end = pipe
    frames = BlockingFrames(read_end)
    os.write(write_end, encode_frame(b'{"ok":1}') + encode_frame(b'{"cut":2}')[:-3])
    os.close(write_end)
    assert frames.next(None) == b'{"ok":1}'
    error = frames.next(None)
    assert isinstance(error, FrameError) and error.code == "truncated_frame"
    with pytest.raises(EndOfFrames):
        frames.next(None)


class _Interrupted(Exception):
    pass


def test_a_raising_signal_handler_interrupts_a_wait_and_loses_nothing(pipe) -> None:
    read_end, write_end = pipe
    frames = BlockingFrames(read_end)

    def interrupt(signum: int, frame: object) -> None:
        raise _Interrupted

    previous = signal.signal(signal.SIGUSR2, interrupt)
    try:
        timer = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGUSR2))
        timer.start()
        started = time.monotonic()
        with pytest.raises(_Interrupted):
            frames.next(None)
        assert time.monotonic() - started < 30
    finally:
        signal.signal(signal.SIGUSR2, previous)
    os.write(write_end, encode_frame(b'{"after":1}'))
    assert frames.next(None) == b'{"after":1}'


def test_a_frame_put_back_comes_out_first(pipe) -> None:
    read_end, write_end = pipe
    frames = BlockingFrames(read_end)
    os.write(write_end, encode_frames([b'{"a":1}', b'{"b":2}']))
    first = frames.next(None)
    assert first == b'{"a":1}'
    frames.put_back(first)
    assert frames.next(None) == b'{"a":1}'
    assert frames.next(None) == b'{"b":2}'


payloads = st.lists(
    st.binary(min_size=0, max_size=300).map(lambda b: b'{"p":"' + b.hex().encode() + b'"}'),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    frames_in=payloads,
    cuts=st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=30),
    taken=st.integers(min_value=0, max_value=8),
    cut_last=st.booleans(),
)
def test_the_channel_goes_on_exactly_where_the_blocking_reader_stopped(
    frames_in: list[bytes], cuts: list[int], taken: int, cut_last: bool
) -> None:
    """Whatever the pieces the bytes arrive in and however many frames the prelude took,
    the channel delivers exactly the rest, a partial frame included."""
    stream = encode_frames(frames_in)
    if cut_last:
        stream += encode_frame(b'{"cut":true}')[:-2]
    read_end, write_end = os.pipe()
    unused_out = os.dup(2)
    try:
        taken = min(taken, len(frames_in))
        writer = threading.Thread(target=_write_in_pieces, args=(write_end, stream, cuts))
        writer.start()
        frames = BlockingFrames(read_end, read_size=7)
        got = [frames.next(None) for _ in range(taken)]
        assert got == frames_in[:taken]
        channel = StdioChannel(read_end, unused_out, read_ahead=frames.read_ahead())

        async def rest() -> list[bytes | FrameError]:
            return [item async for item in channel]

        received = anyio.run(rest)
        writer.join()
        whole = [item for item in received if isinstance(item, bytes)]
        errors = [item for item in received if isinstance(item, FrameError)]
        assert whole == frames_in[taken:]
        assert [e.code for e in errors] == (["truncated_frame"] if cut_last else [])
    finally:
        os.close(read_end)
        os.close(unused_out)


def _write_in_pieces(fd: int, data: bytes, cuts: list[int]) -> None:
    at, k = 0, 0
    while at < len(data):
        size = cuts[k % len(cuts)]
        os.write(fd, data[at : at + size])
        at += size
        k += 1
    os.close(fd)
