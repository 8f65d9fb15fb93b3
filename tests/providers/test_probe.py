"""``providers.probe``: the connection check behind "Test connection" and ``doctor``, and
the look for model servers on this computer, against real loopback servers."""

from __future__ import annotations

import socket

import httpx
import pytest
from tests.support.local_model import GOOD_KEY, MODELS, NO_TOOLS, REFUSAL, serve_local_model
from tests.support.web import port_of, serve_html

from panelot_host.credentials.secret import Secret
from panelot_host.providers.config import load_provider_config
from panelot_host.providers.probe import (
    LOCAL_SERVERS,
    check_connection,
    check_ready,
    discover_local,
    local_ports,
    readiness,
)

pytestmark = pytest.mark.anyio


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _local(port: int, model: str = MODELS[0]):  # type: ignore[no-untyped-def]
    return load_provider_config(
        {}, {"provider": "openai", "baseUrl": f"http://127.0.0.1:{port}/v1", "model": model}
    )


async def test_a_local_model_that_calls_tools_passes_with_its_list_and_latency() -> None:
    with serve_local_model() as (port, seen):
        async with httpx.AsyncClient() as client:
            checked = await check_connection(_local(port), None, client)
    assert checked.ok and checked.cause is None, checked
    assert checked.model == MODELS[0] and checked.models == tuple(sorted(MODELS))
    assert checked.latency_ms is not None and checked.latency_ms >= 0
    assert seen == [("GET", "/v1/models"), ("POST", "/v1/chat/completions")]


async def test_a_refused_key_is_named_with_the_providers_words_and_never_the_key() -> None:
    wrong = "sk-wrong-0123456789"
    with serve_local_model() as (port, _):
        async with httpx.AsyncClient() as client:
            checked = await check_connection(_local(port), Secret(wrong), client)
            good = await check_connection(_local(port), Secret(GOOD_KEY), client)
    assert not checked.ok and checked.cause == "bad_key" and checked.http_status == 401
    assert checked.message == "The server refused this key."
    assert checked.detail == REFUSAL
    assert wrong not in repr(checked) and good.ok  # the control: the right key passes


async def test_nothing_listening_is_a_server_not_running() -> None:
    port = _closed_port()
    async with httpx.AsyncClient() as client:
        checked = await check_connection(_local(port), None, client)
    assert checked.cause == "not_running" and "is the server running" in checked.message


async def test_a_url_that_serves_something_else_is_a_wrong_url() -> None:
    with serve_html(lambda _path: "<html>a web app, not a model server</html>") as base:
        port = port_of(base)
        async with httpx.AsyncClient() as client:
            checked = await check_connection(_local(port), None, client)
    assert checked.cause == "wrong_url" and "check the URL" in checked.message
    with serve_local_model() as (port, _):
        config = load_provider_config(
            {}, {"provider": "openai", "baseUrl": f"http://127.0.0.1:{port}/api", "model": "x"}
        )
        async with httpx.AsyncClient() as client:
            missing = await check_connection(config, None, client)
    assert missing.cause == "wrong_url" and "HTTP 404" in missing.message


async def test_a_model_the_server_does_not_have_lists_the_ones_it_has() -> None:
    with serve_local_model() as (port, seen):
        async with httpx.AsyncClient() as client:
            checked = await check_connection(_local(port, "mistral"), None, client)
    assert checked.cause == "unknown_model"
    assert all(model in checked.message for model in MODELS)
    assert ("POST", "/v1/chat/completions") not in seen  # nothing more was asked


async def test_a_model_that_cannot_call_tools_is_named() -> None:
    with serve_local_model() as (port, _):
        async with httpx.AsyncClient() as client:
            checked = await check_connection(_local(port, NO_TOOLS), None, client)
    assert checked.cause == "no_tools" and NO_TOOLS in checked.message
    assert checked.detail is not None and "does not support tools" in checked.detail


async def test_anthropic_is_checked_by_its_model_list_alone() -> None:
    with serve_local_model() as (port, seen):
        config = load_provider_config(
            {}, {"provider": "anthropic", "baseUrl": f"http://127.0.0.1:{port}"}
        )
        async with httpx.AsyncClient() as client:
            checked = await check_connection(config, Secret(GOOD_KEY), client)
    assert checked.cause is None and seen == [("GET", "/v1/models")]


def test_readiness_says_why_no_turn_could_start() -> None:
    nothing = readiness({}, {}, None, lambda ref: None)
    assert not nothing.ready and nothing.cause == "not_configured"
    assert "environment" not in (nothing.reason or "").lower()
    keyless = readiness({}, {"provider": "anthropic"}, None, lambda ref: None)
    assert keyless.cause == "key_missing" and "API key" in (keyless.reason or "")
    server = {"provider": "openai", "baseUrl": "http://127.0.0.1:11434/v1"}
    no_model = readiness({}, server, None, lambda ref: None)
    assert no_model.cause == "not_configured" and "PANELOT_MODEL" not in (no_model.reason or "")
    local = readiness({}, {**server, "model": "llama3.1"}, None, lambda ref: None)
    assert local.ready and local.source == "settings"
    env = readiness({"ANTHROPIC_API_KEY": "sk-ant-x"}, {}, None, lambda ref: None)
    assert env.ready and env.source == "environment"


async def test_a_check_without_a_configuration_sends_nothing() -> None:
    async with httpx.AsyncClient() as client:
        checked = await check_ready(readiness({}, {}, None, lambda ref: None), client)
    assert not checked.ok and checked.cause == "not_configured" and checked.url is None


async def test_discovery_finds_model_servers_and_skips_the_rest() -> None:
    web_app = serve_html(lambda _path: "<html>a web app, not a model server</html>")
    with serve_local_model() as (model_port, _), web_app as web_base:
        web_port = port_of(web_base)
        closed = _closed_port()
        ports = local_ports({"PANELOT_LOCAL_MODEL_PORTS": f"{closed}, {web_port},{model_port}"})
        assert ports == (closed, web_port, model_port)
        async with httpx.AsyncClient() as client:
            found = await discover_local(ports, client)
    assert [(s.port, s.base_url) for s in found] == [
        (model_port, f"http://127.0.0.1:{model_port}/v1")
    ]
    assert found[0].models == tuple(sorted(MODELS))


def test_the_usual_ports_unless_told_otherwise() -> None:
    assert local_ports({}) == (11434, 1234, 8080, 8000) == tuple(LOCAL_SERVERS)
    assert local_ports({"PANELOT_LOCAL_MODEL_PORTS": "x, 70000, 9000"}) == (9000,)
