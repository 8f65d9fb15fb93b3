"""The cost of model calls from their ``Usage`` and the model's price (None when unknown)."""

from __future__ import annotations

from collections.abc import Iterable

from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.types import Usage

_PER = 1_000_000


def call_cost(usage: Usage | None, model: ModelInfo) -> float | None:
    """USD for one call, or None when the price or the usage is unknown (never a made-up 0).

    Pass ``None`` as ``usage`` when the server did not report it
    (``MessageStop.usage_reported`` is False).
    """
    price = model.price
    if usage is None or price is None:
        return None
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
    ) / _PER


def sum_costs(costs: Iterable[float | None]) -> float | None:
    """The sum of several costs; None if any of them is unknown. An empty sum is 0."""
    total = 0.0
    for cost in costs:
        if cost is None:
            return None
        total += cost
    return total
