"""Benchmark the provider's SSE parsing path.

1. Throughput: a 1 MB Anthropic SSE stream (text deltas, 16 KiB chunks) through our
   ``SSEParser`` + the Anthropic decoder (and through the whole provider), against plain line
   iteration of the same bytes (httpx ``aiter_lines``; ``bytes.splitlines`` for reference),
   and against httpx-sse's parser + the same decoder.
2. Latency: from the moment an SSE event's last byte reaches the HTTP response stream to the
   moment the provider yields its normalised event (median and p99), against the same
   stream read by httpx ``aiter_lines`` (to the blank line that ends the event), same run.

Run: .venv/bin/python bench/bench_sse.py
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial

import anyio
import anyio.lowlevel
import httpx
from anyio.streams.memory import MemoryObjectReceiveStream

from panelot_host.credentials.secret import Secret
from panelot_host.providers.anthropic import AnthropicProvider
from panelot_host.providers.anthropic_stream import AnthropicDecoder
from panelot_host.providers.httpio import default_client, iter_event_batches
from panelot_host.providers.types import ModelRequest, TextDelta, TextPart, UserMessage

CHUNK = 16 * 1024
REQUEST = ModelRequest("claude-sonnet-4-5", "", [UserMessage([TextPart("hi")])])
HEADERS = {"content-type": "text/event-stream"}


def event(obj: dict[str, object]) -> bytes:
    return f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n".encode()


START = event({"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 9}}})
BLOCK = event({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}})
END = b"".join(
    event(e)
    for e in (
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    )
)


def delta(i: int) -> bytes:
    text = f"token {i} with some ordinary words, é and 👋 "
    return event(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}
    )


def megabyte() -> tuple[bytes, int]:
    parts, size, i = [START, BLOCK], 0, 0
    while size < 1_000_000:
        parts.append(delta(i))
        size += len(parts[-1])
        i += 1
    parts.append(END)
    return b"".join(parts), i


class Chunks(httpx.AsyncByteStream):
    def __init__(self, data: bytes) -> None:
        self._data = data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(0, len(self._data), CHUNK):
            yield self._data[i : i + CHUNK]


async def lines_baseline(data: bytes) -> int:
    response = httpx.Response(200, headers=HEADERS, stream=Chunks(data))
    return sum([1 async for _ in response.aiter_lines()])


async def parse_path(data: bytes) -> int:
    response = httpx.Response(200, headers=HEADERS, stream=Chunks(data))
    decoder, count = AnthropicDecoder(), 0
    async for batch in iter_event_batches(response):
        for sse in batch:
            count += len(decoder.feed(sse.raw))
    return count


async def provider_path(data: bytes) -> int:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=HEADERS, stream=Chunks(data))

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        provider = AnthropicProvider(api_key=Secret("k"), client=client)
        return sum([1 async for _ in provider.stream(REQUEST)])


async def httpx_sse_path(data: bytes) -> int:
    from httpx_sse import EventSource

    response = httpx.Response(200, headers=HEADERS, stream=Chunks(data))
    decoder, count = AnthropicDecoder(), 0
    async for sse in EventSource(response).aiter_sse():
        count += len(decoder.feed(sse.data))
    return count


def best_of(runs: int, fn: Callable[[bytes], Awaitable[int]], data: bytes) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        anyio.run(fn, data)
        times.append(time.perf_counter() - started)
    return min(times)


class Fed(httpx.AsyncByteStream):
    def __init__(self, receive: MemoryObjectReceiveStream[bytes]) -> None:
        self._receive = receive

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._receive:
            yield chunk


async def latencies(count: int, *, baseline: bool = False) -> list[float]:
    """Per ``text_delta`` event, ms from its bytes entering the response stream to the
    provider yielding its ``TextDelta``; with ``baseline``, to httpx ``aiter_lines``
    yielding the blank line that ends the event (the same stream, no SSE parsing)."""
    send, receive = anyio.create_memory_object_stream[bytes](0)
    transport = httpx.MockTransport(
        lambda r: httpx.Response(200, headers=HEADERS, stream=Fed(receive))
    )
    client = default_client(transport)
    sent_at: list[float] = []
    got_at: list[float] = []

    async def produce() -> None:
        async with send:
            await send.send(START + BLOCK)
            for i in range(count):
                await anyio.lowlevel.checkpoint()
                sent_at.append(time.perf_counter())
                await send.send(delta(i))
            await send.send(END)

    async with anyio.create_task_group() as tg:
        tg.start_soon(produce)
        if baseline:
            async with client.stream("POST", "https://api.anthropic.com/v1/messages") as response:
                previous = ""
                async for line in response.aiter_lines():
                    if not line and '"text_delta"' in previous:
                        got_at.append(time.perf_counter())
                    previous = line
            await client.aclose()
        else:
            provider = AnthropicProvider(api_key=Secret("k"), client=client)
            async for ev in provider.stream(REQUEST):
                if isinstance(ev, TextDelta):
                    got_at.append(time.perf_counter())
            await provider.aclose()
    receive.close()
    return [(b - a) * 1000 for a, b in zip(sent_at, got_at, strict=True)]


def main() -> None:
    data, deltas = megabyte()
    mb = len(data) / 1e6
    splitlines = best_of(5, lambda d: _sync(lambda: len(d.splitlines())), data)
    baseline = best_of(5, lines_baseline, data)
    parsed = best_of(5, parse_path, data)
    full = best_of(5, provider_path, data)
    other = best_of(5, httpx_sse_path, data)
    print(f"stream: {len(data):,} bytes, {deltas:,} text_delta events, {CHUNK // 1024} KiB chunks")
    print(f"bytes.splitlines (reference)        {mb / splitlines:8.1f} MB/s")
    print(f"baseline: httpx aiter_lines         {mb / baseline:8.1f} MB/s")
    print(
        f"SSEParser + Anthropic decoder       {mb / parsed:8.1f} MB/s  "
        f"({baseline / parsed:.0%} of baseline)"
    )
    print(
        f"whole AnthropicProvider.stream      {mb / full:8.1f} MB/s  "
        f"({baseline / full:.0%} of baseline)"
    )
    print(
        f"httpx-sse + Anthropic decoder       {mb / other:8.1f} MB/s  "
        f"({baseline / other:.0%} of baseline)"
    )
    lat = anyio.run(latencies, 2000)
    q = statistics.quantiles(lat, n=100)
    print(
        f"latency last byte -> normalised event: median {statistics.median(lat):.3f} ms, "
        f"p99 {q[98]:.3f} ms (n={len(lat)})"
    )
    base = anyio.run(partial(latencies, 2000, baseline=True))
    qb = statistics.quantiles(base, n=100)
    print(
        f"baseline latency, last byte -> httpx aiter_lines line: median "
        f"{statistics.median(base):.3f} ms, p99 {qb[98]:.3f} ms (n={len(base)})"
    )


async def _sync(fn: Callable[[], int]) -> int:
    return fn()


if __name__ == "__main__":
    main()
