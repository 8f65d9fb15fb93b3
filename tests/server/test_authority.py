"""Authority is not widened by a plain settings call (issue 11, item 5): plain http only to
this machine, keys bound to the provider origin they were entered for, and every widening
reported as ``authority.widened``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EventLog

from panelot_host.credentials.secret import Secret
from panelot_host.engine.models import ConfiguredModels
from panelot_host.errors import ProviderConfigError
from panelot_host.providers.config import load_provider_config, resolve_api_key
from panelot_host.server.transport import DirectTransport, RemoteError

pytestmark = pytest.mark.anyio
KEY = "a-stored-key-of-any-shape-1234"


@pytest.mark.parametrize(
    "url",
    [
        "http://api.example.com/v1",
        "http://192.168.1.20:11434/v1",
        "ftp://x.example",
        "http://127.attacker.test/v1",  # issue 25: looks local, is someone's DNS
        "http://localhost.attacker.test:11434/v1",
    ],
)
async def test_plain_http_to_another_machine_is_refused(client: DirectTransport, url: str) -> None:
    with pytest.raises(RemoteError) as caught:
        await client.send("settings.update", {"commandId": "s1", "baseUrl": url})
    assert caught.value.code == -32602
    assert caught.value.data["errors"][0]["path"] == "$.params.baseUrl"


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:11434/v1", "http://localhost:1234/v1", "https://llm.example/v1"]
)
async def test_loopback_http_and_any_https_are_accepted(client: DirectTransport, url: str) -> None:
    updated = await client.send("settings.update", {"commandId": "s1", "baseUrl": url})
    assert updated["settings"]["baseUrl"] == url


async def test_every_widening_change_is_an_event_to_every_connection(
    client: DirectTransport,
) -> None:
    log = EventLog()
    client.on_event(log)
    await client.send(
        "settings.update",
        {
            "commandId": "s1",
            "baseUrl": "https://llm.example/v1",
            "policyRules": [
                {"tool": "browser_*", "decision": "allow"},
                {"tool": "x", "decision": "deny"},
            ],
        },
    )
    (event,) = log.of("authority.widened")
    assert event["commandId"] == "s1"
    kinds = [c["kind"] for c in event["changes"]]
    assert kinds == ["base_url", "policy_allow"]
    assert "llm.example" in event["changes"][0]["summary"]
    # the same settings again widen nothing
    await client.send("settings.update", {"commandId": "s2", "defaultTokenBudget": 100})
    assert len(log.of("authority.widened")) == 1
    await client.send(
        "credentials.set",
        {"commandId": "k1", "ref": "llm", "secret": KEY, "origin": "https://llm.example"},
    )
    last = log.of("authority.widened")[-1]
    assert last["changes"][0]["kind"] == "credential_origin"
    assert "https://llm.example" in last["changes"][0]["summary"]
    assert KEY not in str(log.of("authority.widened"))


async def _widened(client: DirectTransport, command_id: str, **changes: Any) -> list[Any]:
    """The changes ``settings.update`` with ``changes`` reported (none: no event)."""
    log = EventLog()
    client.on_event(log)
    await client.send("settings.update", {"commandId": command_id, **changes})
    events = [e for e in log.of("authority.widened") if e["commandId"] == command_id]
    assert len(events) <= 1
    return events[0]["changes"] if events else []


async def test_removing_or_loosening_a_rule_that_denied_or_asked_widens(
    client: DirectTransport,
) -> None:
    deny = {"tool": "browser_type", "origin": "https://bank.example", "decision": "deny"}
    ask = {"tool": "browser_click", "decision": "ask", "id": "clicks"}
    keep = {"effect": "write", "decision": "ask"}
    assert await _widened(client, "r1", policyRules=[deny, ask, keep]) == []
    removed = await _widened(client, "r2", policyRules=[ask, keep])
    assert [c["kind"] for c in removed] == ["policy_loosened"]
    assert "browser_type" in removed[0]["summary"] and "bank.example" in removed[0]["summary"]
    assert "deny" in removed[0]["summary"]
    loosened = await _widened(client, "r3", policyRules=[{**ask, "decision": "allow"}, keep])
    assert [c["kind"] for c in loosened] == ["policy_allow"]
    assert "browser_click" in loosened[0]["summary"] and "was ask" in loosened[0]["summary"]
    await _widened(client, "r4", policyRules=[deny, keep])
    to_ask = await _widened(client, "r5", policyRules=[{**deny, "decision": "ask"}, keep])
    assert [c["kind"] for c in to_ask] == ["policy_loosened"]
    assert "from deny to ask" in to_ask[0]["summary"] and "browser_type" in to_ask[0]["summary"]
    # stricter, reordered or renamed rules widen nothing; a reset drops every rule
    assert await _widened(client, "r6", policyRules=[keep, {**deny, "id": "no-bank"}]) == []
    reset = await _widened(client, "r7", policyRules=None)
    assert sorted(c["summary"].split(": ", 1)[1] for c in reset) == [
        "tool any with effect write",
        "tool browser_type on https://bank.example (rule 'no-bank')",
    ]


async def test_leaving_a_local_server_for_a_cloud_provider_widens(
    client: DirectTransport,
) -> None:
    local = {"provider": "openai", "baseUrl": "http://127.0.0.1:11434/v1", "model": "llama3.1"}
    await _widened(client, "p1", **local)
    cloud = await _widened(client, "p2", provider="anthropic", baseUrl=None, model=None)
    assert [c["kind"] for c in cloud] == ["base_url"]
    summary = cloud[0]["summary"]
    assert "https://api.anthropic.com" in summary and "conversations" in summary
    assert "leave this machine (http://127.0.0.1:11434)" in summary
    await _widened(client, "p3", **local)
    remote = await _widened(client, "p4", baseUrl="https://llm.example/v1")
    assert (
        "leave this machine (http://127.0.0.1:11434) for https://llm.example/v1"
        in (remote[0]["summary"])
    )
    # the same destination again, or another local server, leaves nothing new
    assert await _widened(client, "p5", model="other", baseUrl="https://llm.example/v1") == []


async def test_an_mcp_servers_new_environment_and_directory_are_named_never_valued(
    client: DirectTransport, tmp_path: Path
) -> None:
    server = {"command": "mcp-files", "args": ["--root", "/data"], "disabled": True}
    with_env = {**server, "env": {"LOG_LEVEL": "info"}}
    await _widened(client, "m1", mcpServers={"files": with_env})
    preload = {**server, "env": {"LOG_LEVEL": "********", "LD_PRELOAD": "/tmp/evil-lib.so"}}
    added = await _widened(client, "m2", mcpServers={"files": preload})
    assert [c["kind"] for c in added] == ["mcp_command"]
    assert "new environment variables: LD_PRELOAD" in added[0]["summary"]
    assert "LOG_LEVEL" not in added[0]["summary"]  # kept as it was
    changed = {**server, "env": {"LOG_LEVEL": "********", "LD_PRELOAD": "/tmp/other.so"}}
    (change,) = await _widened(client, "m3", mcpServers={"files": changed})
    assert "changed environment variables: LD_PRELOAD" in change["summary"]
    moved = {**changed, "env": {"LOG_LEVEL": "********", "LD_PRELOAD": "********"}}
    (cwd,) = await _widened(client, "m4", mcpServers={"files": {**moved, "cwd": str(tmp_path)}})
    assert f"working directory: {tmp_path}" in cwd["summary"]
    assert "environment" not in cwd["summary"]
    assert await _widened(client, "m5", mcpServers={"files": {**moved, "cwd": str(tmp_path)}}) == []
    every = str([added, change, cwd])
    assert "evil-lib" not in every and "other.so" not in every and "info" not in every


class _Store:
    def __init__(self, secrets: Mapping[str, str]) -> None:
        self._secrets = secrets

    def get(self, ref: str) -> Secret | None:
        value = self._secrets.get(ref)
        return Secret(value) if value else None


def _config(settings: dict[str, Any], env: dict[str, str] | None = None) -> Any:
    return load_provider_config(env or {"PANELOT_PROVIDER": "openai"}, settings)


def test_a_stored_key_goes_only_to_the_origin_it_was_entered_for() -> None:
    store = _Store({"k": KEY})
    bound = {"k": "https://llm.example"}
    same = _config({"baseUrl": "https://llm.example/v1", "apiKeyRef": "k", "model": "m"})
    assert resolve_api_key(same, store, bound.get, {}).reveal() == KEY  # type: ignore[union-attr]
    moved = _config({"baseUrl": "https://evil.example/v1", "apiKeyRef": "k", "model": "m"})
    with pytest.raises(ProviderConfigError, match=r"Enter the key again for https://evil\.example"):
        resolve_api_key(moved, store, bound.get, {})


def test_a_key_entered_with_no_origin_goes_only_to_official_apis_and_loopback() -> None:
    store = _Store({"k": KEY})
    unbound: dict[str, str] = {}
    official = _config({"apiKeyRef": "k"})
    assert resolve_api_key(official, store, unbound.get, {}) is not None
    local = _config({"baseUrl": "http://127.0.0.1:8080/v1", "apiKeyRef": "k", "model": "m"})
    assert resolve_api_key(local, store, unbound.get, {}) is not None
    remote = _config({"baseUrl": "https://evil.example/v1", "apiKeyRef": "k", "model": "m"})
    with pytest.raises(ProviderConfigError, match="no provider origin"):
        resolve_api_key(remote, store, unbound.get, {})


def test_the_environment_key_stays_with_the_environment_url() -> None:
    env = {"OPENAI_API_KEY": KEY}
    moved = load_provider_config(env, {"baseUrl": "https://evil.example/v1", "model": "m"})
    with pytest.raises(ProviderConfigError, match="OPENAI_API_KEY is meant for"):
        resolve_api_key(moved, None, {}.get, env)
    settings = {"baseUrl": "https://evil.example/v1", "model": "m"}
    models = ConfiguredModels(env, lambda: settings, key_origin={}.get)
    with pytest.raises(ProviderConfigError):
        models.resolve(None)
