import contextlib
import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import msgspec
import pytest

from panelot_host.wire import (
    MAX_OUTBOUND_FRAME,
    ChunkAssembler,
    FrameError,
    decode_frames,
    encode_frame,
    encode_frames,
)
from panelot_host.wire.stdio import StdioChannel

pytestmark = pytest.mark.anyio


@pytest.fixture
def pipes() -> Iterator[tuple[int, int, int, int]]:
    """(host_in, browser_out, browser_in, host_out): the host reads host_in, writes host_out."""
    host_in, browser_out = os.pipe()
    browser_in, host_out = os.pipe()
    yield host_in, browser_out, browser_in, host_out
    for fd in (host_in, browser_out, browser_in, host_out):
        with contextlib.suppress(OSError):
            os.close(fd)


def read_all(fd: int) -> bytes:
    chunks = []
    while data := os.read(fd, 1 << 20):
        chunks.append(data)
    return b"".join(chunks)


async def test_frames_written_in_pieces_arrive_whole_then_end_of_stream(pipes) -> None:
    host_in, browser_out, _, host_out = pipes
    channel = StdioChannel(host_in, host_out)
    stream = encode_frames([b'{"a":1}', b'{"b":2}']) + encode_frame(b'{"cut":')[:-2]
    for k in range(0, len(stream), 3):
        os.write(browser_out, stream[k : k + 3])
    os.close(browser_out)
    assert await channel.receive() == b'{"a":1}'
    assert await channel.receive() == b'{"b":2}'
    error = await channel.receive()
    assert isinstance(error, FrameError) and error.code == "truncated_frame"
    with pytest.raises(anyio.EndOfStream):
        await channel.receive()
    with pytest.raises(anyio.EndOfStream):
        await channel.receive()


async def test_a_bad_header_is_reported_and_the_stream_goes_on(pipes) -> None:
    host_in, browser_out, _, host_out = pipes
    channel = StdioChannel(host_in, host_out)
    os.write(browser_out, b"hello\n" + encode_frame(b'{"ok":1}'))
    os.close(browser_out)
    received = [item async for item in channel]
    assert [type(i) for i in received] == [FrameError, bytes]
    assert received[1] == b'{"ok":1}'


async def test_a_large_inbound_frame_arrives_whole(pipes) -> None:
    host_in, browser_out, _, host_out = pipes
    channel = StdioChannel(host_in, host_out)
    payload = b'{"x":"' + b"y" * (5 * MAX_OUTBOUND_FRAME) + b'"}'

    async def write() -> None:
        await anyio.to_thread.run_sync(os.write, browser_out, encode_frame(payload, limit=1 << 26))
        os.close(browser_out)

    async with anyio.create_task_group() as tg:
        tg.start_soon(write)
        assert await channel.receive() == payload


async def test_small_messages_go_out_as_single_frames(pipes) -> None:
    _, _, browser_in, host_out = pipes
    channel = StdioChannel(os.open(os.devnull, os.O_RDONLY), host_out)
    await channel.send(b'{"n":1}')
    await channel.send(b'{"n":2}')
    os.close(host_out)
    assert decode_frames(read_all(browser_in)) == [b'{"n":1}', b'{"n":2}']


async def test_oversized_messages_go_out_as_chunks_and_concurrent_sends_never_interleave(
    pipes,
) -> None:
    _, _, browser_in, host_out = pipes
    channel = StdioChannel(os.open(os.devnull, os.O_RDONLY), host_out)
    messages = [
        msgspec.json.encode({"i": i, "t": ('"\x01\U0001f600' * (i * 150_000 + 1))})
        for i in range(6)
    ]
    assert max(map(len, messages)) > 2 * MAX_OUTBOUND_FRAME

    async with anyio.create_task_group() as tg:
        reader = tg.start_soon
        result: list[bytes] = []

        async def read() -> None:
            result.append(await anyio.to_thread.run_sync(read_all, browser_in))

        reader(read)
        async with anyio.create_task_group() as senders:
            for message in messages:
                senders.start_soon(channel.send, message)
        os.close(host_out)

    frames = decode_frames(result[0])
    assert all(isinstance(f, bytes) and len(f) <= MAX_OUTBOUND_FRAME for f in frames)
    assembler = ChunkAssembler(max_pending=1)  # a chunk run must never be interleaved
    delivered = [m for f in frames if isinstance(f, bytes) and (m := assembler.accept(f))]
    assert sorted(delivered) == sorted(messages)


async def test_a_cancelled_receive_loses_no_bytes_on_a_pipe(pipes) -> None:
    host_in, browser_out, _, host_out = pipes
    channel = StdioChannel(host_in, host_out)
    with anyio.move_on_after(0.05) as scope:
        await channel.receive()
    assert scope.cancelled_caught
    os.write(browser_out, encode_frame(b'{"after":"cancel"}'))
    with anyio.fail_after(5):
        assert await channel.receive() == b'{"after":"cancel"}'


async def test_a_cancelled_receive_loses_no_bytes_on_a_file_object(pipes) -> None:
    host_in, browser_out, _, host_out = pipes
    with os.fdopen(os.dup(host_in), "rb", buffering=0) as source:
        channel = StdioChannel(source, host_out)
        with anyio.move_on_after(0.05) as scope:
            await channel.receive()
        assert scope.cancelled_caught
        os.write(browser_out, encode_frame(b'{"after":"cancel"}'))
        with anyio.fail_after(5):
            assert await channel.receive() == b'{"after":"cancel"}'
        os.close(browser_out)
        with anyio.fail_after(5), pytest.raises(anyio.EndOfStream):
            await channel.receive()


async def test_a_regular_file_can_be_the_input(tmp_path: Path) -> None:
    path = tmp_path / "frames.bin"
    path.write_bytes(encode_frames([b"{}", b'{"x":1}']))
    fd = os.open(path, os.O_RDONLY)
    try:
        channel = StdioChannel(fd, os.open(os.devnull, os.O_WRONLY))
        assert [item async for item in channel] == [b"{}", b'{"x":1}']
    finally:
        os.close(fd)


async def test_two_concurrent_receivers_are_refused(pipes) -> None:
    host_in, _, _, host_out = pipes
    channel = StdioChannel(host_in, host_out)
    async with anyio.create_task_group() as tg:
        tg.start_soon(channel.receive)
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(anyio.BusyResourceError):
            await channel.receive()
        tg.cancel_scope.cancel()


async def test_a_file_object_writer_gets_whole_flushed_frames(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    with path.open("wb") as sink:
        channel = StdioChannel(os.open(os.devnull, os.O_RDONLY), sink)
        await channel.send(b'{"line":"a\\nb"}')
        assert decode_frames(path.read_bytes()) == [b'{"line":"a\\nb"}']


CHILD = textwrap.dedent(
    """
    import os, subprocess, sys, anyio
    from panelot_host.wire.stdio import StdioChannel

    GRANDCHILD = "import sys; print('grandchild read', len(sys.stdin.buffer.read()), 'bytes')"

    async def main():
        channel = StdioChannel.from_process_stdio()
        print("stray print")
        sys.stderr.write("after the print\\n")
        os.system("echo child process output")
        subprocess.run([sys.executable, "-c", GRANDCHILD], check=True)
        async for payload in channel:
            await channel.send(payload)  # echo
        await channel.send(b'{"done":true}')

    anyio.run(main)
    """
)


def test_nothing_but_frames_reaches_stdout_after_protection() -> None:
    stream = encode_frames([b'{"a":"x\\ny"}', b'{"b":2}'])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout buffered
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=stream,
        capture_output=True,
        env=env,
        timeout=30,
        check=True,
    )
    assert decode_frames(done.stdout) == [b'{"a":"x\\ny"}', b'{"b":2}', b'{"done":true}']
    assert done.stderr.index(b"stray print") < done.stderr.index(b"after the print")
    assert b"child process output" in done.stderr
    assert b"grandchild read 0 bytes" in done.stderr


async def test_one_socket_can_carry_both_directions() -> None:
    host_end, browser_end = socket.socketpair()
    with host_end, browser_end:
        channel = StdioChannel(host_end.fileno(), host_end.fileno())
        big = msgspec.json.encode({"t": "z" * (3 * MAX_OUTBOUND_FRAME)})

        browser_end.settimeout(10)

        def browser() -> bytes:
            browser_end.sendall(encode_frame(b'{"ping":1}'))
            return _read_until_done(browser_end)

        async with anyio.create_task_group() as tg:
            result: list[bytes] = []
            tg.start_soon(lambda: _collect(result, browser))
            assert await channel.receive() == b'{"ping":1}'
            await channel.send(big)
            await channel.send(b'{"done":1}')
        assert _messages(result[0]) == [big, b'{"done":1}']


async def _collect(result: list[bytes], work) -> None:
    result.append(await anyio.to_thread.run_sync(work))


def _read_until_done(end: socket.socket) -> bytes:
    received = b""
    while not received.endswith(b'{"done":1}'):
        received += end.recv(1 << 16)
    return received


def _messages(stream: bytes) -> list[bytes]:
    """The messages of a frame stream, ``$/chunk`` runs reassembled."""
    assembler = ChunkAssembler()
    frames = decode_frames(stream)
    return [m for f in frames if isinstance(f, bytes) and (m := assembler.accept(f))]


async def test_a_batch_is_written_whole_and_in_order_through_short_writes() -> None:
    """More messages than one writev takes, through a non-blocking socket that accepts
    a little at a time: every frame arrives whole, in order, chunked where it must be."""
    host_end, browser_end = socket.socketpair()
    with host_end, browser_end:
        host_end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        host_end.setblocking(False)
        channel = StdioChannel(os.open(os.devnull, os.O_RDONLY), host_end.fileno())
        messages = [
            msgspec.json.encode({"n": n, "pad": "x" * (n * 37 % 3000)}) for n in range(1500)
        ]
        big = msgspec.json.encode({"t": "y" * (MAX_OUTBOUND_FRAME + 5)})
        batch = [*messages[:700], big, *messages[700:], b'{"done":1}']
        browser_end.settimeout(10)

        async with anyio.create_task_group() as tg:
            result: list[bytes] = []
            tg.start_soon(lambda: _collect(result, lambda: _read_until_done(browser_end)))
            await channel.send_many(batch)
        assert _messages(result[0]) == batch
