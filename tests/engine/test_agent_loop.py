"""Seed sections 1 and 2, one test per promise, through DirectTransport and the scripted
provider. The request invariants are checked on every request (tests/conftest.py)."""

from __future__ import annotations

import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn, wait_for
from tests.support.tools import ToolLog

from panelot_host.errors import ProviderHTTPError, ProviderStreamError
from panelot_host.providers.scripted import Fail, ScriptedProvider, Stop, Text, ToolCall
from panelot_host.providers.toolargs import MAX_ARGS_DEPTH
from panelot_host.providers.types import AssistantMessage, ToolCallPart, ToolResultMessage, Usage
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport

pytestmark = pytest.mark.anyio


@pytest.fixture
def log(client: DirectTransport) -> EventLog:
    events = EventLog()
    client.on_event(events)
    return events


async def _items(client: DirectTransport, thread_id: str) -> list[dict]:  # type: ignore[type-arg]
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    return list(snapshot["items"])


async def test_loop_continues_until_the_model_requests_no_more_tools(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    provider.add(
        [ToolCall("lookup", {"key": "a"}, call_id="c1")],
        [ToolCall("lookup", {"key": "b"}, call_id="c2")],
        [Text("a and b found")],
    )
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "look up a then b")
    assert done["status"] == "completed" and done["stopReason"] == "end_turn"
    assert tool_log.names() == ["lookup", "lookup"]
    assert len(provider.requests) == 3
    kinds = [i["kind"] for i in await _items(client, thread_id)]
    assert kinds == ["user", "assistant", "toolCall", "assistant", "toolCall", "assistant"]
    progress = [p["delta"].get("progress") for p in log.of("item.delta")]
    assert "looking up a" in progress


async def test_model_call_boundary_stores_message_usage_cost_and_stats(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    provider.add([Text("hello"), Stop("end_turn", usage=Usage(100, 20, 5, 7))])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "hi")
    assert done["usage"] == {
        "inputTokens": 100,
        "outputTokens": 20,
        "cacheReadTokens": 5,
        "cacheWriteTokens": 7,
        "reasoningTokens": 0,
    }
    assert done["costUsd"] is None  # the scripted model has no known price: never a made-up 0
    thread = (await client.send("thread.open", {"threadId": thread_id}))["thread"]
    assert thread["stats"]["turns"] == 1
    assert thread["stats"]["inputTokens"] == 100
    assert thread["stats"]["costUsd"] is None
    profile = host.profile
    assert profile is not None
    rows = profile.db.conn.execute("SELECT model, input_tokens FROM usage").fetchall()
    assert rows == [("scripted-model", 100)]


async def test_tool_errors_become_error_results_the_model_can_use(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([ToolCall("flaky", {}, call_id="f1")], [Text("the service is down, sorry")])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "try it")
    assert done["status"] == "completed"
    result = provider.requests[1].messages[-1]
    assert isinstance(result, ToolResultMessage) and result.is_error
    assert "the service is down" in result.content[0].text  # type: ignore[union-attr]
    call = next(i for i in await _items(client, thread_id) if i["kind"] == "toolCall")
    assert call["status"] == "failed" and call["result"]["isError"] is True


async def test_invalid_arguments_are_an_error_result_and_nothing_runs(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    provider.add(
        [ToolCall("lookup", {"wrong": 1}, call_id="v1")],
        [ToolCall("no_such_tool", {}, call_id="v2")],
        [ToolCall("lookup", raw_args='{"key": "broken', call_id="v3")],
        [Text("giving up")],
    )
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "go")
    assert tool_log.calls == []
    texts = [_last_result_text(r.messages) for r in provider.requests[1:]]
    assert "key" in texts[0]
    assert "no_such_tool" in texts[1]
    assert "not valid JSON" in texts[2]


@pytest.mark.parametrize("depth", [MAX_ARGS_DEPTH + 1, 5000])
async def test_arguments_nested_too_deeply_are_an_error_result_and_the_turn_goes_on(
    client: DirectTransport,
    provider: ScriptedProvider,
    log: EventLog,
    tool_log: ToolLog,
    depth: int,
) -> None:
    """Issue 25: 5,000 levels failed the whole turn as ``internal`` (RecursionError)."""
    raw = '{"key":' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
    provider.add(
        [ToolCall("lookup", raw_args=raw, call_id="d1")],
        [ToolCall("lookup", {"key": "a"}, call_id="d2")],
        [Text("found a")],
    )
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "go")
    assert done["status"] == "completed" and done["stopReason"] == "end_turn"
    assert tool_log.calls == [("lookup", {"key": "a"})]
    text = _last_result_text(provider.requests[1].messages)
    assert text.startswith("Invalid arguments for tool `lookup`; nothing was executed")
    assert f"deeper than {MAX_ARGS_DEPTH} levels" in text
    calls = [i for i in await _items(client, thread_id) if i["kind"] == "toolCall"]
    assert [c["status"] for c in calls] == ["failed", "succeeded"]
    assert calls[0]["args"] == {}


def _last_result_text(messages: list) -> str:  # type: ignore[type-arg]
    result = [m for m in messages if isinstance(m, ToolResultMessage)][-1]
    return result.content[0].text  # type: ignore[union-attr,no-any-return]


async def test_empty_and_duplicate_call_ids_are_replaced_consistently(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add(
        [
            ToolCall("lookup", {"key": "a"}, call_id=""),
            ToolCall("lookup", {"key": "b"}, call_id=""),
        ],
        [ToolCall("lookup", {"key": "c"}, call_id="dup")],
        [ToolCall("lookup", {"key": "d"}, call_id="dup")],
        [Text("done")],
    )
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "go")
    calls = [i for i in await _items(client, thread_id) if i["kind"] == "toolCall"]
    ids = [c["callId"] for c in calls]
    assert all(ids) and len(set(ids)) == 4
    assert ids[2] == "dup" and ids[3] != "dup"
    # the same ids in every later request
    last = provider.requests[-1]
    sent = [
        p.call_id
        for m in last.messages
        if isinstance(m, AssistantMessage)
        for p in m.content
        if isinstance(p, ToolCallPart)
    ]
    assert sent == ids


async def test_parallel_calls_rebuild_one_batch_followed_by_their_results(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    provider.add(
        [
            Text("three at once"),
            ToolCall("lookup", {"key": "x"}, call_id="p1"),
            ToolCall("flaky", {}, call_id="p2"),
            ToolCall("lookup", {"key": "y"}, call_id="p3"),
        ],
        [Text("done")],
    )
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "parallel")
    request = provider.requests[1]
    batch = request.messages[-4]
    assert isinstance(batch, AssistantMessage)
    assert [p.call_id for p in batch.content if isinstance(p, ToolCallPart)] == ["p1", "p2", "p3"]
    results = request.messages[-3:]
    assert [r.call_id for r in results] == ["p1", "p2", "p3"]  # type: ignore[union-attr]
    # however the rows are ordered on disk, the rebuild is the same
    profile = host.profile
    assert profile is not None
    profile.db.conn.execute("UPDATE item SET ord = -ord WHERE call_id IN ('p1', 'p3')")
    from panelot_host.engine.context_window.history import build_messages
    from panelot_host.store import items, threads

    head = threads.get(profile.db.conn, thread_id).head_item_id
    rebuilt = build_messages(items.branch(profile.db.conn, head))
    assert [r.call_id for r in rebuilt[2:5]] == ["p1", "p2", "p3"]  # type: ignore[union-attr]


async def test_tool_calls_with_a_non_tool_use_stop_reason_fail_before_any_side_effect(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, tool_log: ToolLog
) -> None:
    provider.add([Text("cut"), ToolCall("write_note", {"text": "x"}), Stop("max_tokens")])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "write")
    assert done["status"] == "failed" and done["error"]["kind"] == "provider"
    assert tool_log.calls == []
    kinds = [i["kind"] for i in await _items(client, thread_id)]
    assert kinds == ["user", "assistant"]


@pytest.mark.parametrize("reason", ["end_turn", "max_tokens", "stop_sequence", "content_filter"])
async def test_final_stop_reasons_end_the_turn_and_reach_the_client(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host, reason: str
) -> None:
    provider.add([Text("the answer"), Stop(reason)])  # type: ignore[arg-type]
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "q")
    assert done["status"] == "completed" and done["stopReason"] == reason
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    assert snapshot["turn"]["stopReason"] == reason and snapshot["run"]["state"] == "completed"


async def test_turn_complete_is_sent_only_after_every_write_committed(
    client: DirectTransport, provider: ScriptedProvider, host: Host
) -> None:
    provider.add([ToolCall("lookup", {"key": "k"})], [Text("ok")])
    thread_id = await new_thread(client)
    seen: list[tuple[str, str]] = []

    def on_event(method: str, params: dict) -> None:  # type: ignore[type-arg]
        if method == "turn.complete":
            profile = host.profile
            assert profile is not None
            row = profile.db.conn.execute(
                "SELECT status, ended_at IS NOT NULL FROM turn WHERE id = ?", (params["turnId"],)
            ).fetchone()
            run = profile.db.conn.execute(
                "SELECT state FROM run WHERE turn_id = ?", (params["turnId"],)
            ).fetchone()
            seen.append((row[0], run[0]))
            assert not profile.db.in_transaction

    client.on_event(on_event)
    log = EventLog()
    client.on_event(log)
    await run_turn(client, log, thread_id, "go")
    assert seen == [("completed", "completed")]


async def test_submit_right_after_turn_complete_never_gets_turn_active(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("one")], [Text("two")])
    thread_id = await new_thread(client)
    first = await client.send(
        "turn.submit", {"commandId": "s1", "threadId": thread_id, "text": "first"}
    )

    def submit_on_complete(method: str, params: dict) -> None:  # type: ignore[type-arg]
        if method == "turn.complete" and params["turnId"] == first["turnId"]:
            submitted.append(True)

    submitted: list[bool] = []
    client.on_event(submit_on_complete)

    await wait_for(log, "turn.complete", turnId=first["turnId"])
    second = await client.send(
        "turn.submit", {"commandId": "s2", "threadId": thread_id, "text": "second"}
    )
    await wait_for(log, "turn.complete", turnId=second["turnId"])
    assert submitted == [True]


async def test_retry_before_first_token_is_visible_then_succeeds(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Fail(ProviderHTTPError(529, "overloaded"))], [Text("made it")])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "q")
    assert done["status"] == "completed"
    notices = [p["item"] for p in log.of("item.completed") if p["item"]["kind"] == "notice"]
    assert notices and "attempt 2/5" in notices[0]["text"]


async def test_failure_after_streaming_keeps_partial_text_marked_interrupted(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    provider.add([Text("partial ans"), Fail(ProviderStreamError("connection lost"))])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "q")
    assert done["status"] == "failed" and done["error"]["kind"] == "provider"
    assistant = next(i for i in await _items(client, thread_id) if i["kind"] == "assistant")
    assert assistant["text"] == "partial ans" and assistant["interrupted"] is True
    assert provider.attempts == 1  # not retried silently


async def test_deltas_are_coalesced_and_no_text_is_lost(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    from panelot_host.providers.scripted import Pause

    text = "".join(f"word{n} " for n in range(400))
    provider.add([Text(text[:1000], chunks=200), Pause(0.05), Text(text[1000:], chunks=200)])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "talk")
    assert done["status"] == "completed"
    deltas = [p["delta"]["text"] for p in log.of("item.delta") if "text" in p["delta"]]
    assert "".join(deltas) == text
    assert 2 <= len(deltas) < 50  # 400 provider deltas, far fewer events


async def test_turn_admission_stores_context_message_and_run_in_one_transaction(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, host: Host
) -> None:
    provider.add([Text("ok")])
    thread_id = await new_thread(client)
    profile = host.profile
    assert profile is not None
    statements: list[str] = []
    profile.db.conn.set_trace_callback(statements.append)
    try:
        turn = await client.send(
            "turn.submit", {"commandId": "adm", "threadId": thread_id, "text": "hello"}
        )
    finally:
        profile.db.conn.set_trace_callback(None)
    begin = next(i for i, s in enumerate(statements) if s.startswith("BEGIN"))
    commit = next(i for i, s in enumerate(statements) if s.startswith("COMMIT") and i > begin)
    unit = statements[begin:commit]
    assert any(s.startswith("INSERT INTO item") for s in unit)  # the user message
    assert any(s.startswith("INSERT INTO turn") and "catalogDigest" in s for s in unit)
    assert any(s.startswith("INSERT INTO run") and "'streaming'" in s for s in unit)
    assert any(s.startswith("INSERT INTO command_receipt") for s in unit)
    await wait_for(log, "turn.complete", turnId=turn["turnId"])
