"""Per-call usage rows and the Turn's and thread's totals (schema 12 adds the reasoning
tokens, a part of the output tokens): written, summed, read back and copied whole."""

from __future__ import annotations

from pathlib import Path

from msgspec.structs import replace

from panelot_host.store import thread_copy, threads, turns
from panelot_host.store.db import Database
from panelot_host.store.records import UsageRecord


def _call(thread_id: str, output: int, reasoning: int) -> UsageRecord:
    return UsageRecord(
        thread_id=thread_id,
        turn_id="trn",
        run_id="run",
        model="m",
        input_tokens=10,
        output_tokens=output,
        cache_read_tokens=2,
        cache_write_tokens=1,
        cost_usd=0.5,
        created_at=1,
        reasoning_tokens=reasoning,
    )


def test_reasoning_tokens_are_stored_per_call_and_summed_per_turn_and_thread(
    tmp_path: Path,
) -> None:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        turns.insert_turn(conn, turn_id="trn", thread_id=thread.id, user_item_id=None, context={})
        for output, reasoning in ((469, 448), (9, 0), (30, 12)):
            call = _call(thread.id, output, reasoning)
            turns.record_usage(conn, call)
            record = threads.add_usage(
                conn,
                thread.id,
                head_item_id="itm",
                input_tokens=call.input_tokens,
                output_tokens=call.output_tokens,
                cache_read_tokens=call.cache_read_tokens,
                cache_write_tokens=call.cache_write_tokens,
                cost_usd=call.cost_usd,
                reasoning_tokens=call.reasoning_tokens,
            )
        assert record.stats.reasoning_tokens == 460
        assert record.stats.output_tokens == 508
    with db.transaction() as conn:
        turn = turns.get_turn(conn, "trn")
        assert (turn.usage.reasoning_tokens, turn.usage.output_tokens) == (460, 508)
        assert turn.usage.total == 3 * 13 + 508  # the reasoning is counted once, in output
        assert [t.usage.reasoning_tokens for t in turns.of_thread(conn, thread.id)] == [460]
        assert threads.get(conn, thread.id).stats.reasoning_tokens == 460
        calls = thread_copy.usage_of(conn, thread.id)
        assert [c.reasoning_tokens for c in calls] == [448, 0, 12]


def test_a_copied_thread_keeps_its_reasoning_tokens(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        source = threads.create(conn, title="t")
        turns.insert_turn(conn, turn_id="trn", thread_id=source.id, user_item_id=None, context={})
        turns.record_usage(conn, _call(source.id, 469, 448))
        threads.add_usage(
            conn,
            source.id,
            head_item_id="itm",
            input_tokens=10,
            output_tokens=469,
            cache_read_tokens=2,
            cache_write_tokens=1,
            cost_usd=0.5,
            reasoning_tokens=448,
        )
    with db.transaction() as conn:
        record = threads.get(conn, source.id)
        turn = turns.get_turn(conn, "trn")
        (call,) = thread_copy.usage_of(conn, source.id)
    with db.transaction() as conn:
        thread_copy.insert_thread(conn, replace(record, id="thr_copy"))
        thread_copy.insert_turn(conn, replace(turn, id="trn_copy", thread_id="thr_copy"))
        thread_copy.insert_usage(conn, replace(call, thread_id="thr_copy", turn_id="trn_copy"))
    with db.transaction() as conn:
        assert threads.get(conn, "thr_copy").stats.reasoning_tokens == 448
        assert turns.get_turn(conn, "trn_copy").usage.reasoning_tokens == 448
        assert [c.reasoning_tokens for c in thread_copy.usage_of(conn, "thr_copy")] == [448]
