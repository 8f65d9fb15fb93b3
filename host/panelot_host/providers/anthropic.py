"""The Anthropic Messages API provider (streaming, over httpx + SSE)."""

from __future__ import annotations

import msgspec

from panelot_host.providers.anthropic_request import build_body
from panelot_host.providers.anthropic_stream import AnthropicDecoder
from panelot_host.providers.base import STREAM_HEADERS, HTTPProvider, StreamDecoder
from panelot_host.providers.endpoints import ANTHROPIC_BASE_URL
from panelot_host.providers.types import ModelRequest

API_VERSION = "2023-06-01"


class AnthropicProvider(HTTPProvider):
    """Claude models; ``base_url`` as ``ANTHROPIC_BASE_URL``. See ``HTTPProvider``."""

    label = "Anthropic"
    default_base_url = ANTHROPIC_BASE_URL

    def endpoint(self, base_url: str) -> str:
        """The Messages endpoint under ``base_url`` (with or without a trailing ``/v1``)."""
        base = base_url.rstrip("/")
        return base + ("/messages" if base.endswith("/v1") else "/v1/messages")

    def encode(self, request: ModelRequest) -> bytes:
        return msgspec.json.encode(build_body(request))

    def headers(self) -> dict[str, str]:
        headers = {**STREAM_HEADERS, "anthropic-version": API_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key.reveal()
        return headers

    def decoder(self, request: ModelRequest) -> StreamDecoder:
        return AnthropicDecoder()
