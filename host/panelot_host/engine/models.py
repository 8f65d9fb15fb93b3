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
                    config.capabilities))  # fmt: skip
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
