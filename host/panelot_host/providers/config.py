"""Provider configuration from the environment and settings, and the provider factory.

Environment (protocol section 8): ``PANELOT_PROVIDER`` (``anthropic``, ``openai``; default:
``anthropic`` when ``ANTHROPIC_API_KEY`` is set, else ``openai`` when ``OPENAI_API_KEY`` or
``OPENAI_BASE_URL`` is set), ``PANELOT_MODEL``, ``PANELOT_TASK_MODEL``,
``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
``PANELOT_MODEL_CAPABILITIES``. Settings (``settings.update``, camelCase keys ``provider``,
``model``, ``taskModel``, ``baseUrl``, ``apiKeyRef``, ``modelCapabilities``) override them.
``PANELOT_PROVIDER=scripted`` selects the scripted echo provider (demo mode);
``PANELOT_SCRIPTED=directives`` makes it follow directives in the messages instead
(``providers.directives``; ``PANELOT_SCRIPTED_LOG`` records its requests).

API key resolution: the settings' ``apiKeyRef`` in the credential store; else the
provider's environment key. OpenAI-compatible servers (a non-OpenAI base URL) may have none.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

import anyio
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from panelot_host.credentials.secret import Secret
from panelot_host.errors import ProviderConfigError
from panelot_host.providers.catalog import Capabilities, ModelCatalog, ModelInfo, parse_capabilities
from panelot_host.providers.endpoints import (
    ANTHROPIC_BASE_URL,
    DEFAULT_BASE_URLS,
    OPENAI_BASE_URL,
    is_loopback,
    is_official,
    origin_of,
    plain_http_problem,
)
from panelot_host.providers.retry import RetryPolicy, Sleep
from panelot_host.providers.types import Provider

if TYPE_CHECKING:  # the adapters (httpx) are imported only when a provider is built
    import httpx

    from panelot_host.credentials.store import CredentialStore

log = logging.getLogger(__name__)

ProviderName = Literal["anthropic", "openai", "scripted"]
DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1", "scripted": "scripted"}
KEY_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
URL_VARS = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}
LOCAL_HINT = (
    "or point at a local OpenAI-compatible server, e.g. "
    "OPENAI_BASE_URL=http://127.0.0.1:11434/v1 PANELOT_MODEL=llama3.1 (Ollama; LM Studio: "
    "http://127.0.0.1:1234/v1, llama.cpp server: http://127.0.0.1:8080/v1)"
)


class ProviderConfig(BaseModel):
    """Which provider and model to use; never holds a secret in a serialisable field."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    provider: ProviderName
    model: str = Field(min_length=1)
    task_model: str | None = None
    base_url: str | None = None
    api_key_ref: str | None = None
    capabilities: Capabilities | None = None  # None: from the known-models file
    env_api_key: Secret | None = Field(default=None, exclude=True, repr=False)
    scripted: str | None = Field(default=None, exclude=True)  # PANELOT_SCRIPTED
    scripted_log: str | None = Field(default=None, exclude=True)  # PANELOT_SCRIPTED_LOG

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None:
            problem = plain_http_problem(value)
            if problem is not None:
                raise ValueError(problem)
        return value

    @property
    def destination(self) -> str:
        """The origin model requests (and the API key) go to."""
        return origin_of(self.base_url or DEFAULT_BASE_URLS.get(self.provider, ""))


def load_provider_config(
    env: Mapping[str, str], settings: Mapping[str, Any] | None = None
) -> ProviderConfig:
    """Build the configuration from ``env`` (e.g. ``os.environ``) and ``settings``.

    Raises ``ProviderConfigError`` saying which variable to set when nothing is configured
    or a value is invalid.
    """
    settings = settings or {}
    provider = settings.get("provider") or env.get("PANELOT_PROVIDER") or _infer_provider(env)
    if provider not in DEFAULT_MODELS:
        raise ProviderConfigError(
            f"PANELOT_PROVIDER={provider!r} is not supported; use 'anthropic' or 'openai'"
        )
    provider = cast(ProviderName, provider)
    base_url = settings.get("baseUrl") or env.get(URL_VARS.get(provider, "")) or None
    env_key = env.get(KEY_VARS.get(provider, ""))
    try:
        return ProviderConfig(
            provider=provider,
            model=settings.get("model")
            or env.get("PANELOT_MODEL")
            or _default_model(provider, base_url),
            task_model=settings.get("taskModel") or env.get("PANELOT_TASK_MODEL") or None,
            base_url=base_url,
            api_key_ref=settings.get("apiKeyRef"),
            capabilities=_capabilities(env, settings),
            env_api_key=Secret(env_key) if env_key else None,
            scripted=env.get("PANELOT_SCRIPTED") or None,
            scripted_log=env.get("PANELOT_SCRIPTED_LOG") or None,
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ProviderConfigError(f"invalid provider configuration: {problems}") from None


def _infer_provider(env: Mapping[str, str]) -> str:
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        return "openai"
    raise ProviderConfigError(
        "No model provider is configured. Set ANTHROPIC_API_KEY (Claude) or OPENAI_API_KEY "
        f"(OpenAI), {LOCAL_HINT}."
    )


def _default_model(provider: str, base_url: str | None) -> str:
    if provider == "openai" and base_url and not is_official(base_url):
        raise ProviderConfigError(
            f"Set PANELOT_MODEL to a model your server at {base_url} serves "
            "(e.g. PANELOT_MODEL=llama3.1 for Ollama)."
        )
    return DEFAULT_MODELS[provider]


def _capabilities(env: Mapping[str, str], settings: Mapping[str, Any]) -> Capabilities | None:
    raw = settings.get("modelCapabilities")
    if raw is None:
        raw = env.get("PANELOT_MODEL_CAPABILITIES")
    if raw is None:
        return None
    text = raw if isinstance(raw, str) else ",".join(str(item) for item in raw)
    try:
        return parse_capabilities(text)
    except ValueError as exc:
        raise ProviderConfigError(str(exc)) from None


def model_info(config: ProviderConfig, catalog: ModelCatalog | None = None) -> ModelInfo:
    """Capabilities and price of the configured model (with the override applied)."""
    return (catalog or ModelCatalog.load()).lookup(config.model, config.capabilities)


def resolve_api_key(
    config: ProviderConfig,
    credentials: CredentialStore | None,
    key_origin: Callable[[str], str | None] | None = None,
    env: Mapping[str, str] | None = None,
) -> Secret | None:
    """The API key: ``api_key_ref`` from the credential store, else the environment key.

    A key goes only where it was meant to go (``docs/security.md``): a stored key to the
    origin it was entered for (``key_origin(ref)``; a key entered with no provider origin
    known goes only to the official APIs and this machine), the environment's key to the
    environment's base URL (or the official API). With ``key_origin`` and ``env`` given,
    a key whose origin is not the configured destination raises ``ProviderConfigError``
    saying to enter the key again for the new origin.
    """
    if config.api_key_ref and credentials is not None:
        stored = credentials.get(config.api_key_ref)
        if stored is not None:
            if key_origin is not None:
                _check_stored_key(config, key_origin(config.api_key_ref))
            return stored
        log.warning("credential %r not found; trying the environment key", config.api_key_ref)
    if config.env_api_key is not None and env is not None:
        _check_env_key(config, env)
    return config.env_api_key


def _check_stored_key(config: ProviderConfig, bound: str | None) -> None:
    destination = config.destination
    official = {origin_of(url) for url in DEFAULT_BASE_URLS.values()}
    if bound == destination or (bound is None and (destination in official or _local(config))):
        return
    entered = f"entered for {bound}" if bound else "entered with no provider origin"
    raise ProviderConfigError(
        f"the API key {config.api_key_ref!r} was {entered}; the provider is now at "
        f"{destination}. Enter the key again for {destination} (credentials.set) before "
        "it is sent there"
    )


def _check_env_key(config: ProviderConfig, env: Mapping[str, str]) -> None:
    home = env.get(URL_VARS.get(config.provider, "")) or DEFAULT_BASE_URLS.get(config.provider)
    if home is None or origin_of(home) == config.destination:
        return
    variable = KEY_VARS.get(config.provider, "the environment key")
    raise ProviderConfigError(
        f"{variable} is meant for {origin_of(home)}; the provider is now at "
        f"{config.destination}. Store a key for that origin (credentials.set, then "
        "settings.update apiKeyRef) before one is sent there"
    )


def _local(config: ProviderConfig) -> bool:
    return config.base_url is not None and is_loopback(config.base_url)


def build_provider(
    config: ProviderConfig,
    credentials: CredentialStore | None,
    *,
    client: httpx.AsyncClient | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    retry: RetryPolicy | None = None,
    sleep: Sleep = anyio.sleep,
    catalog: ModelCatalog | None = None,
) -> Provider:
    """The provider ``config`` describes, its key looked up in ``credentials``;
    ``client``/``transport`` are for tests.

    Raises ``ProviderConfigError`` when the provider needs an API key and none is found.
    """
    return build_provider_with_key(
        config,
        resolve_api_key(config, credentials),
        client=client,
        transport=transport,
        retry=retry,
        sleep=sleep,
        catalog=catalog,
    )


def build_provider_with_key(
    config: ProviderConfig,
    api_key: Secret | None,
    *,
    client: httpx.AsyncClient | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    retry: RetryPolicy | None = None,
    sleep: Sleep = anyio.sleep,
    catalog: ModelCatalog | None = None,
) -> Provider:
    """``build_provider`` for a caller that has already resolved the key (the engine
    resolves it once to tell a rotated key by its fingerprint).

    Raises ``ProviderConfigError`` when the provider needs an API key and ``api_key`` is None.
    """
    if config.provider == "scripted":
        return _scripted_provider(config)
    from panelot_host.providers.anthropic import AnthropicProvider
    from panelot_host.providers.httpio import default_client
    from panelot_host.providers.openai import OpenAIProvider

    if client is None and transport is not None:
        client = default_client(transport)
    if config.provider == "anthropic":
        _require_key(api_key, "anthropic")
        return AnthropicProvider(
            api_key=api_key,
            base_url=config.base_url or ANTHROPIC_BASE_URL,
            client=client,
            retry=retry,
            sleep=sleep,
        )
    base = config.base_url or OPENAI_BASE_URL
    if is_official(base):
        _require_key(api_key, "openai")
    return OpenAIProvider(
        api_key=api_key,
        base_url=base,
        tool_use=model_info(config, catalog).tool_use,
        client=client,
        retry=retry,
        sleep=sleep,
    )


def _scripted_provider(config: ProviderConfig) -> Provider:
    if config.scripted == "directives":
        from panelot_host.providers.directives import directives_provider

        return directives_provider(config.scripted_log)
    from panelot_host.providers.scripted import ScriptedProvider

    return ScriptedProvider.echo()


def _require_key(api_key: Secret | None, provider: str) -> None:
    if not api_key:
        raise ProviderConfigError(
            f"No API key for {provider}: set {KEY_VARS[provider]} or store one with "
            f"credentials.set and reference it in the settings (apiKeyRef), {LOCAL_HINT}."
        )
