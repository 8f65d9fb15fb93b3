"""The run state machine: one table, one writer, and a typed error for any other move."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from panelot_host.errors import IllegalTransition, InvalidState, NotFound
from panelot_host.store import threads, turns
from panelot_host.store.db import Database
from panelot_host.vocabulary import (
    FINAL_RUN_STATES,
    INITIAL_RUN_STATES,
    RUN_STATES,
    RUN_TRANSITIONS,
    RunState,
)

HOST = Path(__file__).resolve().parents[2] / "host" / "panelot_host"


def _run(tmp_path: Path) -> Database:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread = threads.create(conn, title="t")
        turns.insert_turn(conn, turn_id="trn", thread_id=thread.id, user_item_id=None, context={})
        turns.insert_run(
            conn, run_id="run", turn_id="trn", thread_id=thread.id, state="streaming", cursor={}
        )
    return db


def _put(db: Database, state: RunState) -> None:
    with db.transaction() as conn:  # a test fixture only: production moves through update_run
        conn.execute("UPDATE run SET state = ? WHERE id = 'run'", (state,))


def test_the_table_names_every_state_and_final_states_are_terminal() -> None:
    assert set(RUN_TRANSITIONS) == set(RUN_STATES)
    for state, targets in RUN_TRANSITIONS.items():
        assert targets <= set(RUN_STATES)
        assert state in targets  # the cursor is written without changing state
    for final in FINAL_RUN_STATES:
        assert RUN_TRANSITIONS[final] == {final}
    for state in set(RUN_STATES) - FINAL_RUN_STATES:
        assert {"failed", "interrupted"} <= RUN_TRANSITIONS[state] | {state}


@pytest.mark.parametrize("source", RUN_STATES)
def test_every_move_the_table_allows_is_written_and_every_other_raises(
    tmp_path: Path, source: RunState
) -> None:
    db = _run(tmp_path)
    for target in RUN_STATES:
        _put(db, source)
        if target in RUN_TRANSITIONS[source]:
            with db.transaction() as conn:
                turns.update_run(conn, "run", state=target, cursor={"step": 1})
            run = turns.get_run(db.conn, "run")
            assert (run.state, run.cursor) == (target, {"step": 1})
        else:
            illegal = pytest.raises(IllegalTransition, match=f"from {source} to {target}")
            with illegal, db.transaction() as conn:
                turns.update_run(conn, "run", state=target, cursor={"step": 2})
            assert turns.get_run(db.conn, "run").state == source


def test_an_illegal_move_is_an_invalid_state_error_and_leaves_the_cursor(tmp_path: Path) -> None:
    db = _run(tmp_path)
    with db.transaction() as conn:
        turns.update_run(conn, "run", state="completed", cursor={"step": 3})
    with pytest.raises(InvalidState), db.transaction() as conn:
        turns.update_run(conn, "run", state="streaming", cursor={"step": 4})
    assert turns.get_run(db.conn, "run").cursor == {"step": 3}


def test_a_cursor_alone_is_written_in_any_state(tmp_path: Path) -> None:
    db = _run(tmp_path)
    _put(db, "completed")
    with db.transaction() as conn:
        turns.update_run(conn, "run", cursor={"step": 9})
    assert turns.get_run(db.conn, "run").cursor == {"step": 9}


def test_a_run_starts_only_in_an_initial_state_and_an_unknown_run_is_not_found(
    tmp_path: Path,
) -> None:
    db = _run(tmp_path)
    for state in set(RUN_STATES) - INITIAL_RUN_STATES:
        with pytest.raises(IllegalTransition), db.transaction() as conn:
            turns.insert_run(
                conn, run_id=f"r-{state}", turn_id="trn", thread_id="x", state=state, cursor={}
            )
    with pytest.raises(NotFound), db.transaction() as conn:
        turns.update_run(conn, "nope", state="streaming")


def test_only_the_store_writes_a_runs_state_and_only_through_the_table() -> None:
    """Every statement that sets ``run.state`` is in ``store/turns.py``: the insert (checked
    against the initial states) and the guarded moves built from ``RUN_TRANSITIONS``."""
    writes = re.compile(r"UPDATE run SET[^\"]*\bstate\b|INSERT INTO run\b", re.IGNORECASE)
    writers = {
        path.relative_to(HOST).as_posix()
        for path in HOST.rglob("*.py")
        if writes.search(path.read_text(encoding="utf-8"))
    }
    assert writers == {"store/turns.py"}
    source = (HOST / "store" / "turns.py").read_text(encoding="utf-8")
    assert len(re.findall(r"UPDATE run SET state", source)) == 1  # the one in _MOVE_RUN
    assert "state = coalesce" not in source  # no unguarded write of a state
