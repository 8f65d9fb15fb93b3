"""How the engine reaches models: the configured provider, its metadata and the task model."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import msgspec

from panelot_host.providers.catalog import ModelCatalog, ModelInfo
from panelot_host.providers.config import (
    build_provider_with_key,
    load_provider_config,
    model_info,
    resolve_api_key,
)
from panelot_host.providers.types import Provider, ReasoningEffort
from panelot_host.tools.capabilities import ModelCapabilities


class ResolvedModel(msgspec.Struct, frozen=True):
    """A provider ready to stream, with what the catalog knows about the model."""

    provider: Provider
    info: ModelInfo
    transport: str  # provider name + base URL: part of the run environment

    @property
    def model(self) -> str:
        return self.info.id

    @property
    def capabilities(self) -> ModelCapabilities:
        return ModelCapabilities(tool_use=self.info.tool_use, vision=self.info.vision)


class ModelAccess(Protocol):
    def resolve(self, model: str | None) -> ResolvedModel:
        """The provider for ``model`` (None: the configured default).

        Raises ``ProviderConfigError`` saying what to configure when nothing is.
        """
        ...

    def task_model(self) -> ResolvedModel | None:
        """The model for titles (``PANELOT_TASK_MODEL``), or None to keep the fallback."""
        ...

    async def aclose(self) -> None:
        """Release what the providers hold (HTTP clients)."""
        ...


class ConfiguredModels:
    """Providers from the environment and the stored settings (`docs/protocol.md`,
    "Launch and configuration")."""

    def __init__(
        self,
        env: Mapping[str, str],
        settings: Callable[[], Mapping[str, Any]],
        credentials: Any = None,
        catalog: ModelCatalog | None = None,
        key_origin: Callable[[str], str | None] | None = None,
    ) -> None:
        self._env = env
        self._key_origin = key_origin  # the origin each stored key was entered for
        self._settings = settings
        self._credentials = credentials
        self._catalog = catalog or ModelCatalog.load()
        # one client per configuration, with the fingerprint of the key it was built with
        self._providers: dict[str, tuple[str, Provider]] = {}
        self._retired: list[Provider] = []

    def resolve(self, model: str | None) -> ResolvedModel:
        config = load_provider_config(self._env, self._settings())
        if model:
            config = msgspec.structs.replace(config, model=model)
        secret = resolve_api_key(config, self._credentials, self._key_origin, self._env)
        fingerprint = secret.fingerprint if secret else ""
        # A rotated key (same reference, new secret) gets a new client; the fingerprint,
        # never the key, is what is compared.
        key = repr((config.provider, config.model, config.base_url, config.api_key_ref,
                    config.capabilities, config.api))  # fmt: skip
        cached = self._providers.get(key)
        if cached is None or cached[0] != fingerprint:
            if cached is not None:
                self._retired.append(cached[1])  # a running stream may still use it
            provider = build_provider_with_key(config, secret, catalog=self._catalog)
            cached = (fingerprint, provider)
            self._providers[key] = cached
        ref = config.api_key_ref or f"env:{config.provider}"
        transport = f"{config.provider}:{config.base_url or 'default'}:key={ref}"
        return ResolvedModel(cached[1], model_info(config, self._catalog), transport)

    async def aclose(self) -> None:
        """Close every client this built (the host is stopping)."""
        providers = [p for _, p in self._providers.values()] + self._retired
        self._providers, self._retired = {}, []
        for provider in providers:
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()

    def task_model(self) -> ResolvedModel | None:
        try:
            config = load_provider_config(self._env, self._settings())
        except Exception:
            return None
        return self.resolve(config.task_model) if config.task_model else None


class ReasoningOptions(msgspec.Struct, frozen=True):
    """How hard a model is asked to think (``settings.modelOptions``)."""

    effort: ReasoningEffort | None = None
    thinking_budget: int | None = None


MIN_THINKING_BUDGET = 1_024  # Anthropic's least budget_tokens


def reasoning_options(
    model_id: str, settings: Mapping[str, Any], max_tokens: int
) -> ReasoningOptions:
    """The reasoning effort and thinking budget the settings give ``model_id``. A thinking
    budget must stay below the call's ``max_tokens``: it is cut to fit, and dropped when
    less than ``MIN_THINKING_BUDGET`` would be left."""
    options = (settings.get("modelOptions") or {}).get(model_id) or {}
    effort = options.get("reasoningEffort")
    budget = options.get("thinkingBudget")
    if budget is not None:
        budget = min(int(budget), max_tokens - 1)
        if budget < MIN_THINKING_BUDGET:
            budget = None
    if effort not in ("low", "medium", "high"):
        effort = None
    return ReasoningOptions(effort=effort, thinking_budget=budget)
