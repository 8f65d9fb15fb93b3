"""Helpers: SSE bytes from the documented formats, and feeding bytes at any split."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx

from panelot_host.providers.types import (
    ModelRequest,
    Provider,
    ProviderEvent,
    TextPart,
    UserMessage,
)

REQUEST = ModelRequest(
    model="claude-sonnet-4-5", system="Be brief.", messages=[UserMessage([TextPart("Hi")])]
)


def anthropic_sse(*events: dict[str, Any]) -> bytes:
    return b"".join(
        f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n".encode()
        for e in events
    )


def openai_sse(*chunks: dict[str, Any] | str) -> bytes:
    out = []
    for chunk in chunks:
        data = chunk if isinstance(chunk, str) else json.dumps(chunk, ensure_ascii=False)
        out.append(f"data: {data}\n\n".encode())
    return b"".join(out)


class Chunks(httpx.AsyncByteStream):
    def __init__(self, chunks: Sequence[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk


def split_at(data: bytes, cuts: Sequence[int]) -> list[bytes]:
    points = [0, *sorted(cuts), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(points)]


def mock_client(chunks: Sequence[bytes], status: int = 200) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            status, headers={"content-type": "text/event-stream"}, stream=Chunks(chunks)
        )

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def collect(provider: Provider, request: ModelRequest = REQUEST) -> list[ProviderEvent]:
    return [event async for event in provider.stream(request)]
