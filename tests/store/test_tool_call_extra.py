"""A tool call's extra data is a typed struct; rows written before it still read."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from panelot_host.engine.views import item_view
from panelot_host.protocol import items as wire_items
from panelot_host.store import items, threads
from panelot_host.store.db import Database
from panelot_host.store.ids import now_ms
from panelot_host.store.records import CallEvidence, ItemRecord, ToolCallExtra

# The ``extra`` JSON of a tool call as the host wrote it before ToolCallExtra existed
# (keys set by response, tool_step and recovery, each with dict merges).
OLD_EXTRA = {
    "label": "Click",
    "level": "L1",
    "effects": ["navigate", "write"],
    "argsError": "Expecting value",
    "providerCallId": "call/1",
    "recovery": "write",
    "target": {"tabId": 7, "origin": "https://example.com"},
    "evidence": {
        "attempted": {"tool": "browser_click", "args": {"ref": "e1"}},
        "target": {"tabId": 7, "origin": "https://example.com"},
        "lastKnown": {
            "url": "https://example.com/b",
            "title": "B",
            "origin": "https://example.com",
        },
    },
    "someKeyOfTheFuture": 1,
}


def _db(tmp_path: Path) -> tuple[Database, str]:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread_id = threads.create(conn, title="t").id
    return db, thread_id


def _old_row(db: Database, thread_id: str, item_id: str, extra: object) -> None:
    with db.transaction() as conn:
        conn.execute(
            "INSERT INTO item (id, thread_id, parent_id, turn_id, kind, created_at, extra, "
            "interrupted, call_id, name, args, status) "
            "VALUES (?, ?, NULL, 'trn', 'toolCall', ?, ?, 0, ?, 'browser_click', '{}', "
            "'uncertain')",
            (
                item_id,
                thread_id,
                now_ms(),
                json.dumps(extra) if extra is not None else None,
                item_id,
            ),
        )


def test_a_tool_call_row_written_the_old_way_reads_as_the_typed_struct(tmp_path: Path) -> None:
    db, thread_id = _db(tmp_path)
    _old_row(db, thread_id, "old", OLD_EXTRA)
    call = items.get(db.conn, "old").call_extra
    assert call == ToolCallExtra(
        label="Click",
        level="L1",
        effects=["navigate", "write"],
        args_error="Expecting value",
        provider_call_id="call/1",
        recovery="write",
        target={"tabId": 7, "origin": "https://example.com"},
        evidence=CallEvidence(
            attempted={"tool": "browser_click", "args": {"ref": "e1"}},
            target={"tabId": 7, "origin": "https://example.com"},
            last_known=OLD_EXTRA["evidence"]["lastKnown"],  # type: ignore[index]
        ),
    )
    view = item_view(items.get(db.conn, "old"))
    assert isinstance(view, wire_items.ToolCallItem)
    assert (view.label, view.level, view.effects) == ("Click", "L1", ["navigate", "write"])
    assert view.evidence == OLD_EXTRA["evidence"]  # the wire's evidence is what was stored


def test_an_old_row_with_no_extra_or_evidence_without_lastknown_reads(tmp_path: Path) -> None:
    db, thread_id = _db(tmp_path)
    _old_row(db, thread_id, "bare", None)
    _old_row(db, thread_id, "cut", {"evidence": {"attempted": {"tool": "t"}, "target": None}})
    assert items.get(db.conn, "bare").call_extra == ToolCallExtra()
    view = item_view(items.get(db.conn, "cut"))
    assert isinstance(view, wire_items.ToolCallItem)
    assert view.evidence == {"attempted": {"tool": "t"}, "target": None}


def test_starting_and_evidence_keep_the_rest_of_a_calls_extra(tmp_path: Path) -> None:
    db, thread_id = _db(tmp_path)
    record = ItemRecord(
        id="new", thread_id=thread_id, parent_id=None, turn_id="trn", kind="toolCall",
        created_at=now_ms(), call_id="c2", name="browser_click", args={}, status="pending",
        call_extra=ToolCallExtra(label="Click", level="L2", effects=["write"]),
    )  # fmt: skip
    with db.transaction() as conn:
        items.insert(conn, record)
        items.start_call(conn, "new", ToolCallExtra(recovery="write", target={"tabId": 1}))
        items.set_evidence(conn, "new", CallEvidence(attempted={"tool": "x"}, target=None))
    stored = items.get(db.conn, "new").call_extra
    assert stored.started_at is not None  # start_call stamps when the call started
    assert msgspec.structs.replace(stored, started_at=None) == ToolCallExtra(
        label="Click", level="L2", effects=["write"], recovery="write", target={"tabId": 1},
        evidence=CallEvidence(attempted={"tool": "x"}, target=None),
    )  # fmt: skip
    raw = db.conn.execute("SELECT extra FROM item WHERE id = 'new'").fetchone()[0]
    assert set(json.loads(raw)) == {
        "label", "level", "effects", "recovery", "target", "evidence", "startedAt",
    }  # fmt: skip
    assert items.turn_ran_level(db.conn, "trn", "L2")  # queried by its stored key
    assert not items.turn_ran_level(db.conn, "trn", "L1")


def test_the_struct_writes_the_keys_rows_were_always_written_with() -> None:
    full = ToolCallExtra(
        label="l", level="L0", effects=["read"], args_error="e", provider_call_id="p",
        recovery="read", target={}, evidence=CallEvidence(),
    )  # fmt: skip
    assert set(msgspec.to_builtins(full)) == set(OLD_EXTRA) - {"someKeyOfTheFuture"}
    timed = ToolCallExtra(started_at=1, ended_at=2)  # added later, with their own keys
    assert set(msgspec.to_builtins(timed)) == {"startedAt", "endedAt"}
