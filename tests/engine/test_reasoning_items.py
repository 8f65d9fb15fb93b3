"""A reasoning model keeps its chain of thought across the tool steps of a Turn (issue 31):
the reasoning item of one step (its id and encrypted content, recorded from the OpenAI
Responses API) is stored with the step's assistant item and sent back in the next request
of the same Turn, and its summary is the item's thinking."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import INIT, new_thread, run_turn
from tests.providers.recorded_streams import done_items, recorded
from tests.providers.sse_server import Reply, SSEServer
from tests.support.fixed_models import FixedModels

from panelot_host.credentials.secret import Secret
from panelot_host.engine.models import ReasoningOptions, reasoning_options
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.responses import ResponsesProvider
from panelot_host.providers.scripted import ScriptedProvider, Text
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport
from panelot_host.tools.registry import ToolRegistry

pytestmark = pytest.mark.anyio

MODEL = ModelInfo(id="gpt-5.1-codex-max", provider="openai", tool_use=True, reasoning=True)


@asynccontextmanager
async def _responses_host(
    home: Path, registry: ToolRegistry, replies: list[str]
) -> AsyncIterator[tuple[DirectTransport, EventLog, SSEServer]]:
    """A host whose model is the Responses provider on a loopback server answering the
    recorded streams ``replies``, one a request."""
    server = SSEServer()
    server.start()
    for name in replies:
        server.add(Reply(200, [recorded(name)]))
    provider = ResponsesProvider(
        api_key=Secret("sk-test-reasoning"), base_url=server.url + "/v1", reasoning=True
    )
    config = HostConfig(home=home, lease_wait_s=0.5, key_dir=home.parent / "keys")
    models = FixedModels(provider, MODEL)
    try:
        async with (
            Host(config, models=lambda _db: models, registry=registry) as host,
            DirectTransport.connect(host) as client,
        ):
            await client.send("initialize", INIT)
            log = EventLog()
            client.on_event(log)
            yield client, log, server
    finally:
        await provider.aclose()
        server.stop()


async def test_two_tool_steps_send_the_first_steps_reasoning_item_back(
    home: Path, registry: ToolRegistry
) -> None:
    steps = ["responses_reasoning_call", "responses_reasoning_call_step2", "responses_text"]
    async with _responses_host(home, registry, steps) as (client, log, server):
        thread_id = await new_thread(client)
        done = await run_turn(client, log, thread_id, "compute (12+7)*3*10")
        assert done["status"] == "completed"
        items = (await client.send("thread.open", {"threadId": thread_id}))["items"]
    (reasoning,) = done_items("responses_reasoning_call", "reasoning")
    bodies = [json.loads(seen.body) for seen in server.requests]
    assert len(bodies) == 3
    assert all(b["include"] == ["reasoning.encrypted_content"] for b in bodies)
    assert not [i for i in bodies[0]["input"] if i.get("type") == "reasoning"]
    sent = [i for i in bodies[1]["input"] if i.get("type") == "reasoning"]
    assert sent == [
        {
            "type": "reasoning",
            "id": reasoning["id"],
            "summary": [{"type": "summary_text", "text": reasoning["summary"][0]["text"]}],
            "encrypted_content": reasoning["encrypted_content"],
        }
    ]
    kinds = [i.get("type") or i["role"] for i in bodies[1]["input"]]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    assert bodies[1]["input"][2]["call_id"] == "call_AB6AaRZ1FYZB2RwS6A5vbdqn"
    step = next(i for i in items if i["kind"] == "assistant")
    assert step["thinking"] == reasoning["summary"][0]["text"]


async def test_reasoning_tokens_are_counted_per_call_turn_and_thread_and_exported(
    home: Path, registry: ToolRegistry
) -> None:
    """The recorded gpt-5 stream reports 448 of its 469 output tokens as reasoning: they
    reach the Turn's usage, the thread's totals, the export's model calls and its
    transcript, and an import; cost is not changed by them (billed as output)."""
    steps = ["responses_reasoning_call_gpt5", "responses_text"]
    async with _responses_host(home, registry, steps) as (client, log, _server):
        thread_id = await new_thread(client)
        done = await run_turn(client, log, thread_id, "compute it")
        assert done["status"] == "completed"
        assert done["usage"]["reasoningTokens"] == 448
        assert done["usage"]["outputTokens"] >= 469  # reasoning is a part of the output
        snapshot = await client.send("thread.open", {"threadId": thread_id})
        assert snapshot["turn"]["usage"]["reasoningTokens"] == 448
        assert snapshot["thread"]["stats"]["reasoningTokens"] == 448
        exported = await client.send("thread.export", {"threadId": thread_id, "format": "json"})
        document = json.loads(exported["text"])
        calls = document["turns"][0]["modelCalls"]
        assert [c["reasoningTokens"] for c in calls] == [448, 0]
        transcript = await client.send("thread.export", {"threadId": thread_id, "format": "md"})
        assert "448 of them reasoning" in transcript["text"]
        copy = await client.send("thread.import", {"commandId": "i1", "document": document})
        imported = await client.send("thread.open", {"threadId": copy["thread"]["id"]})
        assert imported["turn"]["usage"]["reasoningTokens"] == 448
        assert imported["thread"]["stats"]["reasoningTokens"] == 448
        # an export written before the count existed imports with none
        for call in document["turns"][0]["modelCalls"]:
            del call["reasoningTokens"]
        del document["turns"][0]["usage"]["reasoningTokens"]
        del document["thread"]["stats"]["reasoningTokens"]
        older = await client.send("thread.import", {"commandId": "i2", "document": document})
        read = await client.send("thread.open", {"threadId": older["thread"]["id"]})
        assert read["turn"]["usage"]["reasoningTokens"] == 0


async def test_model_options_set_the_effort_and_thinking_budget_of_each_call(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    options = {"scripted-model": {"reasoningEffort": "medium", "thinkingBudget": 4000}}
    saved = await client.send("settings.update", {"commandId": "m1", "modelOptions": options})
    assert saved["settings"]["modelOptions"] == options
    provider.add([Text("thought it through")])
    thread_id = await new_thread(client)
    assert (await run_turn(client, log, thread_id, "think"))["status"] == "completed"
    (request,) = provider.requests
    assert request.reasoning_effort == "medium"
    assert request.thinking_budget == min(4000, request.max_tokens - 1)
    await client.send("settings.update", {"commandId": "m2", "modelOptions": None})
    provider.add([Text("quick")])
    assert (await run_turn(client, log, thread_id, "again"))["status"] == "completed"
    assert provider.requests[1].reasoning_effort is None
    assert provider.requests[1].thinking_budget is None


def test_a_thinking_budget_is_cut_below_the_output_limit_or_dropped() -> None:
    settings = {"modelOptions": {"m": {"thinkingBudget": 16_000, "reasoningEffort": "low"}}}
    assert reasoning_options("m", settings, 8192) == ReasoningOptions("low", 8191)
    assert reasoning_options("m", settings, 1024) == ReasoningOptions("low", None)
    assert reasoning_options("other", settings, 8192) == ReasoningOptions()
