"""The delta coalescer on its own: the interval, the timer flush, nothing lost."""

from __future__ import annotations

import asyncio
import itertools

import anyio
import pytest

from panelot_host.engine.stream import DeltaCoalescer

pytestmark = pytest.mark.anyio

INTERVAL = 0.05


class Sink:
    def __init__(self) -> None:
        self.calls: list[tuple[float, str, str]] = []

    def __call__(self, field: str, text: str) -> None:
        self.calls.append((asyncio.get_running_loop().time(), field, text))


async def test_the_first_delta_after_a_quiet_interval_goes_out_at_once() -> None:
    sink = Sink()
    coalescer = DeltaCoalescer(sink, INTERVAL)
    coalescer.add("text", "Hello")
    assert [(f, t) for _, f, t in sink.calls] == [("text", "Hello")]


async def test_deltas_within_the_interval_wait_for_the_timer_not_for_the_next_event() -> None:
    sink = Sink()
    coalescer = DeltaCoalescer(sink, INTERVAL)
    coalescer.add("text", "a")
    coalescer.add("text", "b")
    coalescer.add("thinking", "t")
    coalescer.add("text", "c")
    assert len(sink.calls) == 1
    await anyio.sleep(INTERVAL * 3)  # no further event arrives: the timer flushes
    assert [(f, t) for _, f, t in sink.calls] == [("text", "a"), ("text", "bc"), ("thinking", "t")]
    assert sink.calls[1][0] - sink.calls[0][0] >= INTERVAL * 0.9


async def test_at_most_one_flush_per_interval_and_no_text_is_lost() -> None:
    decided: list[float] = []  # when the coalescer decided each flush (its loop's time)
    texts: list[str] = []

    def sink(field: str, text: str) -> None:
        # the flush's own time, not the sink's: a loaded machine may pause this process
        # between the two, which says nothing about the coalescer (it failed so once in CI)
        decided.append(coalescer._next_flush - INTERVAL)
        texts.append(text)

    coalescer = DeltaCoalescer(sink, INTERVAL)
    sent = []
    for n in range(40):
        sent.append(f"w{n} ")
        coalescer.add("text", sent[-1])
        await anyio.sleep(INTERVAL / 10)
    coalescer.flush()
    assert "".join(texts) == "".join(sent)
    assert len(decided) < 12  # 40 deltas over about 4 intervals
    gaps = [b - a for a, b in itertools.pairwise(decided)]
    assert all(gap >= INTERVAL * 0.9 for gap in gaps[:-1])  # the last is the final flush


async def test_flush_cancels_the_timer_and_sends_the_rest_once() -> None:
    sink = Sink()
    coalescer = DeltaCoalescer(sink, INTERVAL)
    coalescer.add("text", "a")
    coalescer.add("text", "b")
    coalescer.flush()
    await anyio.sleep(INTERVAL * 2)
    assert [t for _, _, t in sink.calls] == ["a", "b"]
