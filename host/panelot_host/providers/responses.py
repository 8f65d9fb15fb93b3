"""The OpenAI Responses API provider (``POST {base}/responses``); also for compatible servers
that serve it."""

from __future__ import annotations

import random
from collections.abc import Callable

import anyio
import httpx
import msgspec

from panelot_host.credentials.secret import Secret
from panelot_host.providers.base import AuthHeaders, HTTPProvider, StreamDecoder
from panelot_host.providers.endpoints import OPENAI_BASE_URL, bearer_headers, openai_label
from panelot_host.providers.responses_request import ResponsesOptions, build_body
from panelot_host.providers.responses_stream import ResponsesDecoder
from panelot_host.providers.retry import RetryPolicy, Sleep
from panelot_host.providers.types import ModelRequest


class ResponsesProvider(HTTPProvider):
    """OpenAI models over the Responses API, or a compatible server's ``/responses``.

    ``reasoning``: the model reasons (its encrypted reasoning and a summary are asked for
    and kept within the turn). ``tool_use=False`` sends no tools. See ``HTTPProvider`` for
    the other args.
    """

    default_auth_headers = staticmethod(bearer_headers)

    def __init__(
        self,
        *,
        api_key: Secret | None,
        base_url: str = OPENAI_BASE_URL,
        tool_use: bool = True,
        reasoning: bool = False,
        auth_headers: AuthHeaders | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        sleep: Sleep = anyio.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.label = openai_label(base_url)
        self._options = ResponsesOptions(tool_use=tool_use, reasoning=reasoning)
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
        return base_url.rstrip("/") + "/responses"

    def encode(self, request: ModelRequest) -> bytes:
        return msgspec.json.encode(build_body(request, self._options))

    def decoder(self, request: ModelRequest) -> StreamDecoder:
        return ResponsesDecoder(self.label)
