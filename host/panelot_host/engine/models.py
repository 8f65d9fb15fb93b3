"""How the engine reaches models: the configured provider, its metadata and the task model."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import msgspec

from panelot_host.providers.catalog import ModelCatalog, ModelInfo
from panelot_host.providers.types import Provider
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


class FixedModels:
    """One provider for every call (tests, demos): ``ScriptedProvider`` or a real adapter."""

    def __init__(
        self,
        provider: Provider,
        info: ModelInfo,
        *,
        task: ResolvedModel | None = None,
        transport: str = "fixed",
    ) -> None:
        self._resolved = ResolvedModel(provider, info, transport)
        self._task = task

    def resolve(self, model: str | None) -> ResolvedModel:
        if model is None or model == self._resolved.model:
            return self._resolved
        return msgspec.structs.replace(
            self._resolved, info=msgspec.structs.replace(self._resolved.info, id=model)
        )

    def task_model(self) -> ResolvedModel | None:
        return self._task


class ConfiguredModels:
    """Providers from the environment and the stored settings (protocol.md section 8)."""

    def __init__(
        self,
        env: Mapping[str, str],
        settings: Callable[[], Mapping[str, Any]],
        credentials: Any = None,
        catalog: ModelCatalog | None = None,
    ) -> None:
        self._env = env
        self._settings = settings
        self._credentials = credentials
        self._catalog = catalog or ModelCatalog.load()
        self._providers: dict[tuple[str, str], Provider] = {}

    def resolve(self, model: str | None) -> ResolvedModel:
        from panelot_host.providers.config import (
            build_provider,
            load_provider_config,
            resolve_api_key,
        )

        config = load_provider_config(self._env, self._settings())
        if model:
            config = config.model_copy(update={"model": model})
        info = self._catalog.lookup(config.model, config.capabilities)
        secret = resolve_api_key(config, self._credentials)
        # A rotated key (same reference, new secret) gets a new client; so does any change
        # of the configuration. The fingerprint, never the key, is part of the cache key.
        key = (
            repr((config.provider, config.model, config.base_url, config.api_key_ref)),
            repr(config.capabilities) + (secret.fingerprint if secret else ""),
        )
        provider = self._providers.get(key)
        if provider is None:
            provider = build_provider(config, self._credentials, catalog=self._catalog)
            self._providers[key] = provider
        ref = config.api_key_ref or f"env:{config.provider}"
        transport = f"{config.provider}:{config.base_url or 'default'}:key={ref}"
        return ResolvedModel(provider, info, transport)

    def task_model(self) -> ResolvedModel | None:
        from panelot_host.providers.config import load_provider_config

        try:
            config = load_provider_config(self._env, self._settings())
        except Exception:
            return None
        return self.resolve(config.task_model) if config.task_model else None
