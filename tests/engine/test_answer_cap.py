"""One model answer is bounded (issue 25): past the host's ``max_answer_bytes`` (text,
thinking and tool calls together) the stream is stopped, the Turn fails with a clear
``provider`` error, what arrived before is kept (marked interrupted) and nothing stored
before is lost. A small cap keeps these tests fast; the default is 16 MiB."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import INIT, new_thread, run_turn, wait_until
from tests.providers.sse_server import HANG, Reply, SSEServer
from tests.support.fixed_models import FixedModels
from tests.support.tools import ToolLog

from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.openai import OpenAIProvider
from panelot_host.providers.scripted import ScriptedProvider, Stop, Text, Thinking, ToolCall
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport
from panelot_host.tools.registry import ToolRegistry

pytestmark = pytest.mark.anyio

CAP = 64 * 1024
CHUNK = 1024


def _config(home: Path) -> HostConfig:
    return HostConfig(
        home=home, lease_wait_s=0.5, key_dir=home.parent / "keys", max_answer_bytes=CAP
    )


@pytest.fixture
async def host(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo, registry: ToolRegistry
) -> AsyncIterator[Host]:
    models = FixedModels(provider, model_info)
    async with Host(_config(home), models=lambda _db: models, registry=registry) as host:
        yield host


async def _items(client: DirectTransport, thread_id: str) -> list[dict[str, Any]]:
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    return list(snapshot["items"])


async def test_an_answer_past_the_cap_is_stopped_and_fails_keeping_what_came_before(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await new_thread(client)
    provider.add([Text("an earlier answer")])
    assert (await run_turn(client, log, thread_id, "first"))["status"] == "completed"
    streamed = "".join(f"{n:07d} " for n in range(3 * CAP // 8))  # 3 x CAP, 8 bytes a word
    provider.add([Text(streamed, chunks=len(streamed) // CHUNK), Stop("end_turn")])
    done = await run_turn(client, log, thread_id, "talk forever")
    assert done["status"] == "failed" and done["error"]["kind"] == "provider"
    assert "answer exceeded 64 KiB" in done["error"]["message"]
    assert provider.cancelled == 1  # the stream was closed, not read to its end
    items = await _items(client, thread_id)
    assert [(i["kind"], i.get("text")) for i in items[:2]] == [
        ("user", "first"),
        ("assistant", "an earlier answer"),
    ]
    kept = items[-1]
    assert kept["kind"] == "assistant" and kept["interrupted"] is True
    assert CAP - CHUNK < len(kept["text"]) <= CAP and streamed.startswith(kept["text"])
    # the host carries on: the next Turn on the same thread answers
    provider.add([Text("still here")])
    assert (await run_turn(client, log, thread_id, "again"))["status"] == "completed"
    assert (await _items(client, thread_id))[-1]["text"] == "still here"


async def test_thinking_tool_call_arguments_and_text_count_together(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    third = "x" * (CAP // 3)
    provider.add(
        [
            Thinking(third, signature="sig"),
            ToolCall("lookup", raw_args=json.dumps({"key": third})),
            Text(third),
        ]
    )
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "think hard")
    assert done["status"] == "failed" and "exceeded 64 KiB" in done["error"]["message"]
    assert tool_log.names() == []  # a call of a stopped answer never runs
    kept = (await _items(client, thread_id))[-1]
    assert kept["interrupted"] is True and kept["thinking"] == third and not kept.get("text")


async def test_a_real_server_streaming_past_the_cap_is_hung_up_on(
    home: Path, model_info: ModelInfo, registry: ToolRegistry
) -> None:
    server = SSEServer()
    server.start()
    try:
        delta = {"choices": [{"index": 0, "delta": {"content": "y" * CHUNK}}]}
        body = f"data: {json.dumps(delta)}\n\n".encode() * (2 * CAP // CHUNK)
        server.add(Reply(200, [body, HANG]))  # more than the cap, then never a stop
        provider = OpenAIProvider(api_key=None, base_url=server.url + "/v1")
        models = FixedModels(provider, model_info)
        async with (
            Host(_config(home), models=lambda _db: models, registry=registry) as host,
            DirectTransport.connect(host) as client,
        ):
            await client.send("initialize", INIT)
            log = EventLog()
            client.on_event(log)
            thread_id = await new_thread(client)
            done = await run_turn(client, log, thread_id, "talk")
            assert done["status"] == "failed" and "exceeded 64 KiB" in done["error"]["message"]
            await wait_until(lambda: bool(server.closed_at))  # hung up while it was sending
            kept = (await _items(client, thread_id))[-1]
            assert kept["interrupted"] is True and set(kept["text"]) == {"y"}
            assert CAP - CHUNK < len(kept["text"]) <= CAP
        await provider.aclose()
    finally:
        server.stop()
