"""The HTTP boundary of the adapters: foreign errors become ``ProviderError``s here, once.

Messages are user-readable and carry only the status, the provider's own error text (with
any secret and anything key-shaped redacted) and a hint; never request headers.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from contextlib import aclosing, contextmanager

import anyio
import httpx
import msgspec

from panelot_host.credentials.mask import KEY_SHAPED, REDACTED
from panelot_host.credentials.secret import Secret
from panelot_host.errors import ProviderConnectionError, ProviderHTTPError, ProviderStreamError
from panelot_host.providers.sse import ServerSentEvent, SSEParser

_MAX_ERROR_BODY = 16_384
_STATUS_HINTS = {
    400: "the request was rejected",
    401: "the API key was rejected; check the key or the stored credential",
    403: "the API key is not allowed to do this",
    404: "not found; check the model name and the base URL",
    413: "the request is too large",
    429: "rate limited",
    500: "server error",
    502: "bad gateway",
    503: "service unavailable",
    504: "gateway timeout",
    529: "overloaded",
}


def redact(text: str, secrets: Sequence[Secret] = ()) -> str:
    """``text`` with every given secret and anything shaped like an API key masked."""
    for secret in secrets:
        if secret:
            text = text.replace(secret.reveal(), REDACTED)
    return KEY_SHAPED.sub(REDACTED, text)


def parse_retry_after(headers: httpx.Headers, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now())


class _ErrorDetail(msgspec.Struct):
    message: str = ""
    type: str = ""


class _ErrorBody(msgspec.Struct):
    error: _ErrorDetail | str | None = None
    message: str = ""


def error_text(body: bytes) -> str:
    """The provider's own error message from an error body (JSON or text), shortened."""
    try:
        parsed = msgspec.json.decode(body, type=_ErrorBody)
    except msgspec.DecodeError:
        text = body.decode("utf-8", "replace").strip()
    else:
        err = parsed.error
        text = err if isinstance(err, str) else (err.message if err else "") or parsed.message
    return " ".join(text.split())[:300]


async def raise_for_status(response: httpx.Response, label: str, secrets: Sequence[Secret]) -> None:
    """Raise ``ProviderHTTPError`` (readable, redacted, with retry-after) unless 2xx."""
    if response.is_success:
        return
    body = b""
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) >= _MAX_ERROR_BODY:
            break
    status = response.status_code
    hint = _STATUS_HINTS.get(status, "error")
    detail = redact(error_text(body), secrets)
    message = f"{label} returned HTTP {status} ({hint})" + (f": {detail}" if detail else "")
    raise ProviderHTTPError(status, message, retry_after=parse_retry_after(response.headers))


@contextmanager
def map_transport_errors(label: str) -> Iterator[None]:
    """Translate httpx's transport errors into ``ProviderConnectionError``/``StreamError``."""
    try:
        yield
    except httpx.TimeoutException as exc:
        raise ProviderConnectionError(f"{label} timed out ({type(exc).__name__})") from None
    except httpx.RemoteProtocolError as exc:
        raise ProviderConnectionError(
            f"{label} closed the connection unexpectedly ({type(exc).__name__})"
        ) from None
    except httpx.TransportError as exc:
        raise ProviderConnectionError(
            f"cannot reach {label} ({type(exc).__name__}: {redact(str(exc))}); "
            "check the network and the base URL"
        ) from None


async def iter_event_batches(
    response: httpx.Response,
) -> AsyncGenerator[list[ServerSentEvent], None]:
    """The SSE events of a streaming response, whatever the chunk boundaries: the events
    each received chunk completes, together (never an empty batch), so a fast stream
    costs one generator step per chunk rather than per event.

    Raises ``ProviderStreamError`` when the server answered with JSON instead of a stream.
    """
    if response.headers.get("content-type", "").startswith("application/json"):
        raise ProviderStreamError("the server answered with JSON instead of an event stream")
    parser = SSEParser()
    async for chunk in response.aiter_bytes():
        events = parser.feed(chunk)
        if events:
            yield events
    last = parser.flush()
    if last:
        yield last


class HTTPTarget(msgspec.Struct, frozen=True):
    """One streaming POST: where, with which headers, and how to name the service."""

    url: str
    label: str  # "Anthropic", "OpenAI", "the OpenAI-compatible server at ..."
    secrets: tuple[Secret, ...] = ()  # values to redact from any message


_CLOSE_TIMEOUT_S = 2.0


async def post_sse(
    client: httpx.AsyncClient, target: HTTPTarget, headers: dict[str, str], body: bytes
) -> AsyncGenerator[list[ServerSentEvent], None]:
    """POST ``body`` and yield the response's SSE events, in the batches each received
    chunk completes; errors are ``ProviderError``s.

    Closing or cancelling the iteration closes the response at once (the close itself is
    shielded from the cancellation and bounded).
    """
    with map_transport_errors(target.label):
        request = client.build_request("POST", target.url, headers=headers, content=body)
        response = await client.send(request, stream=True)
        try:
            await raise_for_status(response, target.label, target.secrets)
            async with aclosing(iter_event_batches(response)) as batches:
                async for batch in batches:
                    yield batch
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_TIMEOUT_S):
                await response.aclose()


DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=300.0, write=60.0, pool=10.0)


def default_client(transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """An HTTP client for model calls: bounded connect, generous read (long thinking).

    ``transport`` replaces the network (tests pass an ``httpx.MockTransport``).
    """
    return httpx.AsyncClient(transport=transport, timeout=DEFAULT_TIMEOUT)
