"""Provider configuration from the environment and settings, and the provider factory.

Environment (`docs/protocol.md`, "Launch and configuration"): ``PANELOT_PROVIDER``
(``anthropic``, ``openai``; default:
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

What each provider's variables, defaults and adapter are comes from its ``ProviderSpec``
(``providers.registry``); this module reads them, it names no provider itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import msgspec

from panelot_host.credentials.secret import Secret
from panelot_host.errors import KeyOriginError, ProviderConfigError
from panelot_host.providers.catalog import Capabilities, ModelCatalog, ModelInfo, parse_capabilities
from panelot_host.providers.endpoints import origin_of, plain_http_problem
from panelot_host.providers.loopback import is_loopback_url
from panelot_host.providers.registry import (
    OFFICIAL_BASE_URLS,
    PROVIDERS,
    WIRE_PROVIDERS,
    AdapterOptions,
    OpenAIAPI,
    ProviderName,
    ProviderSpec,
)
from panelot_host.providers.retry import RetryPolicy, Sleep
from panelot_host.providers.types import Provider

if TYPE_CHECKING:  # the adapters (httpx) are imported only when a provider is built
    import httpx

    from panelot_host.credentials.store import CredentialStore

log = logging.getLogger(__name__)

LOCAL_HINT = (
    "or point at a local OpenAI-compatible server, e.g. "
    "OPENAI_BASE_URL=http://127.0.0.1:11434/v1 PANELOT_MODEL=llama3.1 (Ollama; LM Studio: "
    "http://127.0.0.1:1234/v1, llama.cpp server: http://127.0.0.1:8080/v1)"
)


class SecretSource(Protocol):
    """Where stored keys are read from (the ``CredentialStore``, or the engine's vault)."""

    def get(self, ref: str) -> Secret | None: ...


class ProviderConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Which provider and model to use.

    The environment's API key is held as a ``Secret``: ``repr`` shows it redacted and
    msgspec refuses to encode it, so a configuration cannot carry it into a log, an event
    or the database. Raises ``ProviderConfigError`` naming each invalid field.
    """

    provider: ProviderName
    model: str
    task_model: str | None = None
    base_url: str | None = None
    api_key_ref: str | None = None
    capabilities: Capabilities | None = None  # None: from the known-models file
    env_api_key: Secret | None = None
    scripted: str | None = None  # PANELOT_SCRIPTED
    scripted_log: str | None = None  # PANELOT_SCRIPTED_LOG
    model_apis: dict[str, OpenAIAPI] = {}  # settings.modelOptions[model].api, by model

    @property
    def api(self) -> OpenAIAPI | None:
        """The OpenAI API chosen for this model (None: the default, ``openai_api``)."""
        return self.model_apis.get(self.model)

    def __post_init__(self) -> None:
        problems = []
        if self.provider not in PROVIDERS:
            problems.append(f"provider: {self.provider!r} is not one of {_names(PROVIDERS)}")
        if not self.model:
            problems.append("model: the model name is empty")
        if self.base_url is not None:
            problem = plain_http_problem(self.base_url)
            if problem is not None:
                problems.append(f"base_url: {problem}")
        if problems:
            raise ProviderConfigError(f"invalid provider configuration: {'; '.join(problems)}")

    @property
    def spec(self) -> ProviderSpec:
        """The provider's spec with this base URL (OpenAI-compatible off OpenAI's API)."""
        return PROVIDERS[self.provider].at(self.base_url)

    @property
    def destination(self) -> str:
        """The origin model requests (and the API key) go to."""
        return origin_of(self.base_url or self.spec.base_url or "")


def load_provider_config(
    env: Mapping[str, str], settings: Mapping[str, Any] | None = None
) -> ProviderConfig:
    """Build the configuration from ``env`` (e.g. ``os.environ``) and ``settings``.

    Raises ``ProviderConfigError`` saying which variable to set when nothing is configured
    or a value is invalid.
    """
    settings = settings or {}
    name = settings.get("provider") or env.get("PANELOT_PROVIDER") or _infer_provider(env)
    spec = PROVIDERS.get(name)
    if spec is None:
        raise ProviderConfigError(
            f"PANELOT_PROVIDER={name!r} is not supported; use {_names(WIRE_PROVIDERS)}"
        )
    base_url = settings.get("baseUrl") or _env(env, spec.url_variable) or None
    env_key = _env(env, spec.key_variable)
    return ProviderConfig(
        provider=spec.name,
        model=settings.get("model") or env.get("PANELOT_MODEL") or _default_model(spec, base_url),
        task_model=settings.get("taskModel") or env.get("PANELOT_TASK_MODEL") or None,
        base_url=base_url,
        api_key_ref=settings.get("apiKeyRef"),
        capabilities=_capabilities(env, settings),
        env_api_key=Secret(env_key) if env_key else None,
        scripted=env.get("PANELOT_SCRIPTED") or None,
        scripted_log=env.get("PANELOT_SCRIPTED_LOG") or None,
        model_apis=_model_apis(settings),
    )


def _model_apis(settings: Mapping[str, Any]) -> dict[str, OpenAIAPI]:
    """``modelOptions``' ``api`` of each model that names one."""
    apis: dict[str, OpenAIAPI] = {}
    for model, options in (settings.get("modelOptions") or {}).items():
        api = (options or {}).get("api")
        if api in ("responses", "chat"):
            apis[model] = api
        elif api is not None:
            raise ProviderConfigError(f"modelOptions.{model}.api: {api!r} is not responses or chat")
    return apis


def _env(env: Mapping[str, str], variable: str | None) -> str | None:
    return env.get(variable) if variable else None


def _names(names: Iterable[str]) -> str:
    quoted = [repr(name) for name in names]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def _infer_provider(env: Mapping[str, str]) -> str:
    for spec in PROVIDERS.values():
        if any(env.get(variable) for variable in spec.inferred_from):
            return spec.name
    keys = " or ".join(
        f"{spec.key_variable} ({spec.title})" for spec in PROVIDERS.values() if spec.inferred_from
    )
    hint = f"Set {keys}, {LOCAL_HINT}."
    raise ProviderConfigError(
        f"No model provider is configured. {hint}", setup=True, shell_hint=hint
    )


def _default_model(spec: ProviderSpec, base_url: str | None) -> str:
    default = spec.at(base_url).default_model
    if default is None:
        hint = (
            f"Set PANELOT_MODEL to a model your server at {base_url} serves "
            "(e.g. PANELOT_MODEL=llama3.1 for Ollama)."
        )
        raise ProviderConfigError(hint, setup=True, shell_hint=hint)
    return default


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
    credentials: SecretSource | None,
    key_origin: Callable[[str], str | None] | None = None,
    env: Mapping[str, str] | None = None,
) -> Secret | None:
    """The API key: ``api_key_ref`` from the credential store, else the environment key.

    A key goes only where it was meant to go (``docs/security.md``): a stored key to the
    origin it was entered for (``key_origin(ref)``; a key entered with no provider origin
    known goes only to the official APIs and this machine), the environment's key to the
    environment's base URL (or the official API). With ``key_origin`` and ``env`` given,
    a key whose origin is not the configured destination raises ``KeyOriginError`` (a
    ``ProviderConfigError``) saying to enter the key again for the new origin; without
    them nothing is checked, so every caller that sends the key passes both.
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
    official = {origin_of(url) for url in OFFICIAL_BASE_URLS}
    if bound == destination or (bound is None and (destination in official or _local(config))):
        return
    entered = f"entered for {bound}" if bound else "entered with no provider origin"
    raise KeyOriginError(
        f"the API key {config.api_key_ref!r} was {entered}; the base URL now points at "
        f"{destination}",
        f"Enter the key again for {destination} (credentials.set) before it is sent there",
    )


def _check_env_key(config: ProviderConfig, env: Mapping[str, str]) -> None:
    spec = PROVIDERS[config.provider]
    home = _env(env, spec.url_variable) or spec.base_url
    if home is None or origin_of(home) == config.destination:
        return
    variable = spec.key_variable or "the environment key"
    raise KeyOriginError(
        f"{variable} is meant for {origin_of(home)}; the base URL now points at "
        f"{config.destination}",
        "Store a key for that origin (credentials.set, then settings.update apiKeyRef) "
        "before one is sent there",
    )


def _local(config: ProviderConfig) -> bool:
    return config.base_url is not None and is_loopback_url(config.base_url)


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
    spec = config.spec
    if spec.key == "required" and not api_key:
        raise ProviderConfigError(
            f"No API key for {spec.name}: set {spec.key_variable}, or store one with "
            f"'panelot-host credentials set {spec.name}' and 'panelot-host config set "
            f"apiKeyRef {spec.name}' (or the side panel's settings), {LOCAL_HINT}.",
            setup=True,
            shell_hint=f"Set {spec.key_variable}, {LOCAL_HINT}.",
        )
    options = AdapterOptions(
        client=client, transport=transport, retry=retry, sleep=sleep, catalog=catalog
    )
    return spec.adapter(config, api_key, options)
