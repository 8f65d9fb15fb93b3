"""Wire names come out exactly as protocol.md spells them (camelCase), and optional
fields are omitted while required nullable ones stay present."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from panelot_host.protocol import EVENTS, OPS, SHIM_REQUESTS, encode, ops
from panelot_host.protocol import events as ev
from panelot_host.protocol.common import ToolResult, Usage
from panelot_host.protocol.entities import Thread, Turn
from panelot_host.protocol.items import AssistantItem, ToolCallItem
from panelot_host.protocol.schema import generate

from . import samples

# The params/result fields named in protocol.md sections 4-6, per method.
SPEC_PARAMS: dict[str, set[str]] = {
    "initialize": {"protocolVersion", "client", "capabilities"},
    "thread.create": {"commandId", "title"},
    "thread.list": {"limit", "cursor", "query"},
    "thread.open": {"threadId"},
    "thread.delete": {"commandId", "threadId"},
    "thread.fork": {"commandId", "threadId", "atItemId"},
    "thread.selectBranch": {"commandId", "threadId", "itemId"},
    "thread.rename": {"commandId", "threadId", "title"},
    "turn.submit": {"commandId", "threadId", "text", "attachments", "model", "tokenBudget"},
    "turn.steer": {"commandId", "threadId", "expectedTurnId", "text"},
    "turn.enqueue": {"commandId", "threadId", "text"},
    "queue.update": {"commandId", "threadId", "entryId", "text"},
    "queue.remove": {"commandId", "threadId", "entryId", "text"},
    "turn.interrupt": {"threadId", "turnId"},
    "approval.response": {"commandId", "requestId", "decision", "scope", "message"},
    "interaction.response": {"commandId", "interactionId", "values"},
    "run.resume": {"commandId", "threadId", "runId", "tokenBudget"},
    "recovery.resolve": {"commandId", "toolCallId", "outcome"},
    "settings.get": set(),
    "settings.update": {"commandId", "mcpServers"},
    "credentials.set": {"commandId", "ref", "secret"},
    "credentials.delete": {"commandId", "ref", "secret"},
    "permissions.list": set(),
    "permissions.revoke": {"commandId", "grantId"},
    "browser.resolveTarget": {"tool", "args"},
    "browser.invoke": {"callId", "tool", "args", "target"},
}
SPEC_RESULTS: dict[str, set[str]] = {
    "initialize": {"protocolVersion", "engine", "capabilities"},
    "thread.create": {"thread"},
    "thread.list": {"threads", "nextCursor"},
    "thread.open": {
        "thread",
        "items",
        "turn",
        "run",
        "pendingApprovals",
        "pendingInteractions",
        "queue",
        "pendingSteering",
        "lastSeq",
    },
    "thread.fork": {"thread"},
    "thread.rename": {"thread"},
    "turn.submit": {"turnId"},
    "turn.steer": {"itemId"},
    "turn.enqueue": {"entryId", "position"},
    "queue.update": {"queue"},
    "queue.remove": {"queue"},
    "credentials.set": {"ref", "fingerprint"},
    "credentials.delete": {"ref", "fingerprint"},
    "browser.resolveTarget": {"tabId", "url", "origin", "title"},
    "browser.invoke": {"content", "details", "isError", "target"},
}
SPEC_EVENTS: dict[str, set[str]] = {
    "thread.updated": {"thread"},
    "turn.started": {"turnId", "runId", "userItemId"},
    "item.started": {"turnId", "item"},
    "item.completed": {"turnId", "item"},
    "item.delta": {"turnId", "itemId", "delta"},
    "approval.request": {"requestId", "toolCallId", "tool", "args", "target"},
    "approval.resolved": {"requestId", "toolCallId", "tool", "args", "target", "decision", "scope"},
    "interaction.request": {"interactionId", "prompt", "schema"},
    "interaction.resolved": {"interactionId", "prompt", "schema"},
    "queue.updated": {"queue"},
    "run.updated": {"runId", "state"},
    "turn.paused": {"turnId", "reason"},
    "turn.complete": {"turnId", "status", "stopReason", "error", "usage", "costUsd"},
    "$/chunk": {"chunkId", "index", "count", "data"},
    "$/error": {"code", "message"},
}
NO_SEQ = {"$/chunk", "$/error"}

# camelCase names the brief and protocol.md use, wherever they appear.
WIRE_NAMES = [
    "commandId",
    "expectedTurnId",
    "atItemId",
    "parentThreadId",
    "tokenBudget",
    "lastSeq",
    "nextCursor",
    "toolCallId",
    "costUsd",
    "inputTokens",
    "outputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "mediaType",
    "browserTools",
    "profileId",
    "protocolVersion",
    "pendingApprovals",
    "pendingInteractions",
    "pendingSteering",
    "entryId",
    "requestId",
    "interactionId",
    "runId",
    "userItemId",
    "stopReason",
    "chunkId",
    "forkedFromItemId",
    "titleSource",
    "createdAt",
    "updatedAt",
    "startedAt",
    "endedAt",
    "turnId",
    "threadId",
    "itemId",
    "callId",
    "isError",
    "tabId",
    "grantId",
    "mcpServers",
    "modelCapabilities",
    "taskModel",
    "defaultTokenBudget",
    "policyRules",
]


def _names(tp: Any) -> set[str]:
    return {f.encode_name for f in msgspec.structs.fields(tp)}


@pytest.mark.parametrize("method", sorted(SPEC_PARAMS))
def test_params_carry_the_spec_names(method: str) -> None:
    spec = OPS.get(method) or SHIM_REQUESTS[method]
    assert SPEC_PARAMS[method] <= _names(spec.params)


@pytest.mark.parametrize("method", sorted(SPEC_RESULTS))
def test_results_carry_the_spec_names(method: str) -> None:
    spec = OPS.get(method) or SHIM_REQUESTS[method]
    assert SPEC_RESULTS[method] <= _names(spec.result)


@pytest.mark.parametrize("method", sorted(SPEC_EVENTS))
def test_events_carry_the_spec_names(method: str) -> None:
    expected = SPEC_EVENTS[method] | (set() if method in NO_SEQ else {"threadId", "seq"})
    assert expected <= _names(EVENTS[method])


def _property_names(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        found |= set(node.get("properties", {}))
        for value in node.values():
            found |= _property_names(value)
    elif isinstance(node, list):
        for value in node:
            found |= _property_names(value)
    return found


def test_every_named_wire_field_exists_and_none_is_snake_case() -> None:
    names = _property_names(generate()["$defs"])
    assert set(WIRE_NAMES) <= names
    assert not [n for n in names if "_" in n]


def test_item_fields_match_protocol_md() -> None:
    common = {"id", "kind", "turnId", "createdAt"}
    wire = msgspec.json.decode(encode(samples.TOOL_CALL))
    assert common | {"callId", "name", "args", "status", "result"} <= set(wire)
    assert {"content", "details", "isError"} <= set(wire["result"])
    wire = msgspec.json.decode(encode(samples.ASSISTANT))
    assert common | {"text", "thinking", "interrupted"} <= set(wire)
    assert {"code", "text"} <= set(msgspec.json.decode(encode(samples.NOTICE)))


def test_absent_optionals_are_omitted() -> None:
    item = AssistantItem(id="i", turn_id="t", created_at=samples.T0, text="x")
    assert set(msgspec.json.decode(encode(item))) == {"kind", "id", "turnId", "createdAt", "text"}
    call = ToolCallItem(
        id="i", turn_id="t", created_at=samples.T0, call_id="c", name="n", args={}, status="running"
    )
    assert "result" not in msgspec.json.decode(encode(call))


def test_required_nullables_stay_present() -> None:
    done = ev.TurnCompleteEvent(
        thread_id="t", seq=1, turn_id="u", status="completed", usage=Usage(), cost_usd=None
    )
    wire = msgspec.json.decode(encode(done))
    assert wire["costUsd"] is None
    assert wire["usage"] == {
        "inputTokens": 0,
        "outputTokens": 0,
        "cacheReadTokens": 0,
        "cacheWriteTokens": 0,
        "reasoningTokens": 0,
    }
    listed = msgspec.json.decode(encode(ops.ThreadListResult(threads=[], next_cursor=None)))
    assert listed == {"threads": [], "nextCursor": None}
    turn = Turn(id="u", status="running", user_item_id="i", started_at=samples.T0, cost_usd=None)
    assert msgspec.json.decode(encode(turn))["costUsd"] is None
    thread = Thread(id="t", title="x", title_source="fallback", created_at="a", updated_at="a")
    assert msgspec.json.decode(encode(thread))["parentThreadId"] is None
    assert msgspec.json.decode(encode(ToolResult(content="x", is_error=False))) == {
        "content": "x",
        "isError": False,
    }
