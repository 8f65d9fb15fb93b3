"""Approval requests and questions: decided or answered once, withdrawn with their Turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelot_host.errors import InvalidState, NotFound
from panelot_host.store import approvals, threads
from panelot_host.store.db import Database


def _db_with_requests(tmp_path: Path) -> tuple[Database, str]:
    """Two approval requests and two questions of Turn ``t1``, one of each of ``t2``."""
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread_id = threads.create(conn, title="t").id
        for n, turn in [(1, "t1"), (2, "t1"), (3, "t2")]:
            approvals.add_approval(conn, request_id=f"apr{n}", thread_id=thread_id, turn_id=turn,
                                   tool_call_item_id=f"call{n}", request={"n": n})  # fmt: skip
            approvals.add_interaction(conn, interaction_id=f"int{n}", thread_id=thread_id,
                                      turn_id=turn, tool_call_item_id=f"call{n}", prompt="?",
                                      schema={"type": "object"})  # fmt: skip
    return db, thread_id


def test_a_decision_is_recorded_once_and_returned(tmp_path: Path) -> None:
    db, _ = _db_with_requests(tmp_path)
    with db.transaction() as conn:
        decided = approvals.decide_approval(
            conn, "apr1", decision="allow", scope="thread", message="ok", command_id="c1"
        )
    assert (decided.state, decided.decision, decided.scope, decided.message) == (
        "decided", "allow", "thread", "ok",
    )  # fmt: skip
    assert decided == approvals.get_approval(db.conn, "apr1")
    with pytest.raises(InvalidState, match="already decided"), db.transaction() as conn:
        approvals.decide_approval(
            conn, "apr1", decision="deny", scope="once", message=None, command_id="c2"
        )
    assert approvals.get_approval(db.conn, "apr1").decision == "allow"
    with pytest.raises(NotFound), db.transaction() as conn:
        approvals.decide_approval(
            conn, "nope", decision="deny", scope="once", message=None, command_id="c3"
        )


def test_an_answer_is_claimed_once_and_returned(tmp_path: Path) -> None:
    db, _ = _db_with_requests(tmp_path)
    with db.transaction() as conn:
        answered = approvals.answer_interaction(conn, "int1", {"values": {"a": 1}}, "c1")
    assert answered.state == "answered" and answered.response == {"values": {"a": 1}}
    assert answered == approvals.get_interaction(db.conn, "int1")
    with pytest.raises(InvalidState, match="already answered"), db.transaction() as conn:
        approvals.answer_interaction(conn, "int1", {"values": {"a": 2}}, "c2")
    assert approvals.get_interaction(db.conn, "int1").response == {"values": {"a": 1}}


def test_cancelling_a_turn_withdraws_only_its_pending_requests_oldest_first(
    tmp_path: Path,
) -> None:
    db, thread_id = _db_with_requests(tmp_path)
    with db.transaction() as conn:
        approvals.decide_approval(
            conn, "apr1", decision="allow", scope="once", message=None, command_id="c1"
        )
        approvals.answer_interaction(conn, "int2", {"values": {}}, "c2")
        withdrawn = approvals.cancel_approvals_of_turn(conn, "t1")
        asked = approvals.cancel_interactions_of_turn(conn, "t1")
    assert [(a.id, a.state) for a in withdrawn] == [("apr2", "cancelled")]
    assert [(i.id, i.state) for i in asked] == [("int1", "cancelled")]
    assert [a.id for a in approvals.pending_approvals(db.conn, thread_id)] == ["apr3"]
    assert [i.id for i in approvals.pending_interactions(db.conn, thread_id)] == ["int3"]
    with db.transaction() as conn:
        withdrawn = approvals.cancel_approvals_of_turn(conn, "t2")
        asked = approvals.cancel_interactions_of_turn(conn, "t2")
        assert approvals.cancel_approvals_of_turn(conn, "t2") == []
    assert [a.id for a in withdrawn] == ["apr3"] and [i.id for i in asked] == ["int3"]


def test_withdrawn_requests_come_back_in_creation_order(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread_id = threads.create(conn, title="t").id
        for n in range(20):
            approvals.add_approval(conn, request_id=f"apr{n:02}", thread_id=thread_id,
                                   turn_id="t", tool_call_item_id=f"c{n}", request={})  # fmt: skip
        withdrawn = approvals.cancel_approvals_of_turn(conn, "t")
    assert [a.id for a in withdrawn] == [f"apr{n:02}" for n in range(20)]
