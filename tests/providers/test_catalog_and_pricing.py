"""Known models, conservative defaults, capability overrides and the cost of a call."""

from __future__ import annotations

import pytest

from panelot_host.providers.catalog import Capabilities, ModelCatalog, parse_capabilities
from panelot_host.providers.pricing import call_cost, sum_costs
from panelot_host.providers.types import Usage

CATALOG = ModelCatalog.load()
REQUIRED = [
    "claude-opus-4-5", "claude-opus-4-1", "claude-sonnet-4-5", "claude-haiku-4-5",
    "gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini", "o3", "o4-mini", "gpt-5", "gpt-5-mini",
]  # fmt: skip


@pytest.mark.parametrize("model", REQUIRED)
def test_shipped_file_knows_current_models_with_full_prices(model: str) -> None:
    info = CATALOG.lookup(model)
    assert info.known and info.id == model and info.price is not None
    assert info.context_window and info.max_output_tokens
    assert info.price.cache_read < info.price.input < info.price.output


def test_dated_versions_match_but_other_models_do_not() -> None:
    assert CATALOG.lookup("claude-sonnet-4-5-20250929").id == "claude-sonnet-4-5"
    assert CATALOG.lookup("gpt-4.1-mini-2025-04-14").id == "gpt-4.1-mini"
    assert CATALOG.lookup("gpt-4o-mini").id == "gpt-4o-mini"
    assert not CATALOG.lookup("o3-mini").known
    assert not CATALOG.lookup("o3-pro").known


def test_unknown_model_is_tools_yes_vision_no_price_unknown() -> None:
    info = CATALOG.lookup("llama3.1:8b")
    assert (info.tool_use, info.vision, info.price, info.known) == (True, False, None, False)
    assert call_cost(Usage(1000, 1000), info) is None


def test_capability_override_applies_to_any_model() -> None:
    assert CATALOG.lookup("llama3.1", parse_capabilities("vision")).vision is True
    assert CATALOG.lookup("llama3.1", parse_capabilities("vision")).tool_use is False
    neither = CATALOG.lookup("gpt-4o", parse_capabilities(""))
    assert (neither.tool_use, neither.vision) == (False, False)
    assert parse_capabilities(" Tools , vision ") == Capabilities(tool_use=True, vision=True)
    with pytest.raises(ValueError, match="unknown"):
        parse_capabilities("tools,audio")


def test_cost_counts_each_token_kind_at_its_price() -> None:
    sonnet = CATALOG.lookup("claude-sonnet-4-5")
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_read_tokens=2_000_000,
        cache_write_tokens=400_000,
    )
    assert call_cost(usage, sonnet) == pytest.approx(3.0 + 1.5 + 0.6 + 1.5)
    assert call_cost(None, sonnet) is None  # usage not reported: unknown, not 0
    assert call_cost(Usage(), sonnet) == 0.0


def test_reasoning_tokens_cost_once_as_the_output_tokens_they_are_part_of() -> None:
    gpt5 = CATALOG.lookup("gpt-5")
    assert gpt5.price is not None
    usage = Usage(input_tokens=53, output_tokens=469, reasoning_tokens=448)
    assert call_cost(usage, gpt5) == call_cost(Usage(input_tokens=53, output_tokens=469), gpt5)
    assert call_cost(usage, gpt5) == pytest.approx(
        (53 * gpt5.price.input + 469 * gpt5.price.output) / 1e6
    )


def test_sum_of_costs_is_unknown_if_any_part_is() -> None:
    assert sum_costs([0.25, 0.5]) == 0.75
    assert sum_costs([0.25, None, 0.5]) is None
    assert sum_costs([]) == 0.0
