from __future__ import annotations

from collections.abc import Iterator

import pytest

from .sse_server import SSEServer


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def sse_server() -> Iterator[SSEServer]:
    server = SSEServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
