"""Retries before the first streamed token, with backoff, jitter and ``retry-after``.

Each retry is announced with a ``RetryNotice`` event before the wait. Once an attempt has
yielded an event, a failure is raised as is: text the user already saw is never replayed.
"""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing

import anyio
import msgspec

from panelot_host.errors import ProviderError
from panelot_host.providers.types import ProviderEvent, RetryNotice

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
Attempt = Callable[[], AsyncGenerator[ProviderEvent, None]]


class RetryPolicy(msgspec.Struct, frozen=True):
    """``max_attempts`` counts the first try; delays grow as base * 2**n up to a cap."""

    max_attempts: int = 5
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    max_retry_after_s: float = 60.0  # a longer retry-after fails at once instead of waiting

    def delay(self, failed_attempt: int, retry_after: float | None, rand: float) -> float | None:
        """Seconds before the next attempt, or None when waiting is pointless."""
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after_s else None
        ceiling: float = min(self.max_delay_s, self.base_delay_s * 2.0 ** (failed_attempt - 1))
        return ceiling / 2 + rand * ceiling / 2  # "equal jitter": never less than half


async def stream_with_retries(
    attempt: Attempt,
    policy: RetryPolicy,
    *,
    sleep: Sleep = anyio.sleep,
    rand: Callable[[], float] = random.random,
) -> AsyncGenerator[ProviderEvent, None]:
    """Run ``attempt`` until it streams; retry retryable errors raised before any event.

    Raises the last ``ProviderError`` (its message says how many attempts were made) when
    the error is not retryable, the attempts are used up or ``retry-after`` is too long.
    """
    number = 1
    while True:
        started = False
        try:
            async with aclosing(attempt()) as events:
                async for event in events:
                    started = True
                    yield event
            return
        except ProviderError as exc:
            if started or not exc.retryable:
                raise
            delay = _next_delay(exc, number, policy, rand())
            reason = exc.message
        yield RetryNotice(
            attempt=number + 1, max_attempts=policy.max_attempts, delay_s=delay, reason=reason
        )
        await sleep(delay)
        number += 1


def _next_delay(exc: ProviderError, number: int, policy: RetryPolicy, rand: float) -> float:
    delay = policy.delay(number, exc.retry_after, rand) if number < policy.max_attempts else None
    if delay is None:
        note = (
            f"gave up after {number} attempt{'s' if number > 1 else ''}"
            if number >= policy.max_attempts
            else f"the server asked to wait {exc.retry_after:.0f} s"
        )
        exc.message = f"{exc.message} ({note})"
        exc.args = (exc.message,)
        raise exc
    log.warning(
        "model call failed (%s); retry %d/%d in %.1f s",
        exc.message,
        number + 1,
        policy.max_attempts,
        delay,
    )
    return delay
