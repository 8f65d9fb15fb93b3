from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.cli.fake_openai import SSEServer


@pytest.fixture
def model_server() -> Iterator[SSEServer]:
    """A fake OpenAI-compatible server on 127.0.0.1 (``tests.cli.fake_openai``)."""
    server = SSEServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
