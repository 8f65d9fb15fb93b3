"""Every fixture gives the same events whatever the chunk boundaries and line endings."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelot_host.credentials.secret import Secret
from panelot_host.providers.anthropic import AnthropicProvider
from panelot_host.providers.openai import OpenAIProvider
from panelot_host.providers.types import Provider, ProviderEvent

from .fixtures import ANTHROPIC, OPENAI
from .streams import collect, mock_client, split_at

CASES = [("anthropic", name) for name in ANTHROPIC] + [("openai", name) for name in OPENAI]


def _fixture(kind: str, name: str) -> tuple[bytes, list[ProviderEvent]]:
    return ANTHROPIC[name] if kind == "anthropic" else OPENAI[name]


def _provider(kind: str, chunks: list[bytes]) -> Provider:
    client = mock_client(chunks)
    if kind == "anthropic":
        return AnthropicProvider(api_key=Secret("k"), client=client)
    return OpenAIProvider(api_key=Secret("k"), client=client)


@pytest.mark.anyio
@pytest.mark.parametrize(("kind", "name"), CASES)
async def test_fixture_gives_documented_events_at_every_split(kind: str, name: str) -> None:
    data, expected = _fixture(kind, name)
    for cut in range(len(data) + 1):
        events = await collect(_provider(kind, split_at(data, [cut])))
        assert events == expected, f"split at byte {cut}"


@pytest.mark.anyio
@pytest.mark.parametrize(("kind", "name"), CASES)
async def test_fixture_gives_same_events_byte_by_byte_and_with_crlf(kind: str, name: str) -> None:
    data, expected = _fixture(kind, name)
    assert await collect(_provider(kind, [bytes([b]) for b in data])) == expected
    crlf = data.replace(b"\n", b"\r\n")
    for cut in range(0, len(crlf) + 1, 7):
        assert await collect(_provider(kind, split_at(crlf, [cut]))) == expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(CASES),
    cuts=st.lists(st.integers(min_value=0, max_value=5000), max_size=40),
)
def test_random_chunk_boundaries_never_change_the_events(
    case: tuple[str, str], cuts: list[int]
) -> None:
    import anyio

    data, expected = _fixture(*case)
    chunks = split_at(data, [c % (len(data) + 1) for c in cuts])
    assert anyio.run(collect, _provider(case[0], chunks)) == expected
