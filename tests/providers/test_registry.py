"""The provider registry: one ``ProviderSpec`` per provider, the wire's names derived from
it, and the configuration errors users see (each names what to set)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest
from tests.support.probe import python_output

from panelot_host.credentials.secret import Secret
from panelot_host.errors import ProviderConfigError
from panelot_host.protocol.ops.config import Provider
from panelot_host.providers.anthropic import AnthropicProvider
from panelot_host.providers.config import ProviderConfig, build_provider, load_provider_config
from panelot_host.providers.openai import OpenAIProvider
from panelot_host.providers.registry import (
    OPENAI,
    OPENAI_COMPATIBLE,
    PROVIDERS,
    WIRE_PROVIDERS,
    ProviderName,
)
from panelot_host.providers.scripted import ScriptedProvider

SCHEMA = Path(__file__).resolve().parents[2] / "schema" / "protocol.schema.json"
LOCAL = "http://127.0.0.1:11434/v1"


def test_the_protocols_provider_names_are_the_registrys() -> None:
    assert get_args(Provider) == WIRE_PROVIDERS == ("anthropic", "openai")
    assert get_args(ProviderName) == tuple(PROVIDERS)
    schema = json.loads(SCHEMA.read_text("utf-8"))
    choices = schema["$defs"]["Settings"]["properties"]["provider"]["anyOf"]
    assert [tuple(c["enum"]) for c in choices if "enum" in c] == [WIRE_PROVIDERS]


def test_every_networked_provider_names_its_variables_and_models_endpoint() -> None:
    for spec in (*PROVIDERS.values(), OPENAI_COMPATIBLE):
        if not spec.sends_requests:
            assert spec.models_url is None and spec.headers(Secret("k")) == {}
            continue
        assert spec.key_variable and spec.url_variable and spec.models_url is not None
        auth = "x-api-key" if spec.name == "anthropic" else "authorization"
        assert spec.headers(Secret("k-123"))[auth].endswith("k-123")
        assert auth not in spec.headers(None)


def test_an_openai_base_url_off_openai_selects_the_compatible_spec() -> None:
    assert OPENAI.at(None) is OPENAI and OPENAI.at("https://api.openai.com/v1") is OPENAI
    compatible = load_provider_config({"OPENAI_BASE_URL": LOCAL, "PANELOT_MODEL": "llama3.1"})
    assert compatible.provider == "openai"  # the wire and the settings keep saying openai
    assert compatible.spec is OPENAI_COMPATIBLE and compatible.spec.key == "optional"
    assert compatible.destination == "http://127.0.0.1:11434"


@pytest.mark.parametrize(
    ("env", "adapter"),
    [
        ({"ANTHROPIC_API_KEY": "a"}, AnthropicProvider),
        ({"OPENAI_API_KEY": "o"}, OpenAIProvider),
        ({"OPENAI_BASE_URL": LOCAL, "PANELOT_MODEL": "llama3.1"}, OpenAIProvider),
        ({"PANELOT_PROVIDER": "scripted"}, ScriptedProvider),
    ],
)
def test_each_spec_builds_its_adapter(env: dict[str, str], adapter: type[object]) -> None:
    assert isinstance(build_provider(load_provider_config(env), None), adapter)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {},
            "No model provider is configured. Set ANTHROPIC_API_KEY (Claude) or "
            "OPENAI_API_KEY (OpenAI), or point at a local OpenAI-compatible server, e.g. "
            "OPENAI_BASE_URL=http://127.0.0.1:11434/v1 PANELOT_MODEL=llama3.1 (Ollama; "
            "LM Studio: http://127.0.0.1:1234/v1, llama.cpp server: http://127.0.0.1:8080/v1).",
        ),
        (
            {"PANELOT_PROVIDER": "gemini"},
            "PANELOT_PROVIDER='gemini' is not supported; use 'anthropic' or 'openai'",
        ),
        (
            {"OPENAI_BASE_URL": LOCAL},
            f"Set PANELOT_MODEL to a model your server at {LOCAL} serves "
            "(e.g. PANELOT_MODEL=llama3.1 for Ollama).",
        ),
        (
            {"ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "ftp://x"},
            "invalid provider configuration: base_url: ftp://x is not an http(s) URL",
        ),
        (
            {"OPENAI_BASE_URL": "http://models.example/v1", "PANELOT_MODEL": "m"},
            "invalid provider configuration: base_url: http://models.example/v1 is plain "
            "http to another machine: the API key and every conversation would cross the "
            "network unencrypted. Use https://, or http:// only to localhost / 127.0.0.1 "
            "(a local model server)",
        ),
    ],
)
def test_configuration_errors_say_what_to_set(env: dict[str, str], message: str) -> None:
    with pytest.raises(ProviderConfigError) as info:
        load_provider_config(env)
    assert str(info.value) == message


def test_a_configuration_built_by_hand_is_checked_field_by_field() -> None:
    with pytest.raises(ProviderConfigError) as info:
        ProviderConfig(provider="gemini", model="", base_url="ftp://x")  # type: ignore[arg-type]
    assert str(info.value) == (
        "invalid provider configuration: provider: 'gemini' is not one of 'anthropic', "
        "'openai' or 'scripted'; model: the model name is empty; base_url: ftp://x is not "
        "an http(s) URL"
    )


def test_an_official_api_without_a_key_says_where_to_put_one() -> None:
    with pytest.raises(ProviderConfigError) as info:
        build_provider(load_provider_config({"PANELOT_PROVIDER": "openai"}), None)
    assert str(info.value).startswith(
        "No API key for openai: set OPENAI_API_KEY, or store one with 'panelot-host "
        "credentials set openai' and 'panelot-host config set apiKeyRef openai' (or the "
        "side panel's settings), or point at a local OpenAI-compatible server"
    )


def test_reading_and_building_a_provider_imports_no_pydantic() -> None:
    probe = (
        "import sys\n"
        "from panelot_host.providers.config import build_provider, load_provider_config\n"
        "build_provider(load_provider_config({'ANTHROPIC_API_KEY': 'a'}), None)\n"
        "build_provider(load_provider_config({'OPENAI_API_KEY': 'o'}), None)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))\n"
    )
    out = python_output(probe)
    assert out.strip() == "[]"
