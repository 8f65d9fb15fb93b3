"""Titles (seed section 2) and a model without tool use (seed section 4)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import INIT, new_thread, run_turn, wait_for, wait_until
from tests.support.fixed_models import FixedModels

from panelot_host.engine.models import ResolvedModel
from panelot_host.errors import ProviderHTTPError
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import Fail, Hang, Pause, ScriptedProvider, Text
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport
from panelot_host.tools.registry import ToolRegistry

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def _client_with_task_model(
    home: Path, provider: ScriptedProvider, task: ScriptedProvider | None, info: ModelInfo,
    registry: ToolRegistry,
) -> AsyncIterator[DirectTransport]:  # fmt: skip
    task_model = ResolvedModel(task, ModelInfo(id="task"), "scripted") if task else None
    models = FixedModels(provider, info, task=task_model)
    config = HostConfig(home=home, lease_wait_s=0.5)
    async with (
        Host(config, models=lambda _db: models, registry=registry) as host,
        DirectTransport.connect(host) as client,
    ):
        await client.send("initialize", INIT)
        yield client


async def test_first_turn_writes_the_first_line_fallback_then_the_task_models_title(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo, registry: ToolRegistry
) -> None:
    task = ScriptedProvider([[Pause(0.2), Text("Lisbon flight search")]])
    provider.add([Text("searching")])
    async with _client_with_task_model(home, provider, task, model_info, registry) as client:
        log = EventLog()
        client.on_event(log)
        thread_id = await new_thread(client)
        await client.send(
            "turn.submit",
            {"commandId": "s", "threadId": thread_id, "text": "Find me a flight to Lisbon\nin May"},
        )
        titles = await wait_for(log, "thread.updated", 1)
        assert titles[0]["thread"]["title"] == "Find me a flight to Lisbon"
        assert titles[0]["thread"]["titleSource"] == "fallback"
        await _wait_title(log, "Lisbon flight search")
        snapshot = await client.send("thread.open", {"threadId": thread_id})
        assert snapshot["thread"]["titleSource"] == "model"
        assert "Find me a flight" in task.requests[0].messages[0].content[0].text  # type: ignore[union-attr]


async def test_a_title_answer_is_read_only_as_far_as_a_title_needs(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo, registry: ToolRegistry
) -> None:
    endless = [Text("Lisbon flights\n" + "z" * 100_000, chunks=100), Hang()]
    task = ScriptedProvider([endless])
    provider.add([Text("searching")])
    async with _client_with_task_model(home, provider, task, model_info, registry) as client:
        log = EventLog()
        client.on_event(log)
        thread_id = await new_thread(client)
        await run_turn(client, log, thread_id, "Find me a flight to Lisbon")
        await _wait_title(log, "Lisbon flights")  # not after the title call's 30 s timeout
        assert task.cancelled == 1  # the rest of the answer was never read


async def _wait_title(log: EventLog, title: str) -> None:
    await wait_until(lambda: any(p["thread"]["title"] == title for p in log.of("thread.updated")))


async def test_a_failed_title_call_keeps_the_fallback(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo, registry: ToolRegistry
) -> None:
    task = ScriptedProvider([[Fail(ProviderHTTPError(401, "bad key"))]])
    provider.add([Text("hi")])
    async with _client_with_task_model(home, provider, task, model_info, registry) as client:
        log = EventLog()
        client.on_event(log)
        thread_id = await new_thread(client)
        await run_turn(client, log, thread_id, "Plan the week")
        snapshot = await client.send("thread.open", {"threadId": thread_id})
        assert snapshot["thread"]["title"] == "Plan the week"
        assert snapshot["thread"]["titleSource"] == "fallback"
        assert task.attempts == 1


async def test_without_a_task_model_the_fallback_stays(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    log = EventLog()
    client.on_event(log)
    provider.add([Text("hi")], [Text("again")])
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "  \nFirst real line here  ")
    await run_turn(client, log, thread_id, "second turn does not retitle")
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["thread"]["title"] == "First real line here"


async def test_a_user_title_is_never_replaced(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    log = EventLog()
    client.on_event(log)
    provider.add([Text("hi")])
    created = await client.send("thread.create", {"commandId": "c", "title": "Mine"})
    await run_turn(client, log, created["thread"]["id"], "something else")
    snapshot = await client.send("thread.open", {"threadId": created["thread"]["id"]})
    assert snapshot["thread"]["title"] == "Mine"


async def test_tool_use_false_binds_an_empty_registry(
    home: Path, provider: ScriptedProvider, registry: ToolRegistry
) -> None:
    info = ModelInfo(id="no-tools", provider="scripted", tool_use=False, vision=False)
    provider.add([Text("plain answer")])
    async with _client_with_task_model(home, provider, None, info, registry) as client:
        log = EventLog()
        client.on_event(log)
        thread_id = await new_thread(client)
        done = await run_turn(client, log, thread_id, "hi")
        assert done["status"] == "completed"
        assert provider.requests[0].tools == []
