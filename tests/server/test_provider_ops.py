"""provider.status, provider.discover and provider.test over DirectTransport: the first
run's setup, with the profile's settings and stored keys, against a real loopback model
server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from tests.support.local_model import GOOD_KEY, MODELS, REFUSAL, serve_local_model

from panelot_host.server.config import HostConfig
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport, RemoteError

pytestmark = pytest.mark.anyio


async def _connect(home: Path, environ: dict[str, str]) -> AsyncIterator[DirectTransport]:
    config = HostConfig(home=home, lease_wait_s=0.5, key_dir=home.parent / "keys", environ=environ)
    async with Host(config) as host, DirectTransport.connect(host) as client:
        await client.send(
            "initialize", {"protocolVersion": 1, "client": {"name": "pytest", "version": "0"}}
        )
        yield client


async def test_nothing_set_up_is_not_ready_and_a_turn_asks_for_the_setup(home: Path) -> None:
    async for client in _connect(home, {}):
        status = await client.send("provider.status", {})
        assert status["ready"] is False and status["provider"] is None
        assert "environment" not in status["reason"].lower()
        tested = await client.send("provider.test", {})
        assert tested["ok"] is False and tested["cause"] == "not_configured"
        thread = (await client.send("thread.create", {"commandId": "t1"}))["thread"]
        with pytest.raises(RemoteError) as refused:
            await client.send(
                "turn.submit",
                {"commandId": "s1", "threadId": thread["id"], "text": "hi"},
            )
        assert refused.value.data["setup"] is True
        assert "OPENAI_BASE_URL" in refused.value.data["shellHint"]  # for people in a shell
        opened = await client.send("thread.open", {"threadId": thread["id"]})
        assert opened["items"] == [] and opened["thread"]["status"] == "idle"  # nothing stored


async def test_a_local_server_is_found_chosen_and_tested(home: Path) -> None:
    with serve_local_model() as (port, seen):
        environ = {"PANELOT_LOCAL_MODEL_PORTS": str(port)}
        async for client in _connect(home, environ):
            found = (await client.send("provider.discover", {}))["servers"]
            assert [(s["port"], s["models"]) for s in found] == [(port, sorted(MODELS))]
            base = found[0]["baseUrl"]
            await client.send(
                "settings.update",
                {"commandId": "u1", "provider": "openai", "baseUrl": base, "model": MODELS[1]},
            )
            status = await client.send("provider.status", {})
            assert status["ready"] and status["source"] == "settings"
            tested = await client.send("provider.test", {})
            assert tested["ok"] and tested["model"] == MODELS[1]
            assert isinstance(tested["latencyMs"], int)
    assert ("POST", "/v1/chat/completions") in seen


async def test_a_stored_wrong_key_is_refused_by_the_server_in_its_words(home: Path) -> None:
    wrong = "sk-wrong-key-7f3e"
    with serve_local_model() as (port, _):
        async for client in _connect(home, {}):
            base = f"http://127.0.0.1:{port}/v1"
            await client.send(
                "credentials.set", {"commandId": "k1", "ref": "local", "secret": wrong}
            )
            await client.send(
                "settings.update",
                {
                    "commandId": "u1",
                    "provider": "openai",
                    "baseUrl": base,
                    "model": MODELS[0],
                    "apiKeyRef": "local",
                },
            )
            tested = await client.send("provider.test", {})
            assert tested["cause"] == "bad_key" and tested["detail"] == REFUSAL
            assert wrong not in str(tested)
            await client.send(
                "credentials.set", {"commandId": "k2", "ref": "local", "secret": GOOD_KEY}
            )
            assert (await client.send("provider.test", {}))["ok"]
