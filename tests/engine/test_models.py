"""Configured models: a rotated secret behind the same reference is used, and is not drift."""

from __future__ import annotations

from panelot_host.credentials.secret import Secret
from panelot_host.engine.models import ConfiguredModels


class Vault:
    def __init__(self) -> None:
        self.secrets = {"main": "sk-ant-first-0000000000"}
        self.reads = 0

    def get(self, ref: str) -> Secret | None:
        self.reads += 1
        value = self.secrets.get(ref)
        return Secret(value) if value else None


def test_a_rotated_key_gets_a_new_client_and_the_same_transport() -> None:
    vault = Vault()
    settings = {"provider": "anthropic", "apiKeyRef": "main", "model": "claude-sonnet-4-5"}
    models = ConfiguredModels({}, lambda: settings, vault)
    first = models.resolve(None)
    assert vault.reads == 1  # the key is read once, also when the client is built
    assert models.resolve(None).provider is first.provider  # cached while nothing changes
    vault.secrets["main"] = "sk-ant-second-111111111"
    rotated = models.resolve(None)
    assert vault.reads == 3
    assert rotated.provider is not first.provider
    assert rotated.transport == first.transport  # the environment names the ref, not the key
    assert "sk-ant" not in rotated.transport


def test_changing_the_model_in_settings_is_seen_by_the_next_turn() -> None:
    vault = Vault()
    settings = {"provider": "anthropic", "apiKeyRef": "main", "model": "claude-sonnet-4-5"}
    models = ConfiguredModels({}, lambda: settings, vault)
    assert models.resolve(None).model == "claude-sonnet-4-5"
    settings["model"] = "claude-haiku-4-5"
    assert models.resolve(None).model == "claude-haiku-4-5"
    assert models.resolve("claude-opus-4-1").model == "claude-opus-4-1"
