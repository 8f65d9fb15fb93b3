"""Backoff with jitter, retry-after, and the limits of retrying."""

from __future__ import annotations

import httpx
import pytest

from panelot_host.errors import ProviderHTTPError, ProviderStreamError
from panelot_host.providers.httpio import parse_retry_after
from panelot_host.providers.retry import RetryPolicy
from panelot_host.providers.scripted import Fail, ScriptedProvider, Text
from panelot_host.providers.types import RetryNotice, TextDelta

from .streams import REQUEST, collect


def test_backoff_doubles_with_jitter_between_half_and_full_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=1, max_delay_s=8)
    assert [policy.delay(n, None, 0.0) for n in (1, 2, 3, 4, 5)] == [0.5, 1, 2, 4, 4]
    assert [policy.delay(n, None, 1.0) for n in (1, 2, 3, 4, 5)] == [1, 2, 4, 8, 8]


def test_retry_after_is_honoured_unless_too_long() -> None:
    policy = RetryPolicy(max_retry_after_s=60)
    assert policy.delay(1, 12.5, 0.3) == 12.5
    assert policy.delay(1, 3600, 0.3) is None


def test_retry_after_headers_in_seconds_milliseconds_and_http_date() -> None:
    assert parse_retry_after(httpx.Headers({"retry-after": "3"})) == 3.0
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "1500", "retry-after": "9"})) == 1.5
    date = httpx.Headers({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"})
    assert parse_retry_after(date, now=lambda: 1445412480.0) == 10.0
    assert parse_retry_after(httpx.Headers({"retry-after": "soon"})) is None
    assert parse_retry_after(httpx.Headers()) is None


@pytest.mark.anyio
async def test_too_long_retry_after_fails_at_once_saying_so() -> None:
    limited = ProviderHTTPError(429, "Anthropic returned HTTP 429 (rate limited)", retry_after=900)
    provider = ScriptedProvider([[Fail(limited)], [Text("never")]])
    with pytest.raises(ProviderHTTPError, match="the server asked to wait 900 s"):
        await collect(provider, REQUEST)
    assert provider.attempts == 1


@pytest.mark.anyio
async def test_each_retry_is_announced_with_attempt_and_delay() -> None:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    overloaded = ProviderStreamError("overloaded", retryable=True)
    provider = ScriptedProvider(
        [[Fail(overloaded)], [Fail(overloaded)], [Text("ok")]],
        sleep=sleep,
        retry=RetryPolicy(max_attempts=5, base_delay_s=2),
    )
    events = await collect(provider, REQUEST)
    notices = [e for e in events if isinstance(e, RetryNotice)]
    assert [(n.attempt, n.max_attempts) for n in notices] == [(2, 5), (3, 5)]
    assert [n.delay_s for n in notices] == delays == [1.5, 3.0]  # rand fixed at 0.5
    assert TextDelta("ok") in events


@pytest.mark.anyio
async def test_a_failure_after_the_first_token_is_raised_not_retried() -> None:
    provider = ScriptedProvider(
        [[Text("partial"), Fail(ProviderStreamError("lost", retryable=True))], [Text("again")]]
    )
    seen = []
    with pytest.raises(ProviderStreamError, match=r"^lost$"):
        async for event in provider.stream(REQUEST):
            seen.append(event)
    assert seen == [TextDelta("partial")] and provider.remaining == 1
