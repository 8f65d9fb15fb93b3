"""Fixtures of the engine tests (the host, client and provider come from tests/conftest.py)."""

from __future__ import annotations

import pytest
from tests.conftest import EventLog

from panelot_host.server.transport import DirectTransport


@pytest.fixture
def log(client: DirectTransport) -> EventLog:
    """Every event the client receives, from the start of the test."""
    events = EventLog()
    client.on_event(events)
    return events
