"""A planted canary key never appears in logs, exception messages, reprs or stdout."""

from __future__ import annotations

import logging
import traceback

import httpx
import pytest
from msgspec.json import encode

from panelot_host.credentials.secret import Secret
from panelot_host.errors import ProviderError
from panelot_host.providers.anthropic import AnthropicProvider
from panelot_host.providers.config import build_provider, load_provider_config
from panelot_host.providers.openai import OpenAIProvider
from panelot_host.providers.retry import RetryPolicy

from .sse_server import Reply, SSEServer
from .streams import REQUEST, collect

CANARY = "sk-ant-api03-CANARY-7f3a9c1e5b2d4f6a8e0c"
CANARY_MARK = "CANARY-7f3a9c1e"


async def _no_wait(seconds: float) -> None:
    return None


def _texts(exc: BaseException) -> str:
    parts = []
    seen: BaseException | None = exc
    while seen is not None:
        parts += [str(seen), repr(seen), repr(seen.args)]
        seen = seen.__cause__ or seen.__context__
    parts.append("".join(traceback.format_exception(exc)))
    return "\n".join(parts)


async def _failures(server: SSEServer) -> list[ProviderError]:
    echo = f'{{"error": {{"message": "Incorrect API key provided: {CANARY}"}}}}'.encode()
    server.add(
        Reply(401, [echo], content_type="application/json"),
        Reply(500, [CANARY.encode()], content_type="text/plain"),
        Reply(200, [f"data: {{bad json {CANARY}\n\n".encode()]),
    )
    policy = RetryPolicy(max_attempts=1)
    providers = [
        OpenAIProvider(api_key=Secret(CANARY), base_url=server.url, retry=policy),
        AnthropicProvider(api_key=Secret(CANARY), base_url=server.url, retry=policy),
        OpenAIProvider(api_key=Secret(CANARY), base_url=server.url, retry=policy),
        AnthropicProvider(api_key=Secret(CANARY), base_url="http://127.0.0.1:9", retry=policy),
    ]
    errors = []
    for provider in providers:
        with pytest.raises(ProviderError) as info:
            await collect(provider, REQUEST)
        errors.append(info.value)
    return errors


@pytest.mark.anyio
async def test_canary_key_never_leaks(
    sse_server: SSEServer, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore included
    errors = await _failures(sse_server)
    assert [type(e).__name__ for e in errors] == [
        "ProviderHTTPError",
        "ProviderHTTPError",
        "ProviderStreamError",
        "ProviderConnectionError",
    ]
    assert "[redacted]" in str(errors[0])
    assert sse_server.requests[0].headers["authorization"] == f"Bearer {CANARY}"  # it was sent
    for error in errors:
        assert CANARY_MARK not in _texts(error)
    assert CANARY_MARK not in caplog.text
    out = capsys.readouterr()
    assert CANARY_MARK not in out.out and CANARY_MARK not in out.err


@pytest.mark.anyio
async def test_config_and_provider_reprs_hide_the_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    config = load_provider_config({"ANTHROPIC_API_KEY": CANARY})
    provider = build_provider(
        config,
        None,
        transport=httpx.MockTransport(lambda r: httpx.Response(503)),
        retry=RetryPolicy(max_attempts=2),
        sleep=_no_wait,
    )
    with pytest.raises(ProviderError) as info:
        await collect(provider, REQUEST)
    logging.getLogger("test").info("config %s %r", config, config.env_api_key)
    texts = [
        repr(config),
        str(config),
        encode(config, enc_hook=repr).decode(),
        repr(vars(provider)),
    ]
    texts.append(_texts(info.value))
    assert all(CANARY_MARK not in text for text in texts)
    assert CANARY_MARK not in caplog.text


@pytest.mark.anyio
async def test_a_key_that_does_not_look_like_one_is_masked_in_every_error(
    sse_server: SSEServer,
) -> None:
    """A local server's key may have any shape: error events in the stream that echo it
    still never show it (HTTP status errors are covered above)."""
    key = "local-server-passphrase-42"
    openai_error = f'data: {{"error": {{"message": "bad key {key}"}}}}\n\n'
    anthropic_error = (
        "event: error\n"
        f'data: {{"type": "error", "error": {{"type": "x", "message": "no {key}"}}}}\n\n'
    )
    sse_server.add(Reply(200, [openai_error.encode()]), Reply(200, [anthropic_error.encode()]))
    policy = RetryPolicy(max_attempts=1)
    for provider in (
        OpenAIProvider(api_key=Secret(key), base_url=sse_server.url, retry=policy),
        AnthropicProvider(api_key=Secret(key), base_url=sse_server.url, retry=policy),
    ):
        with pytest.raises(ProviderError) as info:
            await collect(provider, REQUEST)
        assert key not in _texts(info.value), _texts(info.value)
        assert "[redacted]" in info.value.message
