"""Configuration from env and settings, key resolution, and the provider factory."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from msgspec.json import encode

from panelot_host.credentials import CredentialStore
from panelot_host.errors import ProviderConfigError, ProviderHTTPError
from panelot_host.providers.anthropic import AnthropicProvider
from panelot_host.providers.config import (
    build_provider,
    load_provider_config,
    model_info,
    resolve_api_key,
)
from panelot_host.providers.openai import OpenAIProvider
from panelot_host.providers.scripted import ScriptedProvider
from panelot_host.providers.types import TextDelta

from .fixtures import OPENAI
from .streams import REQUEST, collect


def test_nothing_configured_says_which_variable_to_set() -> None:
    with pytest.raises(ProviderConfigError) as info:
        load_provider_config({})
    message = str(info.value)
    assert "ANTHROPIC_API_KEY" in message and "OPENAI_API_KEY" in message
    assert "OPENAI_BASE_URL=http://127.0.0.1:11434/v1 PANELOT_MODEL=llama3.1" in message


def test_provider_defaults_to_whichever_key_is_set() -> None:
    anthropic = load_provider_config({"ANTHROPIC_API_KEY": "a"})
    assert (anthropic.provider, anthropic.model) == ("anthropic", "claude-sonnet-4-5")
    env = {"OPENAI_API_KEY": "sk-secret-9f8e7d", "PANELOT_TASK_MODEL": "gpt-4.1-mini"}
    openai = load_provider_config(env)
    assert (openai.provider, openai.model, openai.task_model) == (
        "openai",
        "gpt-4.1",
        "gpt-4.1-mini",
    )
    # even an encoder told to write whatever it cannot encode writes the key redacted
    assert "9f8e7d" not in repr(openai) and b"9f8e7d" not in encode(openai, enc_hook=repr)


def test_local_server_needs_a_model_name_but_no_key() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}
    with pytest.raises(ProviderConfigError, match="Set PANELOT_MODEL"):
        load_provider_config(env)
    config = load_provider_config({**env, "PANELOT_MODEL": "llama3.1"})
    provider = build_provider(config, None)
    assert isinstance(provider, OpenAIProvider)


def test_settings_override_env_and_capabilities_env_is_honoured() -> None:
    env = {
        "PANELOT_PROVIDER": "openai",
        "OPENAI_API_KEY": "o",
        "PANELOT_MODEL": "gpt-4o",
        "PANELOT_MODEL_CAPABILITIES": "",
    }
    assert model_info(load_provider_config(env)).tool_use is False
    config = load_provider_config(env, {"model": "gpt-4.1", "modelCapabilities": ["tools"]})
    info = model_info(config)
    assert (config.model, info.tool_use, info.vision) == ("gpt-4.1", True, False)


def test_invalid_values_are_config_errors() -> None:
    with pytest.raises(ProviderConfigError, match="'gemini' is not supported"):
        load_provider_config({"PANELOT_PROVIDER": "gemini"})
    with pytest.raises(ProviderConfigError, match="base_url"):
        load_provider_config({"ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "ftp://x"})
    with pytest.raises(ProviderConfigError, match="PANELOT_MODEL_CAPABILITIES"):
        load_provider_config({"ANTHROPIC_API_KEY": "a", "PANELOT_MODEL_CAPABILITIES": "x"})


def test_official_providers_without_a_key_fail_clearly() -> None:
    config = load_provider_config({"PANELOT_PROVIDER": "anthropic"})
    with pytest.raises(ProviderConfigError, match="set ANTHROPIC_API_KEY"):
        build_provider(config, None)


def test_key_resolution_prefers_the_stored_credential(tmp_path: Path) -> None:
    store = CredentialStore(tmp_path / "home", key_dir=tmp_path / "keys", keyring_backend=None)
    store.set("anthropic-main", "stored-key")
    env = {"ANTHROPIC_API_KEY": "env-key"}
    with_ref = load_provider_config(env, {"apiKeyRef": "anthropic-main"})
    key = resolve_api_key(with_ref, store)
    assert key is not None and key.reveal() == "stored-key"
    missing = load_provider_config(env, {"apiKeyRef": "gone"})
    key = resolve_api_key(missing, store)
    assert key is not None and key.reveal() == "env-key"
    assert isinstance(build_provider(with_ref, store), AnthropicProvider)


@pytest.mark.anyio
async def test_factory_accepts_a_transport_for_tests() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = OPENAI["text"][0]
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    config = load_provider_config({"OPENAI_API_KEY": "sk-test-123"})
    provider = build_provider(config, None, transport=httpx.MockTransport(handler))
    assert await collect(provider, REQUEST) == OPENAI["text"][1]
    assert seen[0].url == "https://api.openai.com/v1/chat/completions"
    assert seen[0].headers["authorization"] == "Bearer sk-test-123"
    body = json.loads(seen[0].content)  # reasoning models reject max_tokens
    assert body["max_completion_tokens"] == REQUEST.max_tokens and "max_tokens" not in body


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("provider", "base_url", "url"),
    [
        ("anthropic", None, "https://api.anthropic.com/v1/messages"),
        ("anthropic", "http://127.0.0.1:8/", "http://127.0.0.1:8/v1/messages"),
        ("anthropic", "http://127.0.0.1:8/v1/", "http://127.0.0.1:8/v1/messages"),
        ("openai", None, "https://api.openai.com/v1/chat/completions"),
        ("openai", "http://127.0.0.1:8/v1/", "http://127.0.0.1:8/v1/chat/completions"),
    ],
)
async def test_base_urls_with_or_without_a_trailing_v1_or_slash_reach_the_endpoint(
    provider: str, base_url: str | None, url: str
) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(400)

    settings = {"provider": provider, "model": "m", "baseUrl": base_url}
    config = load_provider_config({"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, settings)
    built = build_provider(config, None, transport=httpx.MockTransport(handler))
    with pytest.raises(ProviderHTTPError):
        await collect(built, REQUEST)
    assert [str(r.url) for r in seen] == [url]


@pytest.mark.anyio
async def test_scripted_provider_for_demo_mode() -> None:
    provider = build_provider(load_provider_config({"PANELOT_PROVIDER": "scripted"}), None)
    assert isinstance(provider, ScriptedProvider)
    text = "".join(e.text for e in await collect(provider, REQUEST) if isinstance(e, TextDelta))
    assert text == "You said: Hi"
