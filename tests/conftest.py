"""Shared fixtures: a host on a temporary PANELOT_HOME, an in-process client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.fixed_models import FixedModels
from tests.support.invariants import check_request
from tests.support.tabs import ACT_ON_ANY_TAB
from tests.support.tools import ToolLog, make_test_tools

from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import ScriptedProvider
from panelot_host.server.assembly import default_registry
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport
from panelot_host.tools.registry import ToolRegistry


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "panelot-home"


class EventLog:
    """Collects events a client receives."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, method: str, params: dict[str, Any]) -> None:
        self.events.append((method, params))

    def of(self, method: str) -> list[dict[str, Any]]:
        return [p for m, p in self.events if m == method]


@pytest.fixture
def provider() -> Iterator[ScriptedProvider]:
    """The scripted model every engine test talks to; tests add scripts to it. The
    request invariants are checked on every request it received, whatever host used it."""
    scripted = ScriptedProvider()
    yield scripted
    for request in scripted.requests:
        check_request(request)


@pytest.fixture
def model_info() -> ModelInfo:
    return ModelInfo(id="scripted-model", provider="scripted", tool_use=True, vision=True)


@pytest.fixture
def tool_log() -> ToolLog:
    return ToolLog()


@pytest.fixture
def registry(tool_log: ToolLog) -> ToolRegistry:
    registry = default_registry()
    registry.update(add=make_test_tools(tool_log))
    return registry


@pytest.fixture
async def host(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo, registry: ToolRegistry
) -> AsyncIterator[Host]:
    models = FixedModels(provider, model_info)
    config = HostConfig(
        home=home,
        lease_wait_s=0.5,
        key_dir=home.parent / "keys",
        # the tests of other features act on the fake browser's active tab; issue 26's
        # tests (tests/engine/test_thread_tabs.py) turn the ownership question back on
        environ=ACT_ON_ANY_TAB,
    )
    async with Host(config, models=lambda _db: models, registry=registry) as host:
        yield host


@pytest.fixture
async def client(host: Host) -> AsyncIterator[DirectTransport]:
    async with DirectTransport.connect(host) as transport:
        await transport.send(
            "initialize",
            {"protocolVersion": 1, "client": {"name": "pytest", "version": "0"}},
        )
        yield transport
