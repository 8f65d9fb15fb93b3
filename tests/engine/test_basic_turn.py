from __future__ import annotations

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn

from panelot_host.providers.scripted import ScriptedProvider, Stop, Text
from panelot_host.providers.types import Usage
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio


async def test_a_turn_streams_and_completes(
    client: DirectTransport, provider: ScriptedProvider
) -> None:
    provider.add([Text("Hello there", chunks=3), Stop("end_turn", usage=Usage(10, 5))])
    log = EventLog()
    client.on_event(log)
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "hi")
    assert done["status"] == "completed", done
    assert done["stopReason"] == "end_turn"
    assert done["usage"]["inputTokens"] == 10
    methods = [m for m, _ in log.events]
    print(methods)
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert [i["kind"] for i in snapshot["items"]] == ["user", "assistant"]
    assert snapshot["items"][1]["text"] == "Hello there"
