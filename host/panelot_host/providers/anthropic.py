"""The Anthropic Messages API provider (streaming, over httpx + SSE)."""

from __future__ import annotations

import msgspec

from panelot_host.providers.anthropic_request import build_body
from panelot_host.providers.anthropic_stream import AnthropicDecoder
from panelot_host.providers.base import HTTPProvider, StreamDecoder
from panelot_host.providers.endpoints import ANTHROPIC_BASE_URL, anthropic_headers, anthropic_url
from panelot_host.providers.types import ModelRequest


class AnthropicProvider(HTTPProvider):
    """Claude models; ``base_url`` as ``ANTHROPIC_BASE_URL``. See ``HTTPProvider``."""

    label = "Anthropic"
    default_base_url = ANTHROPIC_BASE_URL
    default_auth_headers = staticmethod(anthropic_headers)

    def endpoint(self, base_url: str) -> str:
        """The Messages endpoint under ``base_url`` (with or without a trailing ``/v1``)."""
        return anthropic_url(base_url, "/messages")

    def encode(self, request: ModelRequest) -> bytes:
        return msgspec.json.encode(build_body(request))

    def decoder(self, request: ModelRequest) -> StreamDecoder:
        return AnthropicDecoder()
