"""What the HTTP adapters share: the client, the retry loop and the end of a stream."""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator, Callable
from typing import ClassVar, Protocol

import anyio
import httpx

from panelot_host.credentials.secret import Secret
from panelot_host.errors import ProviderError, ProviderStreamError
from panelot_host.providers.httpio import HTTPTarget, default_client, post_sse, redact
from panelot_host.providers.retry import RetryPolicy, Sleep, stream_with_retries
from panelot_host.providers.types import MessageStop, ModelRequest, ProviderEvent

STREAM_HEADERS = {"content-type": "application/json", "accept": "text/event-stream"}


class StreamDecoder(Protocol):
    stop: MessageStop | None

    def feed(self, data: bytes | str) -> list[ProviderEvent]: ...


AuthHeaders = Callable[[Secret | None], dict[str, str]]
"""The API's own headers with the key (``ProviderSpec.headers``)."""


class HTTPProvider:
    """A ``Provider`` over one streaming HTTP endpoint; subclasses encode and decode.

    ``base_url`` (default: the adapter's ``default_base_url``) is where the API lives; the
    adapter's ``endpoint`` gives the URL posted to. ``auth_headers`` makes the API's own
    headers from the key (the registry passes its spec's; default: the adapter's
    ``default_auth_headers``). ``client`` is used as given (tests pass
    one with a ``MockTransport``); without one the provider owns a client and ``aclose()``
    closes it. ``sleep`` and ``rand`` drive the retry backoff (tests pass ones that do not
    wait).
    """

    label = "the model server"
    default_base_url: ClassVar[str]

    def __init__(
        self,
        *,
        api_key: Secret | None,
        base_url: str | None = None,
        auth_headers: AuthHeaders | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        sleep: Sleep = anyio.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self._api_key = api_key
        self._auth_headers = auth_headers or self.default_auth_headers
        self._owns_client = client is None
        self._client = client or default_client()
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._rand = rand
        secrets = (api_key,) if api_key else ()
        url = self.endpoint(self.default_base_url if base_url is None else base_url)
        self._target = HTTPTarget(url=url, label=self.label, secrets=secrets)

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        """Normalised events of one model call, ending with ``MessageStop``.

        Retries retryable failures before the first event (yielding ``RetryNotice``s).
        Raises ``ProviderHTTPError``, ``ProviderConnectionError`` or ``ProviderStreamError``.
        Closing or cancelling the iteration closes the HTTP response at once.
        """
        return stream_with_retries(
            lambda: self._attempt(request), self._retry, sleep=self._sleep, rand=self._rand
        )

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it."""
        if self._owns_client:
            await self._client.aclose()

    async def _attempt(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        """One HTTP attempt. Every error it raises (an HTTP status, the connection, an error
        event in the stream) has this provider's key masked, whatever the key looks like:
        a server may echo it back in any of them."""
        decoder = self.decoder(request)
        body = self.encode(request)
        try:
            async for batch in post_sse(self._client, self._target, self.headers(), body):
                for sse in batch:
                    for event in decoder.feed(sse.raw):
                        yield event
                    if decoder.stop is not None:
                        return
            for event in self.end_of_stream(decoder):
                yield event
        except ProviderError as exc:
            exc.message = redact(exc.message, self._target.secrets)
            exc.args = (exc.message,)
            raise

    # ------------------------------------------------ adapter hooks

    def endpoint(self, base_url: str) -> str:
        """The URL of the streaming call under ``base_url``."""
        raise NotImplementedError

    def encode(self, request: ModelRequest) -> bytes:
        raise NotImplementedError

    @staticmethod
    def default_auth_headers(key: Secret | None) -> dict[str, str]:
        """The API's own headers when none are passed (the adapters name theirs)."""
        return {}

    def headers(self) -> dict[str, str]:
        """``STREAM_HEADERS`` and the API's own (the key, a version: ``auth_headers``)."""
        return {**STREAM_HEADERS, **self._auth_headers(self._api_key)}

    def decoder(self, request: ModelRequest) -> StreamDecoder:
        raise NotImplementedError

    def end_of_stream(self, decoder: StreamDecoder) -> list[ProviderEvent]:
        """Events once the stream ended without a stop event; by default it is truncated."""
        raise ProviderStreamError(
            f"{self.label} ended the stream before the message was complete", retryable=True
        )
