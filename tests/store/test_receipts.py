"""Command receipts: replay, conflict, nothing written twice (protocol.md section 3)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from panelot_host.errors import Conflict
from panelot_host.store import receipts, threads
from panelot_host.store.db import Database


def _create_thread(db: Database, command_id: str, title: str) -> bytes:
    ctx = receipts.command_context(command_id, "thread.create", {"title": title})
    try:
        with db.transaction() as conn:
            receipts.check(conn, ctx)
            thread = threads.create(conn, title=title)
            response = thread.id.encode()
            receipts.finish(conn, ctx, response)
    except receipts.Replay as replay:
        return replay.response
    return response


def _thread_count(db: Database) -> int:
    return int(db.conn.execute("SELECT count(*) FROM thread").fetchone()[0])


def test_repeated_command_replays_the_first_response(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    first = _create_thread(db, "cmd-1", "Groceries")
    second = _create_thread(db, "cmd-1", "Groceries")
    assert first == second
    assert _thread_count(db) == 1


def test_changed_payload_is_a_conflict_and_keeps_the_first(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    first = _create_thread(db, "cmd-1", "Groceries")
    with pytest.raises(Conflict, match="cmd-1"):
        _create_thread(db, "cmd-1", "Something else")
    assert _thread_count(db) == 1
    assert threads.get(db.conn, first.decode()).title == "Groceries"


def test_same_command_id_for_another_method_is_a_conflict(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    _create_thread(db, "cmd-1", "Groceries")
    ctx = receipts.command_context("cmd-1", "thread.delete", {"title": "Groceries"})
    with pytest.raises(Conflict), db.transaction() as conn:
        receipts.check(conn, ctx)


def test_receipt_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    db = Database.open(path)
    first = _create_thread(db, "cmd-1", "Groceries")
    db.close()
    db = Database.open(path)
    assert _create_thread(db, "cmd-1", "Groceries") == first
    assert _thread_count(db) == 1


def test_digest_ignores_map_key_order() -> None:
    a = receipts.params_digest({"a": 1, "b": {"x": 1, "y": 2}})
    b = receipts.params_digest({"b": {"y": 2, "x": 1}, "a": 1})
    assert a == b
    assert a != receipts.params_digest({"a": 2, "b": {"x": 1, "y": 2}})


class _Submit(msgspec.Struct, rename="camel", kw_only=True):
    """A command's params as a later release has them: ``share_tab`` added, with a default."""

    command_id: str
    text: str
    model: str | None = None
    share_tab: int | None = None


def _stored(db: Database, digest: str) -> None:
    with db.transaction() as conn:
        ctx = receipts.CommandContext("cmd-1", "turn.submit", digest)
        receipts.finish(conn, ctx, b'{"turnId":"trn_1"}')


def test_a_param_added_later_keeps_the_digest_of_commands_without_it() -> None:
    plain = receipts.params_digest(_Submit(command_id="c", text="hi"))
    assert plain == receipts.params_digest({"commandId": "c", "text": "hi"})
    assert plain != receipts.params_digest(_Submit(command_id="c", text="hi", share_tab=3))


def test_a_receipt_of_an_older_release_replays_after_a_param_was_added(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    # the older release digested its params whole: defaults included, share_tab unknown
    _stored(db, receipts.params_digest({"commandId": "c", "text": "hi", "model": None}))
    ctx = receipts.command_context("cmd-1", "turn.submit", _Submit(command_id="c", text="hi"))
    with pytest.raises(receipts.Replay) as replay, db.transaction() as conn:
        receipts.check(conn, ctx)
    assert replay.value.response == b'{"turnId":"trn_1"}'
    other = receipts.command_context("cmd-1", "turn.submit", _Submit(command_id="c", text="no"))
    with pytest.raises(Conflict), db.transaction() as conn:
        receipts.check(conn, other)
