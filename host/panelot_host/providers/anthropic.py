"""The Anthropic Messages API provider (streaming, over httpx + SSE)."""

from __future__ import annotations

import random
from collections.abc import Callable

import anyio
import httpx
import msgspec

from panelot_host.credentials.secret import Secret
from panelot_host.providers.anthropic_request import build_body
from panelot_host.providers.anthropic_stream import AnthropicDecoder
from panelot_host.providers.base import STREAM_HEADERS, HTTPProvider, StreamDecoder
from panelot_host.providers.endpoints import ANTHROPIC_BASE_URL
from panelot_host.providers.retry import RetryPolicy, Sleep
from panelot_host.providers.types import ModelRequest

API_VERSION = "2023-06-01"


def messages_url(base_url: str) -> str:
    """The Messages endpoint under ``base_url`` (with or without a trailing ``/v1``)."""
    base = base_url.rstrip("/")
    return base + ("/messages" if base.endswith("/v1") else "/v1/messages")


class AnthropicProvider(HTTPProvider):
    """Claude models; ``base_url`` as ``ANTHROPIC_BASE_URL``. See ``HTTPProvider``."""

    label = "Anthropic"

    def __init__(
        self,
        *,
        api_key: Secret | None,
        base_url: str = ANTHROPIC_BASE_URL,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        sleep: Sleep = anyio.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        super().__init__(
            url=messages_url(base_url),
            api_key=api_key,
            client=client,
            retry=retry,
            sleep=sleep,
            rand=rand,
        )

    def encode(self, request: ModelRequest) -> bytes:
        return msgspec.json.encode(build_body(request))

    def headers(self) -> dict[str, str]:
        headers = {**STREAM_HEADERS, "anthropic-version": API_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key.reveal()
        return headers

    def decoder(self, request: ModelRequest) -> StreamDecoder:
        return AnthropicDecoder()
