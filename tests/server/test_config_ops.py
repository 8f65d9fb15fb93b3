"""settings.*, credentials.* and permissions.* over DirectTransport."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import pytest
from tests.conftest import EventLog
from tests.engine.helpers import new_thread, run_turn, wait_for
from tests.support.tools import ToolLog

from panelot_host.providers.scripted import ScriptedProvider, Text, ToolCall
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError

pytestmark = pytest.mark.anyio

CANARY = "sk-canary-3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c1e"


async def test_settings_update_and_get_round_trip(client: DirectTransport) -> None:
    updated = await client.send(
        "settings.update",
        {
            "commandId": "s1",
            "taskModel": "small-model",
            "defaultTokenBudget": 5000,
            "policyRules": [{"tool": "write_note", "decision": "deny"}],
        },
    )
    settings = updated["settings"]
    assert settings["taskModel"] == "small-model" and settings["defaultTokenBudget"] == 5000
    got = (await client.send("settings.get", {}))["settings"]
    assert got["policyRules"] == [{"tool": "write_note", "decision": "deny"}]
    reset = await client.send("settings.update", {"commandId": "s2", "defaultTokenBudget": None})
    assert reset["settings"]["defaultTokenBudget"] is None
    assert reset["settings"]["taskModel"] == "small-model"  # absent: unchanged


async def test_invalid_policy_rule_is_rejected_with_its_path(client: DirectTransport) -> None:
    with pytest.raises(RemoteError) as caught:
        await client.send(
            "settings.update",
            {"commandId": "s1", "policyRules": [{"tool": "x", "decision": "maybe"}]},
        )
    assert caught.value.code == -32602
    assert caught.value.data["errors"][0]["path"] == "$.params.policyRules[0]"


async def test_a_policy_deny_is_a_result_for_the_model_and_nothing_runs(
    client: DirectTransport, provider: ScriptedProvider, tool_log: ToolLog
) -> None:
    await client.send(
        "settings.update",
        {"commandId": "s1", "policyRules": [{"tool": "write_note", "decision": "deny"}]},
    )
    log = EventLog()
    client.on_event(log)
    provider.add([ToolCall("write_note", {"text": "x"})], [Text("denied, fine")])
    thread_id = await new_thread(client)
    done = await run_turn(client, log, thread_id, "write")
    assert done["status"] == "completed"
    assert tool_log.calls == [] and log.of("approval.request") == []
    call = next(p["item"] for p in log.of("item.completed") if p["item"]["kind"] == "toolCall")
    assert call["status"] == "denied" and "policy" in call["result"]["content"]


async def test_credentials_never_leave_the_vault(
    client: DirectTransport, host: Host, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    log = EventLog()
    client.on_event(log)
    result = await client.send(
        "credentials.set", {"commandId": "k1", "ref": "anthropic-main", "secret": CANARY}
    )
    assert result["ref"] == "anthropic-main" and result["fingerprint"].startswith("sha256:")
    assert CANARY not in str(result)
    again = await client.send(
        "credentials.set", {"commandId": "k1", "ref": "anthropic-main", "secret": CANARY}
    )
    assert again == result
    await client.send("settings.update", {"commandId": "s1", "apiKeyRef": "anthropic-main"})
    settings = await client.send("settings.get", {})
    assert settings["settings"]["apiKeyRef"] == "anthropic-main"
    profile = host.profile
    assert profile is not None
    profile.db.conn.execute("PRAGMA wal_checkpoint(FULL)")
    assert _files_holding(home, CANARY) == []
    assert CANARY not in caplog.text
    assert CANARY not in str(log.events) + str(settings)
    deleted = await client.send("credentials.delete", {"commandId": "k2", "ref": "anthropic-main"})
    assert deleted["fingerprint"] == result["fingerprint"]


async def test_permissions_list_revoke_and_export(
    client: DirectTransport, provider: ScriptedProvider, host: Host
) -> None:
    thread_id, request = await _allow_for_the_thread(client, provider)
    grants = (await client.send("permissions.list", {}))["grants"]
    assert [(g["scope"], g["tool"], g["decision"]) for g in grants] == [
        ("thread", "write_note", "allow")
    ]
    assert grants[0]["threadId"] == thread_id
    left = await client.send("permissions.revoke", {"commandId": "r", "grantId": grants[0]["id"]})
    assert left["grants"] == []
    with pytest.raises(RemoteError) as gone:
        await client.send("permissions.revoke", {"commandId": "r2", "grantId": grants[0]["id"]})
    assert gone.value.kind == "not_found"
    profile = host.profile
    assert profile is not None
    ledger = profile.ensure_engine().config.export_ledger()
    assert request["requestId"].encode() in ledger and b"revokedAt" in ledger


async def _allow_for_the_thread(
    client: DirectTransport, provider: ScriptedProvider
) -> tuple[str, dict]:  # type: ignore[type-arg]
    """A turn whose write call the user allows for the whole thread (creates a grant)."""
    log = EventLog()
    client.on_event(log)
    provider.add([ToolCall("write_note", {"text": "a"})], [Text("ok")])
    thread_id = await new_thread(client)
    turn = await client.send("turn.submit", {"commandId": "t", "threadId": thread_id, "text": "x"})
    request = (await wait_for(log, "approval.request"))[0]
    answer = {"commandId": "a", "requestId": request["requestId"], "decision": "allow"}
    await client.send("approval.response", {**answer, "scope": "thread"})
    await wait_for(log, "turn.complete", turnId=turn["turnId"])
    return thread_id, request


def _files_holding(folder: Path, text: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


async def test_the_grant_ledger_exports_from_the_command_line(
    client: DirectTransport, provider: ScriptedProvider, home: Path
) -> None:
    import json
    import os
    import sys

    _, request = await _allow_for_the_thread(client, provider)
    done = await anyio.run_process(
        [sys.executable, "-m", "panelot_host", "permissions", "export"],
        env={**os.environ, "PANELOT_HOME": str(home)},
    )
    ledger = json.loads(done.stdout)
    assert request["requestId"] in json.dumps(ledger)
