"""Fixtures of the workflow tests: the engine's (a host, a client, the scripted model)."""

from __future__ import annotations

import pytest
from tests.conftest import EventLog

from panelot_host.server.transport import DirectTransport


@pytest.fixture
def log(client: DirectTransport) -> EventLog:
    events = EventLog()
    client.on_event(events)
    return events
