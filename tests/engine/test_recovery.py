"""Recovery (seed section 5, protocol section 7): a host stops mid-run; the next one, on
the same data, settles from the stored run state and continues only when asked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import INIT, new_thread, wait_for, wait_until
from tests.support.fixed_models import FixedModels
from tests.support.tabs import ACT_ON_ANY_TAB
from tests.support.tools import ToolLog, make_test_tools

from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.scripted import Hang, ScriptedProvider, Text, ToolCall
from panelot_host.providers.types import ToolResultMessage
from panelot_host.server.assembly import default_registry
from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError
from panelot_host.store import approvals
from panelot_host.tools.registry import ToolRegistry

pytestmark = pytest.mark.anyio


class Session:
    """One host process's lifetime, in-process; leaving it stops the host (stdin EOF)."""

    def __init__(self, client: DirectTransport, host: Host) -> None:
        self.client = client
        self.host = host
        self.log = EventLog()
        client.on_event(self.log)


@pytest.fixture
def open_host(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo, tool_log: ToolLog
) -> Callable[..., object]:
    @asynccontextmanager
    async def opener(registry: ToolRegistry | None = None) -> AsyncIterator[Session]:
        if registry is None:
            registry = default_registry()
            registry.update(add=make_test_tools(tool_log))
        models = FixedModels(provider, model_info)
        config = HostConfig(
            home=home, lease_wait_s=0.5, key_dir=home.parent / "keys", environ=ACT_ON_ANY_TAB
        )
        async with (
            Host(config, models=lambda _db: models, registry=registry) as host,
            DirectTransport.connect(host) as client,
        ):
            await client.send("initialize", INIT)
            yield Session(client, host)

    return opener


async def _submit(client: DirectTransport, thread_id: str, text: str, cid: str) -> str:
    result = await client.send(
        "turn.submit", {"commandId": cid, "threadId": thread_id, "text": text}
    )
    turn_id: str = result["turnId"]
    return turn_id


async def test_an_interrupted_stream_waits_as_interrupted_until_run_resume(
    open_host: Callable[..., object], provider: ScriptedProvider
) -> None:
    provider.add([Text("thinking about it", chunks=2), Hang()])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "long task", "s1")
        await wait_for(s.log, "item.delta")
    calls_before = len(provider.requests)
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "interrupted"
        assert snapshot["turn"]["status"] == "running"
        assert snapshot["items"][-1]["interrupted"] is True  # the partial text was kept
        assert len(provider.requests) == calls_before  # nothing called a model by itself
        with pytest.raises(RemoteError) as busy:
            await s.client.send(
                "thread.fork",
                {"commandId": "f", "threadId": thread_id, "atItemId": snapshot["items"][0]["id"]},
            )
        assert busy.value.kind == "thread_busy"
        provider.add([Text("done after resume")])
        await s.client.send(
            "run.resume",
            {"commandId": "r1", "threadId": thread_id, "runId": snapshot["run"]["id"]},
        )
        done = await wait_for(s.log, "turn.complete", turnId=turn_id)
        assert done[0]["status"] == "completed"


async def test_a_cut_off_read_call_runs_again_on_resume(
    open_host: Callable[..., object], provider: ScriptedProvider, tool_log: ToolLog
) -> None:
    provider.add([ToolCall("slow", {}, call_id="r1")])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "read", "s1")
        await wait_until(lambda: tool_log.names() == ["slow"])
    tool_log.release.set()
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "interrupted"
        provider.add([Text("read it")])
        await s.client.send(
            "run.resume", {"commandId": "r", "threadId": thread_id, "runId": snapshot["run"]["id"]}
        )
        await wait_for(s.log, "turn.complete", turnId=turn_id)
    assert tool_log.names() == ["slow", "slow"]
    results = [m for m in provider.requests[-1].messages if isinstance(m, ToolResultMessage)]
    assert [r.call_id for r in results] == ["r1"]


async def _leave_a_write_running(
    open_host: Callable[..., object], provider: ScriptedProvider
) -> tuple[str, str]:
    """A host that stopped with an approved write call marked running and no result, as a
    process killed right after dispatching it leaves the store."""
    provider.add([ToolCall("write_note", {"text": "pay rent"}, call_id="w1")])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "write it", "s1")
        request = (await wait_for(s.log, "approval.request"))[0]
        with s.host.profile.db.transaction() as conn:
            conn.execute("UPDATE item SET status = 'running' WHERE call_id = 'w1'")
            conn.execute("UPDATE run SET state = 'executing_tool' WHERE turn_id = ?", (turn_id,))
            conn.execute(
                "UPDATE approval SET state = 'decided', decision = 'allow' WHERE id = ?",
                (request["requestId"],),
            )
    return thread_id, turn_id


async def test_retry_runs_an_uncertain_write_again_through_the_gatekeeper(
    open_host: Callable[..., object], provider: ScriptedProvider, tool_log: ToolLog
) -> None:
    thread_id, turn_id = await _leave_a_write_running(open_host, provider)
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        call = next(i for i in snapshot["items"] if i["kind"] == "toolCall")
        provider.add([Text("written now")])
        await s.client.send(
            "recovery.resolve", {"commandId": "rr", "toolCallId": call["id"], "outcome": "retry"}
        )
        asked = (await wait_for(s.log, "approval.request"))[0]  # a write asks again
        assert asked["toolCallId"] == call["id"]
        await s.client.send(
            "approval.response",
            {
                "commandId": "a",
                "requestId": asked["requestId"],
                "decision": "allow",
                "scope": "once",
            },
        )
        done = await wait_for(s.log, "turn.complete", turnId=turn_id)
        assert done[0]["status"] == "completed"
    assert tool_log.names() == ["write_note"]  # ran once: the user chose to retry
    result = next(m for m in provider.requests[-1].messages if isinstance(m, ToolResultMessage))
    assert "saved note" in result.content[0].text  # type: ignore[union-attr]


async def test_a_cut_off_write_call_pauses_uncertain_with_evidence_until_resolved(
    open_host: Callable[..., object], provider: ScriptedProvider, tool_log: ToolLog, home: Path
) -> None:
    thread_id, turn_id = await _leave_a_write_running(open_host, provider)
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "paused_uncertain"
        assert snapshot["turn"]["status"] == "paused"
        call = next(i for i in snapshot["items"] if i["kind"] == "toolCall")
        assert call["status"] == "uncertain"
        profile = s.host.profile
        evidence = profile.db.conn.execute(
            "SELECT json_extract(extra, '$.evidence.attempted.tool') FROM item WHERE id = ?",
            (call["id"],),
        ).fetchone()
        assert evidence == ("write_note",)
        with pytest.raises(RemoteError) as active:
            await _submit(s.client, thread_id, "another", "s2")
        assert active.value.kind == "turn_active"
        queued = await s.client.send(
            "turn.enqueue", {"commandId": "q", "threadId": thread_id, "text": "later"}
        )
        assert queued["position"] == 0  # new turns queue behind the recovered run
        provider.add([Text("it went through")], [Text("later handled")])
        await s.client.send(
            "recovery.resolve",
            {"commandId": "rr", "toolCallId": call["id"], "outcome": "succeeded"},
        )
        done = await wait_for(s.log, "turn.complete", turnId=turn_id)
        assert done[0]["status"] == "completed"
        await wait_for(s.log, "turn.complete", 2)
    assert tool_log.names() == []  # the write never ran twice
    result = next(m for m in provider.requests[-2].messages if isinstance(m, ToolResultMessage))
    assert "confirmed" in result.content[0].text  # type: ignore[union-attr]


async def test_an_approval_waiting_at_shutdown_still_waits_and_continues_by_itself(
    open_host: Callable[..., object], provider: ScriptedProvider, tool_log: ToolLog
) -> None:
    provider.add([ToolCall("write_note", {"text": "x"})], [Text("saved")])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "save", "s1")
        await wait_for(s.log, "approval.request")
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "awaiting_approval"
        pending = snapshot["pendingApprovals"]
        assert len(pending) == 1
        await s.client.send(
            "approval.response",
            {
                "commandId": "a",
                "requestId": pending[0]["requestId"],
                "decision": "allow",
                "scope": "once",
            },
        )
        done = await wait_for(s.log, "turn.complete", turnId=turn_id)
        assert done[0]["status"] == "completed"
    assert tool_log.names() == ["write_note"]


async def test_an_ask_user_question_survives_a_restart_and_is_claimed_once(
    open_host: Callable[..., object], provider: ScriptedProvider
) -> None:
    provider.add([ToolCall("ask_user", {"question": "Which day?"})], [Text("Tuesday it is")])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "book", "s1")
        await wait_for(s.log, "interaction.request")
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "awaiting_interaction"
        [question] = snapshot["pendingInteractions"]
        await s.client.send(
            "interaction.response",
            {
                "commandId": "i",
                "interactionId": question["interactionId"],
                "values": {"answer": "Tuesday"},
            },
        )
        done = await wait_for(s.log, "turn.complete", turnId=turn_id)
        assert done[0]["status"] == "completed"
        assert s.log.of("interaction.request") == []  # not asked a second time
    result = next(m for m in provider.requests[-1].messages if isinstance(m, ToolResultMessage))
    assert "Tuesday" in result.content[0].text  # type: ignore[union-attr]


async def test_a_budget_paused_run_stays_paused_across_a_restart(
    open_host: Callable[..., object], provider: ScriptedProvider
) -> None:
    from panelot_host.providers.scripted import Stop
    from panelot_host.providers.types import Usage

    provider.add([ToolCall("lookup", {"key": "a"}), Stop("tool_use", usage=Usage(500, 10))])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn = await s.client.send(
            "turn.submit",
            {"commandId": "s", "threadId": thread_id, "text": "x", "tokenBudget": 100},
        )
        await wait_for(s.log, "turn.paused", turnId=turn["turnId"])
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "budget_paused"


async def test_drift_is_rejected_and_names_what_changed(
    open_host: Callable[..., object], provider: ScriptedProvider, tool_log: ToolLog
) -> None:
    provider.add([Text("partial"), Hang()])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        await _submit(s.client, thread_id, "go", "s1")
        await wait_for(s.log, "item.delta")
    changed = default_registry()
    tools = make_test_tools(tool_log)
    from msgspec.structs import replace

    tools[0] = replace(
        tools[0],
        description="Look a key up, now differently",
        effects=frozenset({"read", "network"}),
    )
    changed.update(add=tools)
    async with open_host(registry=changed) as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        with pytest.raises(RemoteError) as drift:
            await s.client.send(
                "run.resume",
                {"commandId": "r", "threadId": thread_id, "runId": snapshot["run"]["id"]},
            )
        assert drift.value.kind == "drift"
        assert "lookup" in drift.value.message
        after = await s.client.send("thread.open", {"threadId": thread_id})
        assert after["run"]["state"] == "interrupted"  # not continued


async def test_an_uncertain_browser_write_gets_the_tabs_current_state_as_evidence(
    home: Path, provider: ScriptedProvider, model_info: ModelInfo, tool_log: ToolLog
) -> None:
    import anyio

    registry = default_registry()
    models = FixedModels(provider, model_info)
    config = HostConfig(
        home=home, lease_wait_s=0.5, key_dir=home.parent / "keys", environ=ACT_ON_ANY_TAB
    )
    url = {"now": "https://bank.example/transfer"}
    invoked: list[dict] = []  # type: ignore[type-arg]
    release = anyio.Event()

    async def shim(method: str, params: dict) -> object:  # type: ignore[type-arg]
        if method == "browser.resolveTarget":
            return {
                "tabId": 4,
                "url": url["now"],
                "origin": "https://bank.example",
                "title": url["now"],
            }
        invoked.append(params)
        await release.wait()  # the process "dies" before the click's answer arrives
        return {"content": "too late", "isError": False}

    init = {**INIT, "capabilities": {"browserTools": ["browser_click"]}}
    provider.add([ToolCall("browser_click", {"ref": "send"}, call_id="click1")])
    async with (
        Host(config, models=lambda _db: models, registry=registry) as host,
        DirectTransport.connect(host, shim=shim) as client,
    ):
        # one process lifetime
        await client.send("initialize", init)
        await client.send(
            "settings.update",
            {"commandId": "p", "policyRules": [{"tool": "browser_click", "decision": "allow"}]},
        )
        thread_id = await new_thread(client)
        await _submit(client, thread_id, "send the money", "s1")
        await wait_until(lambda: bool(invoked))
        await host.aclose()  # stdin EOF: the click's outcome is unknown
        release.set()
    url["now"] = "https://bank.example/transfer/done"
    async with (
        Host(config, models=lambda _db: models, registry=registry) as host,
        DirectTransport.connect(host, shim=shim) as client,
    ):
        # the next process, on the same data
        await client.send("initialize", init)
        snapshot: dict = {}  # type: ignore[type-arg]
        for _ in range(200):  # the evidence arrives once the shim has answered
            snapshot = await client.send("thread.open", {"threadId": thread_id})
            call = next(i for i in snapshot["items"] if i["kind"] == "toolCall")
            if (call.get("evidence") or {}).get("lastKnown"):
                break
            await anyio.sleep(0.01)
        call = next(i for i in snapshot["items"] if i["kind"] == "toolCall")
        assert snapshot["run"]["state"] == "paused_uncertain"
        assert call["status"] == "uncertain"
        assert call["evidence"]["attempted"] == {
            "tool": "browser_click",
            "args": {"ref": "send"},
        }
        assert call["evidence"]["target"]["url"] == "https://bank.example/transfer"
        assert call["evidence"]["lastKnown"]["url"] == "https://bank.example/transfer/done"
    assert len(invoked) == 1


async def test_a_write_whose_answer_is_lost_with_the_shim_pauses_uncertain(
    host: Host, provider: ScriptedProvider, tool_log: ToolLog
) -> None:
    import anyio

    invoked = anyio.Event()
    reloaded = anyio.Event()

    async def shim(method: str, params: dict) -> object:  # type: ignore[type-arg]
        if method == "browser.resolveTarget":
            return {"tabId": 2, "url": "https://shop.example/", "origin": "https://shop.example"}
        invoked.set()
        await reloaded.wait()  # the extension reloads before it answers
        return {"content": "never seen"}

    init = {**INIT, "capabilities": {"browserTools": ["browser_click"]}}
    provider.add([ToolCall("browser_click", {"ref": "buy"}, call_id="buy1")], [Text("bought")])
    async with DirectTransport.connect(host, shim=shim) as shim_client:
        await shim_client.send("initialize", init)
        await shim_client.send(
            "settings.update",
            {"commandId": "p", "policyRules": [{"tool": "browser_click", "decision": "allow"}]},
        )
        thread_id = await new_thread(shim_client)
        turn_id = await _submit(shim_client, thread_id, "buy it", "s1")
        await invoked.wait()
        shim_client.connection.close()  # the Port closes: the click's outcome is unknown
        with anyio.fail_after(5):
            while True:
                run = (
                    host.profile.ensure_engine()
                    .ctx.db.conn.execute(  # type: ignore[union-attr]
                        "SELECT state FROM run WHERE turn_id = ?", (turn_id,)
                    )
                    .fetchone()
                )
                if run[0] == "paused_uncertain":
                    break
                await anyio.sleep(0.01)
        reloaded.set()
    async with DirectTransport.connect(host) as panel:
        log = EventLog()
        panel.on_event(log)
        await panel.send("initialize", INIT)
        snapshot = await panel.send("thread.open", {"threadId": thread_id})
        call = next(i for i in snapshot["items"] if i["kind"] == "toolCall")
        assert call["status"] == "uncertain" and snapshot["turn"]["status"] == "paused"
        assert call["evidence"]["target"]["origin"] == "https://shop.example"
        await panel.send(
            "recovery.resolve", {"commandId": "r", "toolCallId": call["id"], "outcome": "succeeded"}
        )
        done = await wait_for(log, "turn.complete", turnId=turn_id)
        assert done[0]["status"] == "completed"


async def test_recovery_reads_acknowledged_steering_from_the_store(
    open_host: Callable[..., object], provider: ScriptedProvider
) -> None:
    provider.add([Text("working on it", chunks=2), Hang()])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "start", "s1")
        await wait_for(s.log, "item.delta")
        await s.client.send(
            "turn.steer",
            {
                "commandId": "st",
                "threadId": thread_id,
                "expectedTurnId": turn_id,
                "text": "use EUR",
            },
        )
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert [m["text"] for m in snapshot["pendingSteering"]] == ["use EUR"]
        provider.add([Text("in EUR then")])
        await s.client.send(
            "run.resume", {"commandId": "r", "threadId": thread_id, "runId": snapshot["run"]["id"]}
        )
        await wait_for(s.log, "turn.complete", turnId=turn_id)
    last_user = [m for m in provider.requests[-1].messages if type(m).__name__ == "UserMessage"]
    assert last_user[-1].content[0].text == "use EUR"  # type: ignore[union-attr]


async def test_a_lost_remote_call_is_not_resumed_and_the_model_is_told(
    open_host: Callable[..., object], provider: ScriptedProvider, tool_log: ToolLog
) -> None:
    from panelot_host.engine.recovery import REMOTE_LOST

    provider.add([ToolCall("remote_wait", {}, call_id="rem1")])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "ask the server", "s1")
        await wait_until(lambda: tool_log.names() == ["slow"])
    tool_log.release.set()
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        call = next(i for i in snapshot["items"] if i["kind"] == "toolCall")
        assert call["status"] == "failed" and call["result"]["content"] == REMOTE_LOST
        assert snapshot["run"]["state"] == "interrupted"
        provider.add([Text("I will ask again only if safe")])
        await s.client.send(
            "run.resume", {"commandId": "r", "threadId": thread_id, "runId": snapshot["run"]["id"]}
        )
        await wait_for(s.log, "turn.complete", turnId=turn_id)
    assert tool_log.names() == ["slow"]  # not run again
    result = next(m for m in provider.requests[-1].messages if isinstance(m, ToolResultMessage))
    assert result.content[0].text == REMOTE_LOST  # type: ignore[union-attr]


async def test_a_run_waiting_for_a_slot_at_shutdown_waits_as_interrupted_until_run_resume(
    open_host: Callable[..., object], provider: ScriptedProvider
) -> None:
    provider.add([Text("busy"), Hang()])
    async with open_host() as s:  # type: ignore[attr-defined]
        await s.client.send("settings.update", {"commandId": "one", "maxParallelTurns": 1})
        busy_thread = await new_thread(s.client, "busy")
        await _submit(s.client, busy_thread, "busy", "s1")
        await wait_for(s.log, "item.delta")
        thread_id = await new_thread(s.client, "waits")
        turn_id = await _submit(s.client, thread_id, "waits", "s2")
        await wait_for(s.log, "run.updated", threadId=thread_id, state="queued")
    provider.add([Text("done")])
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "interrupted" and "waitReason" not in snapshot["run"]
        assert snapshot["thread"]["status"] == "interrupted"
        await s.client.send(
            "run.resume",
            {"commandId": "r1", "threadId": thread_id, "runId": snapshot["run"]["id"]},
        )
        done = await wait_for(s.log, "turn.complete", turnId=turn_id)
        assert done[0]["status"] == "completed"


async def _answer_then_stop(
    open_host: Callable[..., object], provider: ScriptedProvider, decision: str
) -> tuple[str, str]:
    """A host that stored the user's answer to an approval and stopped before its run woke
    (the answer's transaction committed; the process killed before the call started)."""
    provider.add([ToolCall("write_note", {"text": "pay rent"}, call_id="w1")])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "write it", "s1")
        request = (await wait_for(s.log, "approval.request"))[0]
        with s.host.profile.db.transaction() as conn:
            approvals.decide_approval(
                conn,
                request["requestId"],
                decision=decision,  # type: ignore[arg-type]
                scope="once",
                message=None,
                command_id="answered-before-the-stop",
            )
    return thread_id, turn_id


@pytest.mark.parametrize(
    ("decision", "ran", "said"), [("allow", ["write_note"], "saved note"), ("deny", [], "denied")]
)
async def test_an_approval_answered_just_before_a_stop_is_applied_on_resume(
    open_host: Callable[..., object],
    provider: ScriptedProvider,
    tool_log: ToolLog,
    decision: str,
    ran: list[str],
    said: str,
) -> None:
    thread_id, turn_id = await _answer_then_stop(open_host, provider, decision)
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        # not left "awaiting_approval" with no card to answer: resumable, nothing asked again
        assert snapshot["run"]["state"] == "interrupted"
        assert snapshot["pendingApprovals"] == []
        call = next(i for i in snapshot["items"] if i["kind"] == "toolCall")
        assert call["status"] == "awaiting_approval"
        assert tool_log.names() == []  # nothing ran by itself
        provider.add([Text("done")])
        await _resume_to_the_end(s, snapshot, turn_id)
        assert s.log.of("approval.request") == []  # the stored answer was used
    assert tool_log.names() == ran
    assert said in _last_tool_result(provider).lower()


async def _resume_to_the_end(s: Session, snapshot: dict[str, Any], turn_id: str) -> None:
    """``run.resume`` the snapshot's run; its Turn completes."""
    run = {"threadId": snapshot["thread"]["id"], "runId": snapshot["run"]["id"]}
    await s.client.send("run.resume", {"commandId": "resume", **run})
    done = await wait_for(s.log, "turn.complete", turnId=turn_id)
    assert done[0]["status"] == "completed"


def _last_tool_result(provider: ScriptedProvider) -> str:
    """The text of the tool result in the last request to the model."""
    result = next(m for m in provider.requests[-1].messages if isinstance(m, ToolResultMessage))
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text


async def test_a_question_answered_just_before_a_stop_is_used_on_resume(
    open_host: Callable[..., object], provider: ScriptedProvider
) -> None:
    provider.add([ToolCall("ask_user", {"question": "Which day?"})])
    async with open_host() as s:  # type: ignore[attr-defined]
        thread_id = await new_thread(s.client)
        turn_id = await _submit(s.client, thread_id, "book", "s1")
        question = (await wait_for(s.log, "interaction.request"))[0]
        with s.host.profile.db.transaction() as conn:
            approvals.answer_interaction(
                conn,
                question["interactionId"],
                {"action": "accept", "values": {"answer": "Tuesday"}},
                "answered-before-the-stop",
            )
    async with open_host() as s:  # type: ignore[attr-defined]
        snapshot = await s.client.send("thread.open", {"threadId": thread_id})
        assert snapshot["run"]["state"] == "interrupted"
        assert snapshot["pendingInteractions"] == []
        provider.add([Text("Tuesday it is")])
        await _resume_to_the_end(s, snapshot, turn_id)
        assert s.log.of("interaction.request") == []  # not asked a second time
    assert "Tuesday" in _last_tool_result(provider)
