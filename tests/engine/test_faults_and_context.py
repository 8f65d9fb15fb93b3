"""The engine's context is fixed at construction; faults come in through one hook whose
base injects none; test doubles are not part of the package."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import anyio
import pytest

from panelot_host.engine.context import EngineContext
from panelot_host.engine.failpoints import NO_FAULTS, Failpoints, FaultHook
from panelot_host.server.host import Host
from panelot_host.server.transport import DirectTransport
from panelot_host.store import items, steering, threads, turns
from panelot_host.store.db import Database
from panelot_host.store.ids import now_ms
from panelot_host.store.records import ItemRecord, RunRef

HOST = Path(__file__).resolve().parents[2] / "host" / "panelot_host"
FAILPOINT_NAMES = ("ack_before_commit", "split_result_state", "rerun_write")


def _turn(tmp_path: Path) -> tuple[Database, str]:
    db = Database.open(tmp_path / "p.db")
    with db.transaction() as conn:
        thread_id = threads.create(conn, title="t").id
        turns.insert_turn(conn, turn_id="trn", thread_id=thread_id, user_item_id=None, context={})
    return db, thread_id


def test_no_failpoints_is_the_base_hook_and_an_unknown_name_is_refused() -> None:
    assert Failpoints.from_environ({}) is NO_FAULTS
    assert Failpoints.from_environ({"PANELOT_FAILPOINTS": " , "}) is NO_FAULTS
    hook = Failpoints.from_environ({"PANELOT_FAILPOINTS": "rerun_write"})
    assert isinstance(hook, Failpoints) and hook.enabled == {"rerun_write"}
    with pytest.raises(ValueError, match="unknown failpoints"):
        Failpoints.from_environ({"PANELOT_FAILPOINTS": "rerun_write,teleport"})


def test_the_base_hook_stores_steering_and_changes_nothing(tmp_path: Path) -> None:
    db, thread_id = _turn(tmp_path)
    with db.transaction() as conn:
        NO_FAULTS.store_steering(
            conn, steering_id="st1", thread_id=thread_id, turn_id="trn", text="hi"
        )
    NO_FAULTS.before_model_call(db, "trn")
    assert [s.id for s in steering.pending_steering_upto(db.conn, "trn", 10**18)] == ["st1"]
    assert [NO_FAULTS.recovery_class(c) for c in ("write", "read", "remote", "idempotent")] == [
        "write", "read", "remote", "idempotent",
    ]  # fmt: skip


def test_ack_before_commit_stores_the_steering_only_at_the_next_model_call(
    tmp_path: Path,
) -> None:
    db, thread_id = _turn(tmp_path)
    hook = Failpoints(frozenset({"ack_before_commit"}))
    with db.transaction() as conn:
        hook.store_steering(conn, steering_id="st1", thread_id=thread_id, turn_id="trn", text="x")
    assert steering.pending_steering_upto(db.conn, "trn", 10**18) == []
    hook.before_model_call(db, "trn")
    assert [s.text for s in steering.pending_steering_upto(db.conn, "trn", 10**18)] == ["x"]


def test_rerun_write_and_split_result_state_break_what_they_name(tmp_path: Path) -> None:
    db, thread_id = _turn(tmp_path)
    assert Failpoints(frozenset({"rerun_write"})).recovery_class("write") == "read"
    with db.transaction() as conn:
        items.insert(conn, ItemRecord(
            id="call", thread_id=thread_id, parent_id=None, turn_id="trn", kind="toolCall",
            created_at=now_ms(), call_id="c", name="t", args={}, status="running",
        ))  # fmt: skip
    anyio.run(NO_FAULTS.before_result, db, "call", "succeeded")
    assert items.get(db.conn, "call").status == "running"
    split = Failpoints(frozenset({"split_result_state"}))
    anyio.run(split.before_result, db, "call", "succeeded")
    stored = items.get(db.conn, "call")
    assert (stored.status, stored.result) == ("succeeded", None)  # the bug: no result yet


def test_production_code_names_no_failpoint() -> None:
    """The engine calls the hook's seams; only ``engine/failpoints.py`` knows the faults."""
    pattern = re.compile("|".join(FAILPOINT_NAMES) + r"|failpoints\.on\(")
    naming = {
        path.relative_to(HOST).as_posix()
        for path in HOST.rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    }
    assert naming == {"engine/failpoints.py"}
    assert set(vars(FaultHook)) >= {"store_steering", "before_model_call", "before_result",
                                    "recovery_class"}  # fmt: skip


@pytest.mark.anyio
async def test_the_engine_context_is_fixed_once_built(host: Host, client: DirectTransport) -> None:
    assert host.profile is not None  # the client's initialize opened it
    ctx = host.profile.ensure_engine().ctx
    assert isinstance(ctx, EngineContext)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.faults = Failpoints(frozenset({"rerun_write"}))  # type: ignore[misc]
    assert ctx.faults is NO_FAULTS
    assert ctx.tool_sources is not None  # given at construction, not patched in


def test_a_run_record_names_its_run(tmp_path: Path) -> None:
    db, thread_id = _turn(tmp_path)
    with db.transaction() as conn:
        turns.insert_run(
            conn, run_id="run", turn_id="trn", thread_id=thread_id, state="streaming", cursor={}
        )
    assert turns.get_run(db.conn, "run").ref == RunRef(thread_id, "trn", "run")


def test_the_fake_browser_is_not_part_of_the_package() -> None:
    assert importlib.util.find_spec("panelot_host.tools.fake_browser") is None
    assert not list(HOST.rglob("fake_*.py"))
