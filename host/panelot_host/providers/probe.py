"""Is a model reachable? One implementation for the side panel's "Test connection"
(``provider.test``) and ``panelot-host doctor``: the smallest real requests to the
configured provider, each failure named by its cause; and the look for model servers on
this computer (``provider.discover``: ``/v1/models`` on the usual loopback ports).

The check, in order: the models list with the key as a turn sends it (bad key, wrong URL,
server not running); for a server other than the official APIs, the model must be in that
list, and one one-token completion offering one tool tells a model that cannot call tools
(Ollama answers 400 "... does not support tools"). Secrets never appear in what it says:
the provider's words are kept as ``detail`` with the key masked out.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

import anyio
import httpx
import msgspec

from panelot_host.credentials.secret import Secret
from panelot_host.errors import KeyOriginError, ProviderConfigError
from panelot_host.protocol.ops.provider import TestCause
from panelot_host.providers.config import (
    ProviderConfig,
    SecretSource,
    load_provider_config,
    resolve_api_key,
)
from panelot_host.providers.endpoints import is_official

Cause = TestCause  # the causes the protocol names (``provider.test``)

CHECK_TIMEOUT_S = 15.0
DISCOVER_TIMEOUT_S = 1.0
DETAIL_CHARS = 500
LOCAL_SERVERS: Mapping[int, str] = {
    11434: "Ollama",
    1234: "LM Studio",
    8080: "llama.cpp",
    8000: "vLLM",
}
PORTS_VARIABLE = "PANELOT_LOCAL_MODEL_PORTS"
_PING_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Answers pong.",
        "parameters": {"type": "object", "properties": {}},
    },
}


class ConnectionCheck(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one check: ``ok``, or the ``cause`` and a sentence for a person;
    ``detail`` is the provider's own words (masked), ``models`` what its list said."""

    ok: bool
    provider: str | None
    model: str | None
    url: str | None
    latency_ms: int | None
    cause: Cause | None
    message: str
    detail: str | None = None
    models: tuple[str, ...] = ()
    http_status: int | None = None


class LocalServer(msgspec.Struct, frozen=True, kw_only=True):
    """A model server found on this computer, with the models it lists."""

    base_url: str
    port: int
    name: str | None
    models: tuple[str, ...]


class Readiness(msgspec.Struct, frozen=True, kw_only=True):
    """Whether a turn could start (no request made): the configuration, its key, or why not."""

    config: ProviderConfig | None
    key: Secret | None
    source: Literal["settings", "environment"] | None
    cause: Cause | None
    reason: str | None

    @property
    def ready(self) -> bool:
        return self.cause is None


def readiness(
    environ: Mapping[str, str],
    settings: Mapping[str, Any],
    secrets: SecretSource | None,
    key_origin: Callable[[str], str | None],
) -> Readiness:
    """The configuration a turn would use and its key, resolved as a turn resolves them."""
    try:
        config = load_provider_config(environ, settings)
    except ProviderConfigError as exc:
        reason = "No model is set up yet." if exc.setup else exc.message
        return Readiness(config=None, key=None, source=None, cause="not_configured", reason=reason)
    source: Literal["settings", "environment"] = (
        "settings" if settings.get("provider") or settings.get("baseUrl") else "environment"
    )
    try:
        key = resolve_api_key(config, secrets, key_origin, environ)
    except KeyOriginError as exc:
        reason = f"The key was not sent: {exc.reason}. Enter the key again for this server."
        return Readiness(
            config=config, key=None, source=source, cause="key_not_sent", reason=reason
        )
    if config.spec.key == "required" and not key:
        reason = f"{config.spec.title} needs an API key: enter it in the setup or settings."
        return Readiness(config=config, key=None, source=source, cause="key_missing", reason=reason)
    return Readiness(config=config, key=key, source=source, cause=None, reason=None)


async def check_ready(ready: Readiness, client: httpx.AsyncClient) -> ConnectionCheck:
    """``check_connection`` for a resolved configuration, or why there is none."""
    if ready.config is None or ready.cause is not None:
        return failed(ready.config, ready.cause or "not_configured", ready.reason or "")
    return await check_connection(ready.config, ready.key, client)


def failed(
    config: ProviderConfig | None, cause: Cause, message: str, detail: str | None = None
) -> ConnectionCheck:
    """A check that failed before any request (nothing configured, no key, key held back)."""
    return ConnectionCheck(
        ok=False,
        provider=config.provider if config else None,
        model=config.model if config else None,
        url=None,
        latency_ms=None,
        cause=cause,
        message=message,
        detail=detail,
    )


async def check_connection(
    config: ProviderConfig, key: Secret | None, client: httpx.AsyncClient
) -> ConnectionCheck:
    """The real requests that say whether ``config`` works with ``key``."""
    spec = config.spec
    base = config.base_url or spec.base_url or ""
    if spec.models_url is None:
        return ConnectionCheck(
            ok=True,
            provider=config.provider,
            model=config.model,
            url=None,
            latency_ms=0,
            cause=None,
            message="The scripted demo model answers offline.",
        )
    url = spec.models_url(base)
    headers = spec.headers(key)
    started = time.monotonic()

    def outcome(
        cause: Cause | None,
        message: str,
        detail: str | None = None,
        status: int | None = None,
    ) -> ConnectionCheck:
        return ConnectionCheck(
            ok=cause is None,
            provider=config.provider,
            model=config.model,
            url=url,
            latency_ms=round((time.monotonic() - started) * 1000),
            cause=cause,
            message=message,
            detail=_masked(detail, key),
            models=models,
            http_status=status,
        )

    models: tuple[str, ...] = ()
    try:
        response = await client.get(url, headers=headers)
    except httpx.HTTPError as exc:
        where = base.rstrip("/")
        detail = f"{type(exc).__name__}: {exc}"
        return outcome("not_running", f"Nothing answers at {where}: is the server running?", detail)
    refused = _refusal(response)
    if refused is not None:
        return outcome(*refused, status=response.status_code)
    listed = _model_ids(response)
    if listed is None:
        return outcome(
            "wrong_url",
            f"{base} does not answer like a model server (no model list at {url}): check the URL.",
            response.text,
        )
    models = listed
    compatible = config.provider == "openai" and not is_official(base or "https://api.openai.com")
    if not compatible:
        return outcome(None, f"{spec.title} accepted the key.")
    if models and config.model not in models:
        shown = ", ".join(models[:10]) + (" ..." if len(models) > 10 else "")
        return outcome(
            "unknown_model", f"The server has no model “{config.model}”; it has: {shown}."
        )
    return await _tool_probe(client, config, base, headers, outcome)


async def _tool_probe(
    client: httpx.AsyncClient,
    config: ProviderConfig,
    base: str,
    headers: dict[str, str],
    outcome: _Outcome,
) -> ConnectionCheck:
    """One one-token completion offering a tool: does this model take tools?"""
    body = {
        "model": config.model,
        "messages": [{"role": "user", "content": "ping"}],
        "max_tokens": 1,
        "tools": [_PING_TOOL],
    }
    url = base.rstrip("/") + "/chat/completions"
    try:
        response = await client.post(url, headers=headers, json=body)
    except httpx.HTTPError as exc:
        return outcome(
            "not_running",
            f"{base} stopped answering during the test: is the server running?",
            f"{type(exc).__name__}: {exc}",
        )
    refused = _refusal(response)
    if refused is not None:
        cause, message, detail = refused
        if cause == "http_error" and "tool" in (detail or "").lower():
            return outcome(
                "no_tools",
                f"The model “{config.model}” cannot call tools, which Panelot needs: "
                "choose another.",
                detail,
                response.status_code,
            )
        return outcome(cause, message, detail, response.status_code)
    return outcome(None, f"{config.model} answered.")


class _Outcome(Protocol):
    """The type of ``check_connection``'s ``outcome`` closure."""

    def __call__(
        self,
        cause: Cause | None,
        message: str,
        detail: str | None = None,
        status: int | None = None,
    ) -> ConnectionCheck: ...


def _refusal(response: httpx.Response) -> tuple[Cause, str, str] | None:
    """What an error status means, or None for a success."""
    status = response.status_code
    if status < 400:
        return None
    words = _provider_words(response)
    if status in (401, 403):
        return "bad_key", "The server refused this key.", words
    if status == 404:
        where = response.request.url
        return "wrong_url", f"Nothing is served at {where} (HTTP 404): check the URL.", words
    return "http_error", f"The server answered HTTP {status}.", words


def _provider_words(response: httpx.Response) -> str:
    """The error message in the provider's own words (its JSON error's message, else the
    body's start)."""
    text = response.text
    try:
        parsed = json.loads(text)
    except ValueError:
        return text[:DETAIL_CHARS]
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])[:DETAIL_CHARS]
        if isinstance(error, str):
            return error[:DETAIL_CHARS]
    return text[:DETAIL_CHARS]


def _model_ids(response: httpx.Response) -> tuple[str, ...] | None:
    """The ids of an OpenAI- or Anthropic-style model list, sorted; None when it is not one."""
    try:
        parsed = response.json()
    except ValueError:
        return None
    data = parsed.get("data") if isinstance(parsed, dict) else None
    if not isinstance(data, list):
        return None
    ids = {item.get("id") for item in data if isinstance(item, dict)}
    return tuple(sorted(i for i in ids if isinstance(i, str)))


def _masked(detail: str | None, key: Secret | None) -> str | None:
    if detail is None:
        return None
    detail = detail[:DETAIL_CHARS]
    if key:
        secret = key.reveal()
        if secret and secret in detail:
            detail = detail.replace(secret, "***")
    return detail or None


def local_ports(environ: Mapping[str, str]) -> tuple[int, ...]:
    """The loopback ports to look at: the usual ones, or ``PANELOT_LOCAL_MODEL_PORTS``."""
    given = environ.get(PORTS_VARIABLE, "").strip()
    if not given:
        return tuple(LOCAL_SERVERS)
    ports = []
    for part in given.split(","):
        part = part.strip()
        if part.isdigit() and 0 < int(part) < 65536:
            ports.append(int(part))
    return tuple(ports)


async def discover_local(ports: Sequence[int], client: httpx.AsyncClient) -> list[LocalServer]:
    """The model servers answering an OpenAI model list on ``ports`` of 127.0.0.1, looked
    at all at once; a port with nothing, or something else, is left out."""
    found: dict[int, LocalServer] = {}

    async def look(port: int) -> None:
        base = f"http://127.0.0.1:{port}/v1"
        try:
            with anyio.fail_after(DISCOVER_TIMEOUT_S):
                response = await client.get(base + "/models")
        except (httpx.HTTPError, TimeoutError):
            return
        models = _model_ids(response) if response.status_code == 200 else None
        if models is not None:
            found[port] = LocalServer(
                base_url=base, port=port, name=LOCAL_SERVERS.get(port), models=models
            )

    async with anyio.create_task_group() as group:
        for port in dict.fromkeys(ports):
            group.start_soon(look, port)
    return [found[port] for port in ports if port in found]
