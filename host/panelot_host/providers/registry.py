"""Every model provider Panelot can use, declared once as a ``ProviderSpec``.

A spec says where the provider lives, which environment variables configure it, whether
it needs an API key, its default model and how its adapter (request encoder and stream
decoder over HTTP, or a script) is built. ``providers.config`` reads the configuration
through these specs; the protocol's ``Settings.provider`` values are the names of the
specs marked ``on_the_wire`` (``tests/providers/test_registry.py`` holds them equal).

Importing this module costs no HTTP stack: an adapter's module is imported when the
adapter is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

import msgspec

from panelot_host.providers.catalog import Capabilities, ModelCatalog, ModelInfo
from panelot_host.providers.endpoints import (
    ANTHROPIC_BASE_URL,
    OPENAI_BASE_URL,
    anthropic_headers,
    anthropic_url,
    bearer_headers,
    is_official,
)

if TYPE_CHECKING:
    import httpx

    from panelot_host.credentials.secret import Secret
    from panelot_host.providers.retry import RetryPolicy, Sleep
    from panelot_host.providers.types import Provider

ProviderName = Literal["anthropic", "openai", "scripted"]
OpenAIAPI = Literal["responses", "chat"]
"""The two OpenAI APIs: Responses (``/responses``) and Chat Completions."""
"""The names in ``PROVIDERS``."""
KeyRule = Literal["required", "optional", "none"]
"""``required``: no request goes out without a key; ``optional``: a local or self-hosted
server that may take none; ``none``: the provider sends nothing anywhere."""


class AdapterOptions(msgspec.Struct, frozen=True, kw_only=True):
    """What a caller may pass to an adapter besides the configuration and the key: an
    HTTP client or a transport for one (tests use ``httpx.MockTransport``), the retry
    policy and its sleep, and the known-models catalog."""

    client: httpx.AsyncClient | None = None
    transport: httpx.AsyncBaseTransport | None = None
    retry: RetryPolicy | None = None
    sleep: Sleep | None = None
    catalog: ModelCatalog | None = None


class AdapterConfig(Protocol):
    """What an adapter reads of the configuration (``providers.config.ProviderConfig``,
    which reads the specs of this module: named here by what it offers, not imported)."""

    @property
    def model(self) -> str: ...
    @property
    def base_url(self) -> str | None: ...
    @property
    def capabilities(self) -> Capabilities | None: ...
    @property
    def scripted(self) -> str | None: ...
    @property
    def scripted_log(self) -> str | None: ...
    @property
    def api(self) -> OpenAIAPI | None: ...


AdapterFactory = Callable[[AdapterConfig, "Secret | None", AdapterOptions], "Provider"]


class ProviderSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One provider: its configuration, its defaults and how its adapter is built."""

    name: ProviderName
    """The ``PANELOT_PROVIDER`` / ``settings.provider`` value that selects it."""
    title: str
    """How messages to the user name it (``Claude``, ``OpenAI``)."""
    base_url: str | None
    """The official API; None: no fixed endpoint (a server the user names, or offline)."""
    key_variable: str | None
    """The environment variable of its API key."""
    url_variable: str | None
    """The environment variable that points it at another server."""
    inferred_from: tuple[str, ...] = ()
    """Environment variables that select it when ``PANELOT_PROVIDER`` is not set (the
    first spec in ``PROVIDERS`` with one of them set wins)."""
    key: KeyRule = "required"
    default_model: str | None = None
    """None: the user must name the model (``PANELOT_MODEL``)."""
    on_the_wire: bool = True
    """A value of the protocol's ``Settings.provider`` (the scripted one is not)."""
    adapter: AdapterFactory
    headers: Callable[[Secret | None], dict[str, str]] = lambda key: {}
    """The API's own headers with the key (authentication, API version)."""
    models_url: Callable[[str], str] | None = None
    """The list-models URL under a base URL (what ``panelot-host doctor`` asks)."""
    compatible: ProviderSpec | None = None
    """The spec in force when the base URL is not the official API's (an OpenAI-compatible
    server: same adapter, its own key rule and defaults)."""

    @property
    def sends_requests(self) -> bool:
        """Whether model requests (and an API key) leave the process."""
        return self.key != "none"

    def at(self, base_url: str | None) -> ProviderSpec:
        """The spec in force with ``base_url`` configured (``compatible`` off the official
        API)."""
        if self.compatible is not None and base_url and not is_official(base_url):
            return self.compatible
        return self


def _anthropic(config: AdapterConfig, key: Secret | None, options: AdapterOptions) -> Provider:
    # lazy: an adapter's module brings httpx (see the module's docstring)
    from panelot_host.providers.anthropic import AnthropicProvider

    return AnthropicProvider(
        api_key=key,
        base_url=config.base_url or ANTHROPIC_BASE_URL,
        auth_headers=ANTHROPIC.headers,
        **_http(options),
    )


def _openai(config: AdapterConfig, key: Secret | None, options: AdapterOptions) -> Provider:
    catalog = options.catalog or ModelCatalog.load()  # as providers.config.model_info
    info = catalog.lookup(config.model, config.capabilities)
    base_url = config.base_url or OPENAI_BASE_URL
    if (config.api or openai_api(info, base_url)) == "responses":
        # lazy: an adapter's module brings httpx (see the module's docstring)
        from panelot_host.providers.responses import ResponsesProvider

        return ResponsesProvider(
            api_key=key,
            base_url=base_url,
            tool_use=info.tool_use,
            reasoning=info.reasoning,
            auth_headers=OPENAI.headers,
            **_http(options),
        )
    # lazy: an adapter's module brings httpx (see the module's docstring)
    from panelot_host.providers.openai import OpenAIProvider

    return OpenAIProvider(
        api_key=key,
        base_url=base_url,
        tool_use=info.tool_use,
        auth_headers=OPENAI.headers,  # the compatible spec's too
        **_http(options),
    )


def openai_api(info: ModelInfo, base_url: str) -> OpenAIAPI:
    """Which OpenAI API serves the model: Responses for OpenAI's own reasoning models (their
    reasoning is kept between tool calls only there), Chat Completions otherwise."""
    return "responses" if info.reasoning and is_official(base_url) else "chat"


def _http(options: AdapterOptions) -> dict[str, Any]:
    client = options.client
    if client is None and options.transport is not None:
        # lazy: httpio brings httpx (see the module's docstring)
        from panelot_host.providers.httpio import default_client

        client = default_client(options.transport)
    shared: dict[str, Any] = {"client": client, "retry": options.retry}
    if options.sleep is not None:
        shared["sleep"] = options.sleep
    return shared


def _scripted(config: AdapterConfig, key: Secret | None, options: AdapterOptions) -> Provider:
    if config.scripted == "directives":  # PANELOT_SCRIPTED=directives
        # lazy: the directives' scripted provider is a test and demo tool
        from panelot_host.providers.directives import directives_provider

        return directives_provider(config.scripted_log)
    # lazy: the scripted provider is built only when it is configured
    from panelot_host.providers.scripted import ScriptedProvider

    return ScriptedProvider.echo()


ANTHROPIC: Final = ProviderSpec(
    name="anthropic",
    title="Claude",
    base_url=ANTHROPIC_BASE_URL,
    key_variable="ANTHROPIC_API_KEY",
    url_variable="ANTHROPIC_BASE_URL",
    inferred_from=("ANTHROPIC_API_KEY",),
    default_model="claude-sonnet-4-5",
    adapter=_anthropic,
    headers=anthropic_headers,
    models_url=lambda base_url: anthropic_url(base_url, "/models"),
)
OPENAI_COMPATIBLE: Final = ProviderSpec(
    name="openai",
    title="an OpenAI-compatible server",
    base_url=None,
    key_variable="OPENAI_API_KEY",
    url_variable="OPENAI_BASE_URL",
    key="optional",
    adapter=_openai,
    headers=bearer_headers,
    models_url=lambda base_url: base_url.rstrip("/") + "/models",
)
OPENAI: Final = msgspec.structs.replace(  # the same API at OpenAI: a key, a default model
    OPENAI_COMPATIBLE,
    title="OpenAI",
    base_url=OPENAI_BASE_URL,
    inferred_from=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    key="required",
    default_model="gpt-4.1",
    compatible=OPENAI_COMPATIBLE,
)
SCRIPTED: Final = ProviderSpec(
    name="scripted",
    title="the scripted demo model",
    base_url=None,
    key_variable=None,
    url_variable=None,
    key="none",
    default_model="scripted",
    on_the_wire=False,
    adapter=_scripted,
)

PROVIDERS: Final[Mapping[str, ProviderSpec]] = {s.name: s for s in (ANTHROPIC, OPENAI, SCRIPTED)}
"""Each selectable provider by name, in the order ``PANELOT_PROVIDER``'s default is
inferred."""
WIRE_PROVIDERS: Final = tuple(name for name, spec in PROVIDERS.items() if spec.on_the_wire)
"""The values of the protocol's ``Settings.provider``."""
OFFICIAL_BASE_URLS: Final = tuple(s.base_url for s in PROVIDERS.values() if s.base_url)
