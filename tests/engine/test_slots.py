"""``engine.slots.TurnSlots``: first come, first served; a holder cancelled while it waits
holds nothing and passes nothing over; giving back is idempotent."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from panelot_host.engine.slots import TurnSlots, max_parallel_turns, wait_reason

pytestmark = pytest.mark.anyio


async def _wait_until_waiting(slots: TurnSlots, count: int) -> None:
    with anyio.fail_after(5):
        while slots.waiting != count:  # the limiter has no event to wait on
            await anyio.lowlevel.checkpoint()


async def test_waiters_get_slots_in_the_order_they_asked_and_none_passes_them() -> None:
    slots = TurnSlots(1)
    first, order = object(), []
    assert slots.try_take(first)
    async with anyio.create_task_group() as tasks:
        for waiters, name in enumerate(("b", "c", "d"), start=1):

            async def wait(name: str = name) -> None:
                await slots.take(name)
                order.append(name)
                slots.give_back(name)

            tasks.start_soon(wait)
            await _wait_until_waiting(slots, waiters)
        assert not slots.try_take("late")  # a free slot would not let it pass the waiters
        slots.give_back(first)
    assert order == ["b", "c", "d"]
    assert slots.running == 0


async def test_a_holder_cancelled_while_waiting_holds_nothing_and_the_next_gets_the_slot() -> None:
    slots = TurnSlots(1)
    assert slots.try_take("running")
    scope = anyio.CancelScope()
    got: list[str] = []

    async def cancelled() -> None:
        with scope:
            await slots.take("cancelled")
        got.append("cancelled" if slots.holds("cancelled") else "none")

    async def patient() -> None:
        await slots.take("patient")
        got.append("patient")

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(cancelled)
        await _wait_until_waiting(slots, 1)
        tasks.start_soon(patient)
        await _wait_until_waiting(slots, 2)
        scope.cancel()
        await _wait_until_waiting(slots, 1)  # the patient one is still in line
        slots.give_back("cancelled")  # not held: nothing happens
        assert slots.holds("running") and slots.running == 1
        slots.give_back("running")
    assert got == ["none", "patient"] and slots.holds("patient")
    slots.give_back("patient")
    slots.give_back("patient")  # idempotent
    assert slots.running == 0


async def test_raising_the_total_hands_slots_to_waiters_and_lowering_stops_no_holder() -> None:
    slots = TurnSlots(1)
    assert slots.try_take("a")
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(slots.take, "b")
        await _wait_until_waiting(slots, 1)
        slots.resize(2)
    assert slots.holds("a") and slots.holds("b")
    slots.resize(1)
    assert slots.running == 2 and not slots.try_take("c")
    slots.give_back("a")
    assert not slots.try_take("c")  # still one running, the new limit
    slots.give_back("b")
    assert slots.try_take("c")


def test_the_setting_and_its_reason() -> None:
    assert max_parallel_turns({}) == 3
    assert max_parallel_turns({"maxParallelTurns": 5}) == 5
    assert wait_reason(3) == (
        "3 tasks are already running; this one starts when one of them finishes"
    )
    assert wait_reason(1) == "1 task is already running; this one starts when it finishes"
