"""Where the official APIs live and the headers that carry their keys. Kept apart from the
adapters (which import httpx) so that reading the configuration costs no HTTP stack; the
registry hands each adapter its headers (``providers.registry``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from panelot_host.providers.loopback import is_loopback_url

if TYPE_CHECKING:
    from panelot_host.credentials.secret import Secret

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_VERSION: Final = "2023-06-01"


def anthropic_headers(key: Secret | None) -> dict[str, str]:
    """The Anthropic API's own headers: its version, and the key if there is one."""
    headers = {"anthropic-version": ANTHROPIC_VERSION}
    if key:
        headers["x-api-key"] = key.reveal()
    return headers


def bearer_headers(key: Secret | None) -> dict[str, str]:
    """The key as a bearer token (OpenAI and compatible servers); none without a key."""
    return {"authorization": f"Bearer {key.reveal()}"} if key else {}


def anthropic_url(base_url: str, path: str) -> str:
    """``path`` (``/messages``, ``/models``) of the Anthropic API under ``base_url``, which
    may or may not end with ``/v1``."""
    base = base_url.rstrip("/")
    return base + (path if base.endswith("/v1") else "/v1" + path)


def is_official(base_url: str) -> bool:
    """Whether ``base_url`` is OpenAI's own API (not an OpenAI-compatible server)."""
    return urlsplit(base_url).hostname == "api.openai.com"


def openai_label(base_url: str) -> str:
    """How errors name the server of an OpenAI-family provider (Chat Completions or
    Responses): OpenAI itself, or the compatible server at ``base_url``."""
    return "OpenAI" if is_official(base_url) else f"the OpenAI-compatible server at {base_url}"


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, lowercased, default ports dropped."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" if port in (None, default) else f"{scheme}://{host}:{port}"


def plain_http_problem(url: str) -> str | None:
    """Why ``url`` may not carry an API key, or None: plain ``http://`` is allowed only to
    this machine (``providers.loopback``: a local model server); anything else must be
    ``https://``."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "https" or (scheme == "http" and is_loopback_url(url)):
        return None
    if scheme == "http":
        return (
            f"{url} is plain http to another machine: the API key and every conversation "
            "would cross the network unencrypted. Use https://, or http:// only to "
            "localhost / 127.0.0.1 (a local model server)"
        )
    return f"{url} is not an http(s) URL"
