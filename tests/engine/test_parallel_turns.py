"""Issue 26, "Limits and fairness": at most ``maxParallelTurns`` Turns run at once; a
further Turn waits ``queued`` (its thread ``waiting``) with a reason, waiting Turns start
first come, first served, and a Turn waiting for the user holds no slot.

Every model call waits at its Turn's gate (named by the user's text) until the test opens
it, so which Turns run is decided by the test, never by the clock."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.conftest import EventLog
from tests.engine.helpers import answer_approval, new_thread, wait_for, wait_until
from tests.support.fixed_models import FixedModels
from tests.support.invariants import check_request
from tests.support.tools import ToolLog

from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import Script, ScriptedProvider, Text, ToolCall
from panelot_host.providers.types import (
    ModelRequest,
    ProviderEvent,
    TextPart,
    ToolResultMessage,
    UserMessage,
)
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError
from panelot_host.tools.registry import ToolRegistry

pytestmark = pytest.mark.anyio

TWO_RUN = "2 tasks are already running; this one starts when one of them finishes"
ONE_RUNS = "1 task is already running; this one starts when it finishes"


def _user_text(request: ModelRequest) -> str:
    users = [m for m in request.messages if isinstance(m, UserMessage)]
    return next(p.text for p in users[-1].content if isinstance(p, TextPart))


def _answer(request: ModelRequest) -> Script:
    """``note ...`` asks to write a note (an approval) first, ``ask ...`` asks the user a
    question; every Turn then answers."""
    text = _user_text(request)
    if isinstance(request.messages[-1], ToolResultMessage):
        return [Text(f"done: {text}")]
    if text.startswith("note"):
        return [ToolCall("write_note", {"text": text})]
    if text.startswith("ask"):
        return [ToolCall("ask_user", {"question": "Which size?", "options": ["S", "M"]})]
    return [Text(f"done: {text}")]


class GatedModel:
    """A provider whose model calls wait at their Turn's gate, then answer (``_answer``)."""

    def __init__(self) -> None:
        self.scripted = ScriptedProvider(responder=_answer)
        self.gates: dict[str, anyio.Event] = {}
        self.entered: list[str] = []  # the Turns whose model calls began, in order

    def open(self, *texts: str) -> None:
        for text in texts:
            self.gates.setdefault(text, anyio.Event()).set()

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        text = _user_text(request)
        self.entered.append(text)
        await self.gates.setdefault(text, anyio.Event()).wait()
        async for event in self.scripted.stream(request):
            yield event


@pytest.fixture
def model() -> Iterator[GatedModel]:
    gated = GatedModel()
    yield gated
    for request in gated.scripted.requests:
        check_request(request)


@pytest.fixture
async def host(
    home: Path, model: GatedModel, model_info: ModelInfo, registry: ToolRegistry
) -> AsyncIterator[Host]:
    models = FixedModels(model, model_info)
    config = HostConfig(home=home, lease_wait_s=0.5, key_dir=home.parent / "keys")
    async with Host(config, models=lambda _db: models, registry=registry) as host:
        yield host


async def _limit(client: DirectTransport, limit: int | None) -> dict[str, Any]:
    update = {"commandId": f"limit-{limit}", "maxParallelTurns": limit}
    settings: dict[str, Any] = (await client.send("settings.update", update))["settings"]
    return settings


async def _start(client: DirectTransport, text: str) -> tuple[str, str]:
    """A new thread with a Turn of ``text``: (thread id, turn id)."""
    thread_id = await new_thread(client, f"create-{text}")
    submit = {"commandId": f"submit-{text}", "threadId": thread_id, "text": text}
    turn_id: str = (await client.send("turn.submit", submit))["turnId"]
    return thread_id, turn_id


async def _running(model: GatedModel, *texts: str) -> None:
    await wait_until(lambda: set(texts) <= set(model.entered))


def _slots_in_use(host: Host) -> int:
    assert host.profile is not None
    return host.profile.ensure_engine().ctx.slots.running


async def test_the_setting_defaults_to_3_takes_1_to_16_and_null_resets_it(
    client: DirectTransport,
) -> None:
    assert (await client.send("settings.get", {}))["settings"]["maxParallelTurns"] == 3
    assert (await _limit(client, 16))["maxParallelTurns"] == 16
    for wrong in (0, 17, 2.5):
        with pytest.raises(RemoteError) as refused:
            await client.send(
                "settings.update", {"commandId": f"w{wrong}", "maxParallelTurns": wrong}
            )
        assert refused.value.kind == "invalid_params"
    assert (await _limit(client, None))["maxParallelTurns"] == 3


async def test_a_turn_past_the_limit_waits_queued_with_its_reason_until_one_finishes(
    client: DirectTransport, model: GatedModel, log: EventLog, host: Host
) -> None:
    await _limit(client, 2)
    _, first = await _start(client, "one")
    await _start(client, "two")
    await _running(model, "one", "two")
    third_thread, third = await _start(client, "three")
    queued = (await wait_for(log, "run.updated", threadId=third_thread, state="queued"))[0]
    assert queued["waitReason"] == TWO_RUN
    waiting = [
        p["thread"]["status"] for p in log.of("thread.updated") if p["threadId"] == third_thread
    ]
    assert waiting[-1] == "waiting"
    snapshot = await client.send("thread.open", {"threadId": third_thread})
    assert snapshot["run"]["state"] == "queued" and snapshot["run"]["waitReason"] == TWO_RUN
    assert snapshot["thread"]["status"] == "waiting"
    listed = (await client.send("thread.list", {"limit": 10}))["threads"]
    assert {t["id"]: t["status"] for t in listed}[third_thread] == "waiting"
    assert "three" not in model.entered  # no model call while it waits
    model.open("one")
    await wait_for(log, "turn.complete", turnId=first)
    await wait_for(log, "run.updated", threadId=third_thread, state="streaming")
    await _running(model, "three")
    started = (await client.send("thread.open", {"threadId": third_thread}))["run"]
    assert started["state"] == "streaming" and "waitReason" not in started
    model.open("two", "three")
    done = await wait_for(log, "turn.complete", turnId=third)
    assert done[0]["status"] == "completed"
    await wait_for(log, "turn.complete", 3)
    assert _slots_in_use(host) == 0


async def test_a_turn_waiting_for_approval_holds_no_slot_and_queues_to_continue(
    client: DirectTransport, model: GatedModel, log: EventLog, tool_log: ToolLog, host: Host
) -> None:
    await _limit(client, 1)
    model.open("note milk")
    note_thread, note = await _start(client, "note milk")
    request = (await wait_for(log, "approval.request"))[0]
    _, other = await _start(client, "other")
    await _running(model, "other")  # the slot the note's run gave back
    assert not [p for p in log.of("run.updated") if p["state"] == "queued"]
    await answer_approval(client, request, "allow", "once")
    queued = (await wait_for(log, "run.updated", threadId=note_thread, state="queued"))[0]
    assert queued["waitReason"] == ONE_RUNS
    assert tool_log.calls == []  # approved, but it waits for a slot to run the tool
    model.open("other")
    await wait_for(log, "turn.complete", turnId=other)
    done = await wait_for(log, "turn.complete", turnId=note)
    assert done[0]["status"] == "completed"
    assert tool_log.names() == ["write_note"]
    states = [p["state"] for p in log.of("run.updated") if p["threadId"] == note_thread]
    after = states[states.index("queued") :]
    assert after[:2] == ["queued", "executing_tool"] and after[-1] == "completed"
    assert _slots_in_use(host) == 0


async def test_a_turn_waiting_for_an_answer_holds_no_slot_and_queues_to_continue(
    client: DirectTransport, model: GatedModel, log: EventLog, host: Host
) -> None:
    await _limit(client, 1)
    model.open("ask size")
    asking_thread, asking = await _start(client, "ask size")
    asked = (await wait_for(log, "interaction.request"))[0]
    _, other = await _start(client, "other")
    await _running(model, "other")
    answer = {"commandId": "i1", "interactionId": asked["interactionId"], "values": {"answer": "M"}}
    await client.send("interaction.response", answer)
    queued = (await wait_for(log, "run.updated", threadId=asking_thread, state="queued"))[0]
    assert queued["waitReason"] == ONE_RUNS
    model.open("other")
    await wait_for(log, "turn.complete", turnId=other)
    done = await wait_for(log, "turn.complete", turnId=asking)
    assert done[0]["status"] == "completed"
    states = [p["state"] for p in log.of("run.updated") if p["threadId"] == asking_thread]
    after = states[states.index("queued") :]
    assert after[:2] == ["queued", "executing_tool"] and after[-1] == "completed"
    assert _slots_in_use(host) == 0


async def test_interrupting_a_waiting_turn_ends_it_and_leaks_no_slot(
    client: DirectTransport, model: GatedModel, log: EventLog, host: Host
) -> None:
    await _limit(client, 1)
    _, first = await _start(client, "first")
    await _running(model, "first")
    waiting_thread, waiting = await _start(client, "waits")
    await wait_for(log, "run.updated", threadId=waiting_thread, state="queued")
    await client.send("turn.interrupt", {"threadId": waiting_thread})
    ended = await wait_for(log, "turn.complete", turnId=waiting)
    assert ended[0]["status"] == "interrupted"
    snapshot = await client.send("thread.open", {"threadId": waiting_thread})
    assert snapshot["run"]["state"] == "interrupted" and "waitReason" not in snapshot["run"]
    assert snapshot["thread"]["status"] == "interrupted"
    assert "waits" not in model.entered
    assert _slots_in_use(host) == 1  # the first Turn's, nothing more, nothing less
    model.open("first", "again")
    await wait_for(log, "turn.complete", turnId=first)
    submit = {"commandId": "again", "threadId": waiting_thread, "text": "again"}
    again = (await client.send("turn.submit", submit))["turnId"]
    assert (await wait_for(log, "turn.complete", turnId=again))[0]["status"] == "completed"
    assert _slots_in_use(host) == 0


async def test_raising_the_limit_starts_a_waiting_turn_at_once(
    client: DirectTransport, model: GatedModel, log: EventLog
) -> None:
    await _limit(client, 1)
    await _start(client, "first")
    await _running(model, "first")
    waiting_thread, waiting = await _start(client, "second")
    await wait_for(log, "run.updated", threadId=waiting_thread, state="queued")
    assert (await _limit(client, 2))["maxParallelTurns"] == 2
    await wait_for(log, "run.updated", threadId=waiting_thread, state="streaming")
    await _running(model, "second")
    model.open("second", "first")
    assert (await wait_for(log, "turn.complete", turnId=waiting))[0]["status"] == "completed"
    await wait_for(log, "turn.complete", 2)


async def test_waiting_turns_start_in_the_order_they_came(
    client: DirectTransport, model: GatedModel, log: EventLog
) -> None:
    await _limit(client, 1)
    await _start(client, "a")
    await _running(model, "a")
    for text in ("b", "c", "d"):
        thread_id, _ = await _start(client, text)
        await wait_for(log, "run.updated", threadId=thread_id, state="queued")
    model.open("d", "c", "b")  # opened in reverse: the order comes from the slots alone
    model.open("a")
    await wait_for(log, "turn.complete", 4)
    assert model.entered == ["a", "b", "c", "d"]
