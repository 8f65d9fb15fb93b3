"""``thread.export`` as JSON and ``thread.import``: a complete, versioned document that
imports back as a new thread reading the same, and bad documents that store nothing."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from tests.conftest import EventLog
from tests.engine.export_support import scripted_thread, without_ids
from tests.engine.helpers import answer_approval, new_thread, run_turn, wait_for

from panelot_host.protocol.thread_export_schema import SCHEMA_PATH
from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.server.transport import DirectTransport, RemoteError

pytestmark = pytest.mark.anyio


async def _export(client: DirectTransport, thread_id: str, **more: Any) -> dict[str, Any]:
    result = await client.send("thread.export", {"threadId": thread_id, "format": "json", **more})
    assert result["mime"] == "application/json" and result["fileName"].endswith(".json")
    document: dict[str, Any] = json.loads(result["text"])
    return document


async def _import(client: DirectTransport, document: Any, command_id: str = "imp") -> str:
    result = await client.send("thread.import", {"commandId": command_id, "document": document})
    thread_id: str = result["thread"]["id"]
    return thread_id


def _comparable_snapshot(snapshot: dict[str, Any]) -> dict[str, Any]:
    return without_ids({k: v for k, v in snapshot.items() if k != "lastSeq"})


async def test_a_json_export_is_complete_versioned_and_follows_its_schema(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    document = await _export(client, thread_id)
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text("utf-8"))).validate(document)
    assert (document["format"], document["version"]) == ("panelot.thread-export", 1)
    assert document["thread"]["title"] == "Weather notes"
    kinds = [i["kind"] for i in document["items"]]
    assert kinds.count("user") == 3  # both branches
    assert len(document["turns"]) == 3
    assert [len(t["modelCalls"]) for t in document["turns"]] == [2, 3, 1]
    assert document["turns"][0]["usage"] == {
        "inputTokens": 120,
        "outputTokens": 30,
        "cacheReadTokens": 0,
        "cacheWriteTokens": 0,
        "reasoningTokens": 0,
    }
    decided = [(a["decision"], a["decidedBy"], a["scope"]) for a in document["approvals"]]
    assert decided == [("allow", "user", "once"), ("deny", "user", "once")]
    calls = {i["callId"]: i for i in document["items"] if i["kind"] == "toolCall"}
    assert (calls["c1"]["status"], calls["c2"]["status"], calls["c3"]["status"]) == (
        "succeeded",
        "succeeded",
        "denied",
    )
    ids = [i["id"] for i in document["items"]]
    for index, item in enumerate(document["items"]):  # every item after its parent
        assert item.get("parentId") is None or item["parentId"] in ids[:index]


async def test_an_imported_export_reads_as_the_same_thread(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    document = await _export(client, thread_id)
    copy_id = await _import(client, document)
    assert copy_id != thread_id
    original = await client.send("thread.open", {"threadId": thread_id})
    copy = await client.send("thread.open", {"threadId": copy_id})
    assert copy["thread"]["id"] == copy_id
    assert {i["id"] for i in copy["items"]}.isdisjoint({i["id"] for i in original["items"]})
    assert _comparable_snapshot(copy) == _comparable_snapshot(original)
    again = await _export(client, copy_id)
    first = {k: v for k, v in document.items() if k != "exportedAt"}
    second = {k: v for k, v in again.items() if k != "exportedAt"}
    assert without_ids(second) == without_ids(first)


async def test_the_other_branch_of_an_import_is_there_to_select(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    copy_id = await _import(client, await _export(client, thread_id))
    copy = await client.send("thread.open", {"threadId": copy_id})
    (point,) = copy["branches"]
    other = next(c for c in point["choices"] if c["itemId"] != point["itemId"])
    switched = await client.send(
        "thread.selectBranch",
        {"commandId": "sel", "threadId": copy_id, "itemId": other["headItemId"]},
    )
    texts = [i.get("text") for i in switched["items"] if i["kind"] == "assistant"]
    assert texts[-1] == "Saved one note; the other was refused."


async def test_an_imported_thread_is_found_by_its_words(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    document = await _export(client, thread_id)
    await client.send("thread.delete", {"commandId": "del", "threadId": thread_id})
    copy_id = await _import(client, document)
    for words in ("sunny", "Weather notes", "refused"):
        found = await client.send("thread.list", {"query": words})
        assert [t["id"] for t in found["threads"]] == [copy_id], words


async def test_one_turn_exports_and_imports_alone(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    snapshot = await client.send("thread.open", {"threadId": thread_id})
    second = snapshot["turns"][1]["id"]
    document = await _export(client, thread_id, turnId=second)
    assert [t["id"] for t in document["turns"]] == [second]
    assert {i["turnId"] for i in document["items"]} == {second}
    copy = await client.send("thread.open", {"threadId": await _import(client, document)})
    first, *rest = document["items"]
    del first["parentId"]  # the Turn's first item starts the new thread
    assert without_ids(copy["items"]) == without_ids([first, *rest])
    assert [i["kind"] for i in copy["items"]].count("toolCall") == 2
    assert copy["thread"]["stats"]["turns"] == 1
    assert copy["thread"]["stats"]["inputTokens"] == snapshot["turns"][1]["usage"]["inputTokens"]


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: {**d, "version": 2}, "$.params.document.version"),
        (lambda d: {k: v for k, v in d.items() if k != "turns"}, "$.params.document"),
        (lambda d: {**d, "items": "many"}, "$.params.document.items"),
        (lambda d: {**d, "format": "panelot.workflow"}, "$.params.document.format"),
        (lambda d: {**d, "headItemId": "itm_nowhere"}, "$.params.document.headItemId"),
        (
            lambda d: {**d, "items": [d["items"][1], d["items"][0], *d["items"][2:]]},
            "$.params.document.items[0].parentId",
        ),
        (lambda d: {**d, "thread": {**d["thread"], "extra": _deep(80)}}, "$.params.document"),
        (
            lambda d: {**d, "approvals": [{**d["approvals"][0], "turnId": "trn_elsewhere"}]},
            "$.params.document.approvals[0].turnId",
        ),
        (
            lambda d: {**d, "turns": [{**d["turns"][0], "startedAt": 7}, *d["turns"][1:]]},
            "$.params.document.turns[0].startedAt",
        ),
        (
            lambda d: {**d, "turns": [{**d["turns"][0], "startedAt": "soon"}, *d["turns"][1:]]},
            "$.params.document",
        ),
    ],
    ids=[
        "version",
        "missing",
        "wrong-type",
        "format",
        "dangling-head",
        "orphan",
        "nesting",
        "foreign-turn",
        "bad-time",
        "not-a-time",
    ],
)
async def test_a_bad_document_is_refused_with_its_path_and_stores_nothing(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog, change: Any, path: str
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    document = await _export(client, thread_id)
    before = await client.send("thread.list", {})
    with pytest.raises(RemoteError) as refused:
        await _import(client, change(document), "bad")
    assert refused.value.kind == "invalid_params"
    assert path in [e["path"] for e in refused.value.data["errors"]]
    after = await client.send("thread.list", {})
    assert after == before


async def test_a_turn_still_running_when_exported_imports_interrupted(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    document = await _export(client, thread_id)
    last = document["turns"][-1]
    del last["endedAt"]
    document["turns"][-1] = {**last, "status": "running", "runState": "streaming"}
    copy = await client.send("thread.open", {"threadId": await _import(client, document)})
    assert copy["turn"]["status"] == "interrupted"
    assert copy["run"]["state"] == "interrupted"
    assert copy["thread"]["status"] == "interrupted"
    assert [t["status"] for t in copy["turns"]] == ["completed", "completed", "interrupted"]


async def test_an_import_repeated_with_its_command_id_stores_one_thread(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    thread_id = await scripted_thread(client, provider, log)
    document = await _export(client, thread_id)
    first = await _import(client, document, "once")
    assert await _import(client, document, "once") == first
    listed = await client.send("thread.list", {})
    assert len(listed["threads"]) == 2


async def test_calls_a_grant_or_a_rule_let_through_unasked_name_their_decider(
    client: DirectTransport, provider: ScriptedProvider, log: EventLog
) -> None:
    """A report says who allowed every call that ran, not only the ones asked about: the
    user's standing decision (a grant) or a policy rule."""
    rule = [{"tool": "write_note", "decision": "allow", "id": "notes-ok"}]
    await client.send("settings.update", {"commandId": "rule", "policyRules": rule})
    provider.add(
        [ToolCall("write_note", {"text": "by the rule"}, call_id="p1")],
        [Text("Noted.")],
        [ToolCall("write_note", {"text": "asked"}, call_id="g1")],
        [ToolCall("write_note", {"text": "by the grant"}, call_id="g2")],
        [Text("Both noted.")],
    )
    thread_id = await new_thread(client)
    await run_turn(client, log, thread_id, "note one thing")
    await client.send("settings.update", {"commandId": "no-rule", "policyRules": []})
    submitted = await client.send(
        "turn.submit", {"commandId": "s2", "threadId": thread_id, "text": "note two"}
    )
    asked = (await wait_for(log, "approval.request"))[0]
    await answer_approval(client, asked, "allow", "thread")
    await wait_for(log, "turn.complete", turnId=submitted["turnId"])
    assert len(log.of("approval.request")) == 1  # the second note ran on the grant

    snapshot = await client.send("thread.open", {"threadId": thread_id})
    calls = {i["callId"]: i for i in snapshot["items"] if i["kind"] == "toolCall"}
    assert calls["p1"]["allowedBy"] == "policy" and "notes-ok" in calls["p1"]["allowedBecause"]
    assert "allowedBy" not in calls["g1"]  # the user was asked: the approval says so
    assert calls["g2"]["allowedBy"] == "grant"

    document = await _export(client, thread_id)
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text("utf-8"))).validate(document)
    by_call = {calls[k]["id"]: k for k in calls}
    decided = sorted(
        (by_call[a["toolCallId"]], a["decision"], a["decidedBy"]) for a in document["approvals"]
    )
    assert decided == [("g1", "allow", "user"), ("g2", "allow", "grant"), ("p1", "allow", "policy")]

    report = await client.send("thread.export", {"threadId": thread_id, "format": "html"})
    assert "allowed by a policy rule" in report["text"]
    assert "allowed by a standing grant" in report["text"]
    transcript = await client.send("thread.export", {"threadId": thread_id, "format": "md"})
    assert "allowed by a standing grant" in transcript["text"]

    copy_id = await _import(client, document)
    copy = await client.send("thread.open", {"threadId": copy_id})
    copied = {i["callId"]: i.get("allowedBy") for i in copy["items"] if i["kind"] == "toolCall"}
    assert copied == {"p1": "policy", "g1": None, "g2": "grant"}
