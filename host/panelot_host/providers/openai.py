"""The OpenAI Chat Completions provider; also for OpenAI-compatible servers by base URL."""

from __future__ import annotations

import random
from collections.abc import Callable

import anyio
import httpx
import msgspec

from panelot_host.credentials.secret import Secret
from panelot_host.providers.base import AuthHeaders, HTTPProvider, StreamDecoder
from panelot_host.providers.endpoints import (
    OPENAI_BASE_URL,
    bearer_headers,
    is_official,
    openai_label,
)
from panelot_host.providers.openai_request import OpenAIOptions, build_body
from panelot_host.providers.openai_stream import OpenAIDecoder
from panelot_host.providers.retry import RetryPolicy, Sleep
from panelot_host.providers.types import ModelRequest, ProviderEvent


class OpenAIProvider(HTTPProvider):
    """OpenAI models or any OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp).

    ``api_key`` may be None for local servers. ``tool_use=False`` sends no tools. See
    ``HTTPProvider`` for the other args.
    """

    default_auth_headers = staticmethod(bearer_headers)

    def __init__(
        self,
        *,
        api_key: Secret | None,
        base_url: str = OPENAI_BASE_URL,
        tool_use: bool = True,
        auth_headers: AuthHeaders | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        sleep: Sleep = anyio.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        official = is_official(base_url)
        self.label = openai_label(base_url)
        self._options = OpenAIOptions(
            tool_use=tool_use,
            max_tokens_field="max_completion_tokens" if official else "max_tokens",
        )
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            auth_headers=auth_headers,
            client=client,
            retry=retry,
            sleep=sleep,
            rand=rand,
        )

    def endpoint(self, base_url: str) -> str:
        return base_url.rstrip("/") + "/chat/completions"

    def encode(self, request: ModelRequest) -> bytes:
        return msgspec.json.encode(build_body(request, self._options))

    def decoder(self, request: ModelRequest) -> StreamDecoder:
        return OpenAIDecoder(self.label)

    def end_of_stream(self, decoder: StreamDecoder) -> list[ProviderEvent]:
        if isinstance(decoder, OpenAIDecoder) and decoder.finished:
            return decoder.close()  # some servers send no [DONE] after the finish reason
        return super().end_of_stream(decoder)
