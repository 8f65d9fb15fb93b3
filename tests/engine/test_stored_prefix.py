"""The stored session prefix (``store.context_prefix``): a fresh process that reads it back
builds exactly the messages the slow path (the branch rebuilt from its items) builds, after
items change status, after a compaction, after a fork or branch switch, and with a stale,
foreign or damaged stored prefix; and the stored elision pass gives exactly the request the
walk over the messages gives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelot_host.engine.context_window.elision import Elided, Elider, Marks
from panelot_host.engine.context_window.history import build_messages
from panelot_host.engine.context_window.prefix_store import PREFIX_FORMAT
from panelot_host.engine.context_window.session_context import SessionContext
from panelot_host.engine.context_window.tokens import TokenEstimator
from panelot_host.engine.history_cache import HistoryCache
from panelot_host.providers.types import Message
from panelot_host.store import context_prefix, items, threads, turns
from panelot_host.store.db import Database
from panelot_host.store.ids import new_id, now_ms
from panelot_host.store.records import ItemRecord


class _Ctx:
    """What ``SessionContext`` reads of the engine context: a fresh process's."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.history = HistoryCache()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database.open(tmp_path / "p.db")
    yield database
    database.close()


_IMAGE = {"type": "image", "mediaType": "image/png", "data": "iVBORw0KGgo="}
_STEPS: list[tuple[str, Any]] = [
    ("browser_snapshot", "- link " * 200),
    ("browser_screenshot", [{"type": "text", "text": "shot"}, _IMAGE]),
    ("browser_read", "text " * 150),
]


def _turn(db: Database, thread_id: str, steps: int, *, parent: str | None = None) -> str:
    """A finished Turn after ``parent`` (default: the head): a user message, ``steps`` tool
    steps and an answer; the head moves to its last item. Returns the Turn's id."""
    with db.transaction() as conn:
        head = parent if parent is not None else threads.get(conn, thread_id).head_item_id
        turn_id, user_id = new_id("trn"), new_id("itm")
        turns.insert_turn(conn, turn_id=turn_id, thread_id=thread_id, user_item_id=user_id,
                          context={})  # fmt: skip
        items.insert(conn, ItemRecord(user_id, thread_id, head, turn_id, "user", now_ms(), "go"))
        last = user_id
        for n in range(steps):
            assistant = ItemRecord(new_id("itm"), thread_id, last, turn_id, "assistant", now_ms(),
                                   f"step {n}")  # fmt: skip
            name, content = _STEPS[n % len(_STEPS)]
            call = ItemRecord(
                new_id("itm"), thread_id, assistant.id, turn_id, "toolCall", now_ms(),
                call_id=new_id("call"), name=name, args={"tabId": 1 + n % 2},
                batch_item_id=assistant.id, batch_index=0, status="succeeded",
                result={"content": content, "details": {"target": {"tabId": 1 + n % 2}}},
            )  # fmt: skip
            items.insert(conn, assistant)
            items.insert(conn, call)
            last = call.id
        answer = ItemRecord(new_id("itm"), thread_id, last, turn_id, "assistant", now_ms(), "done")
        items.insert(conn, answer)
        threads.set_head(conn, thread_id, answer.id)
    return turn_id


def _messages(db: Database, thread_id: str, turn_id: str) -> tuple[list[Message], list[Message]]:
    return SessionContext(_Ctx(db), thread_id, turn_id).messages()


def _slow(db: Database, thread_id: str, turn_id: str) -> tuple[list[Message], list[Message]]:
    """The same, with nothing stored: the branch rebuilt from its items."""
    db.conn.execute("DELETE FROM context_elision")
    db.conn.execute("DELETE FROM context_prefix")
    return _messages(db, thread_id, turn_id)


def _not_read(*_: object, **__: object) -> None:
    raise AssertionError("the branch was read")


def _stored(db: Database) -> int:
    return int(db.conn.execute("SELECT count(*) FROM context_prefix").fetchone()[0])


def _thread(db: Database, turns_before: int = 3) -> tuple[str, str]:
    with db.transaction() as conn:
        thread_id = threads.create(conn, title="t", title_source="user").id
    for _ in range(turns_before):
        _turn(db, thread_id, 3)
    return thread_id, _turn(db, thread_id, 2)


def test_a_fresh_process_reads_the_stored_prefix_and_builds_the_same_messages(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread_id, turn_id = _thread(db)
    first = _messages(db, thread_id, turn_id)
    assert _stored(db) == 1
    with monkeypatch.context() as patched:
        patched.setattr(items, "iter_branch", _not_read)
        again = _messages(db, thread_id, turn_id)
    assert again == first
    prefix, current = first
    head = threads.get(db.conn, thread_id).head_item_id
    assert [*prefix, *current] == build_messages(items.iter_branch(db.conn, head))
    assert len(prefix) == 3 * 8


def test_the_next_turn_extends_the_stored_prefix(db: Database) -> None:
    thread_id, previous = _thread(db)
    _messages(db, thread_id, previous)
    turn_id = _turn(db, thread_id, 1)
    extended = _messages(db, thread_id, turn_id)
    assert extended == _slow(db, thread_id, turn_id)


def _part_sizes(db: Database) -> list[int]:
    rows = db.conn.execute("SELECT length(messages) FROM context_prefix ORDER BY part")
    return [int(row[0]) for row in rows]


def _turns_in_fresh_processes(db: Database, thread_id: str, count: int) -> str:
    """``count`` more Turns, each one's messages built by a fresh process; the last Turn."""
    turn_id = ""
    for _ in range(count):
        turn_id = _turn(db, thread_id, 2)
        _messages(db, thread_id, turn_id)
    return turn_id


def test_each_turn_appends_its_part_and_a_fresh_process_joins_them(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread_id, turn_id = _thread(db)
    _messages(db, thread_id, turn_id)
    first = db.conn.execute("SELECT messages FROM context_prefix WHERE part = 0").fetchone()[0]
    turn_id = _turns_in_fresh_processes(db, thread_id, 3)
    sizes = _part_sizes(db)
    assert len(sizes) == 4  # the prefix, then what each later Turn added
    assert db.conn.execute("SELECT messages FROM context_prefix WHERE part = 0").fetchone()[0] == (
        first
    )  # never rewritten
    assert max(sizes[1:]) < sizes[0]
    with monkeypatch.context() as patched:
        patched.setattr(items, "iter_branch", _not_read)
        patched.setattr(items, "continuation", _not_read)
        joined = _messages(db, thread_id, turn_id)
    assert joined == _slow(db, thread_id, turn_id)


def test_a_changed_item_drops_its_part_and_the_later_ones_only(db: Database) -> None:
    thread_id, turn_id = _thread(db)
    _messages(db, thread_id, turn_id)
    changed_turn = _turns_in_fresh_processes(db, thread_id, 1)
    turn_id = _turns_in_fresh_processes(db, thread_id, 2)
    assert len(_part_sizes(db)) == 4
    call = next(i for i in items.of_turn(db.conn, thread_id, changed_turn) if i.kind == "toolCall")
    with db.transaction() as conn:  # an item of part 2 (part 1 is the Turn before it)
        items.set_tool_status(conn, call.id, "uncertain")
        items.reset_call(conn, call.id)
    assert len(_part_sizes(db)) == 2  # the parts before it stay
    again = _messages(db, thread_id, turn_id)
    assert again == _slow(db, thread_id, turn_id)
    assert any("did not finish" in repr(m) for m in again[0])


def test_past_the_most_parts_the_prefix_is_stored_whole_again(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(context_prefix, "MAX_PARTS", 3)
    thread_id, turn_id = _thread(db)
    _messages(db, thread_id, turn_id)
    turn_id = _turns_in_fresh_processes(db, thread_id, 2)
    assert len(_part_sizes(db)) == 3
    turn_id = _turns_in_fresh_processes(db, thread_id, 1)
    assert len(_part_sizes(db)) == 1
    assert _messages(db, thread_id, turn_id) == _slow(db, thread_id, turn_id)


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE context_prefix SET messages = x'00ff' WHERE part = 1",  # its checksum fails
        "UPDATE context_prefix SET start_item_id = 'itm_elsewhere' WHERE part = 2",  # a gap
        "UPDATE context_prefix SET format = 'other code' WHERE part = 1",
        "DELETE FROM context_prefix WHERE part = 1",  # a missing part
    ],
)
def test_parts_that_do_not_join_are_rebuilt_whole(db: Database, damage: str) -> None:
    thread_id, turn_id = _thread(db)
    _messages(db, thread_id, turn_id)
    turn_id = _turns_in_fresh_processes(db, thread_id, 2)
    expected = _messages(db, thread_id, turn_id)
    db.conn.execute(damage)
    assert _messages(db, thread_id, turn_id) == expected == _slow(db, thread_id, turn_id)


def test_a_status_change_of_a_covered_item_drops_the_stored_prefix(db: Database) -> None:
    thread_id, turn_id = _thread(db)
    _session_elided(db, thread_id, turn_id, Marks(high=900, low=450))
    assert _elision_stored(db)
    head = threads.get(db.conn, thread_id).head_item_id
    call = next(i for i in items.iter_branch(db.conn, head) if i.kind == "toolCall")
    with db.transaction() as conn:
        items.set_tool_status(conn, call.id, "uncertain")
        items.reset_call(conn, call.id)
    assert _stored(db) == 0
    assert not _elision_stored(db)
    rebuilt = _messages(db, thread_id, turn_id)
    assert rebuilt == _slow(db, thread_id, turn_id)
    assert any("did not finish" in repr(m) for m in rebuilt[0])


def test_a_change_after_the_prefix_keeps_it(db: Database) -> None:
    thread_id, turn_id = _thread(db)
    _messages(db, thread_id, turn_id)
    call = next(i for i in items.of_turn(db.conn, thread_id, turn_id) if i.kind == "toolCall")
    with db.transaction() as conn:
        items.set_tool_status(conn, call.id, "succeeded", {"content": "again"})
    assert _stored(db) == 1


def test_a_compaction_moves_the_start_and_the_prefix_is_rebuilt(db: Database) -> None:
    thread_id, _ = _thread(db)
    with db.transaction() as conn:
        head = threads.get(conn, thread_id).head_item_id
        covered = items.branch_ids(conn, thread_id, head)[10]
        compaction = ItemRecord(new_id("itm"), thread_id, head, None, "compaction", now_ms(),
                                "summary", extra={"throughItemId": covered})  # fmt: skip
        items.insert(conn, compaction)
        threads.set_head(conn, thread_id, compaction.id)
    turn_id = _turn(db, thread_id, 1)
    compacted = _messages(db, thread_id, turn_id)
    assert compacted == _slow(db, thread_id, turn_id)
    assert "summary" in repr(compacted[0][0])
    assert _messages(db, thread_id, turn_id) == compacted


def test_a_fork_and_a_branch_switch_get_their_own_prefix(db: Database) -> None:
    thread_id, turn_id = _thread(db)
    _messages(db, thread_id, turn_id)
    head = threads.get(db.conn, thread_id).head_item_id
    early = items.branch_ids(db.conn, thread_id, head)[7]
    other = _turn(db, thread_id, 2, parent=early)  # a sibling branch, now selected
    switched = _messages(db, thread_id, other)
    assert switched == _slow(db, thread_id, other)
    with db.transaction() as conn:
        threads.set_head(conn, thread_id, head)  # back to the first branch
    assert _messages(db, thread_id, turn_id) == _slow(db, thread_id, turn_id)
    with db.transaction() as conn:
        fork = threads.create(conn, title="fork", title_source="user").id
        threads.set_head(conn, fork, items.copy_branch(conn, items.branch(conn, head), fork,
                                                       new_id))  # fmt: skip
    forked_turn = _turn(db, fork, 1)
    assert _messages(db, fork, forked_turn) == _slow(db, fork, forked_turn)


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE context_prefix SET format = 'other code'",
        "UPDATE context_prefix SET messages = x'00ff'",  # checksum no longer matches
        "UPDATE context_prefix SET messages = x'c1', checksum = 1046551979",  # crc32 of c1
        "UPDATE context_prefix SET messages = x'9101', checksum = 1585748274",  # [1]: wrong type
    ],
)
def test_a_stale_foreign_or_damaged_stored_prefix_is_rebuilt(db: Database, damage: str) -> None:
    thread_id, turn_id = _thread(db)
    expected = _messages(db, thread_id, turn_id)
    db.conn.execute(damage)
    assert _messages(db, thread_id, turn_id) == expected
    assert _stored(db) == 1
    row = db.conn.execute("SELECT format, length(messages) FROM context_prefix").fetchone()
    assert row[0] == PREFIX_FORMAT and row[1] > 2  # stored again, in the current format


def test_a_stored_prefix_of_another_end_is_not_used_as_it_is(db: Database) -> None:
    thread_id, turn_id = _thread(db)
    expected = _messages(db, thread_id, turn_id)
    db.conn.execute("UPDATE context_prefix SET end_item_id = 'itm_elsewhere'")
    assert _messages(db, thread_id, turn_id) == expected


def _slow_elided(prefix: list[Message], current: list[Message], marks: Marks) -> Elided:
    return Elider().elide(list(prefix), current, marks, TokenEstimator().of)


def _session_elided(
    db: Database, thread_id: str, turn_id: str, marks: Marks
) -> tuple[Elided, tuple[list[Message], list[Message]]]:
    session = SessionContext(_Ctx(db), thread_id, turn_id)
    prefix, current = session.messages()
    elided = session.elided(Elider(), prefix, current, marks, TokenEstimator().of)
    return elided, (prefix, current)


def _elision_stored(db: Database) -> bool:
    row = db.conn.execute("SELECT elision FROM context_elision").fetchone()
    return row is not None and row[0] is not None


@pytest.mark.parametrize("high", [100_000, 2_000, 900, 300])
def test_the_stored_elision_pass_gives_the_same_request_as_the_walk(
    db: Database, high: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    with db.transaction() as conn:
        thread_id = threads.create(conn, title="t", title_source="user").id
    for _ in range(6):
        _turn(db, thread_id, 5)
    turn_id = _turn(db, thread_id, 3)
    marks = Marks(high=high, low=high // 2)
    made, messages = _session_elided(db, thread_id, turn_id, marks)
    assert made == _slow_elided(*messages, marks)
    assert made.messages != [*messages[0], *messages[1]]  # images past the cap at least
    assert ("supersedes" in repr(made.messages)) == (high < 100_000)
    assert _elision_stored(db)
    resumed: list[int] = []
    original = Elider.resume
    monkeypatch.setattr(Elider, "resume", lambda self, *a: resumed.append(1) or original(self, *a))
    read, again = _session_elided(db, thread_id, turn_id, marks)  # a fresh process
    assert resumed == [1]
    assert again == messages
    assert read == made
    after = Marks(high=high, low=high // 2, after_compaction=True)
    assert _session_elided(db, thread_id, turn_id, after)[0] == _slow_elided(*messages, after)


def test_a_damaged_or_foreign_elision_pass_is_made_again(db: Database) -> None:
    thread_id, turn_id = _thread(db)
    marks = Marks(high=1_000, low=500)
    expected, messages = _session_elided(db, thread_id, turn_id, marks)
    for damage in [
        "UPDATE context_elision SET elision = x'00'",
        "UPDATE context_elision SET elision = x'c1', checksum = 1046551979",
    ]:
        db.conn.execute(damage)
        assert _session_elided(db, thread_id, turn_id, marks)[0] == expected
        assert _elision_stored(db)
    other = Marks(high=2_000, low=500)
    assert _session_elided(db, thread_id, turn_id, other)[0] == _slow_elided(*messages, other)


@pytest.mark.parametrize("same_process", [False, True])
def test_the_next_turn_resumes_the_stored_pass_over_the_prefix_it_extends(
    db: Database, same_process: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread_id, previous = _thread(db)
    marks = Marks(high=900, low=450)
    ctx = _Ctx(db)
    first = SessionContext(ctx, thread_id, previous)
    prefix, current = first.messages()
    first.elided(Elider(), prefix, current, marks, TokenEstimator().of)
    turn_id = _turn(db, thread_id, 2)
    session = SessionContext(ctx if same_process else _Ctx(db), thread_id, turn_id)
    prefix, current = session.messages()
    resumed: list[int] = []
    original = Elider.resume
    monkeypatch.setattr(
        Elider, "resume", lambda self, p, state, size: resumed.append(state.length)
        or original(self, p, state, size)
    )  # fmt: skip
    elided = session.elided(Elider(), prefix, current, marks, TokenEstimator().of)
    assert resumed and 0 < resumed[0] < len(prefix)
    assert elided == _slow_elided(prefix, current, marks)
    assert _messages(db, thread_id, turn_id) == _slow(db, thread_id, turn_id)


def test_the_same_process_rereads_a_prefix_whose_items_changed(db: Database) -> None:
    thread_id, turn_id = _thread(db)
    ctx = _Ctx(db)
    SessionContext(ctx, thread_id, turn_id).messages()
    head = threads.get(db.conn, thread_id).head_item_id
    call = next(i for i in items.iter_branch(db.conn, head) if i.kind == "toolCall")
    with db.transaction() as conn:
        items.set_tool_status(conn, call.id, "uncertain")
        items.reset_call(conn, call.id)
    again = SessionContext(ctx, thread_id, turn_id).messages()
    assert "did not finish" in repr(again[0])
    assert again == _slow(db, thread_id, turn_id)
    following = _turn(db, thread_id, 1)
    assert SessionContext(ctx, thread_id, following).messages() == _slow(db, thread_id, following)


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("turn"), st.integers(0, 4)),
        st.tuples(st.just("status"), st.integers(0, 10_000)),
        st.tuples(st.just("compact"), st.integers(0, 10_000)),
        st.tuples(st.just("switch"), st.integers(0, 10_000)),
        st.tuples(st.just("damage"), st.sampled_from(["format", "blob", "pass"])),
    ),
    min_size=1,
    max_size=8,
)
_DAMAGE = {
    "format": "UPDATE context_prefix SET format = 'other code'",
    "blob": "UPDATE context_prefix SET messages = x'00ff'",
    "pass": "UPDATE context_elision SET elision = x'00'",
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=_OPS, high=st.sampled_from([300, 900, 100_000]))
def test_random_histories_build_what_the_slow_path_builds(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, Any]], high: int
) -> None:
    """Whatever happened to the thread (turns, status changes, compactions, branch
    switches, damaged rows), a long-lived process and a fresh one build the request the
    slow path builds."""
    db = Database.open(tmp_path_factory.mktemp("h") / "p.db")
    try:
        with db.transaction() as conn:
            thread_id = threads.create(conn, title="t", title_source="user").id
        _turn(db, thread_id, 3)
        marks, ctx = Marks(high=high, low=high // 2), _Ctx(db)
        for op, arg in ops:
            _apply(db, thread_id, op, arg)
            turn_id = _turn(db, thread_id, 1)
            for context in (ctx, _Ctx(db)):
                session = SessionContext(context, thread_id, turn_id)
                prefix, current = session.messages()
                elided = session.elided(Elider(), prefix, current, marks, TokenEstimator().of)
                assert elided == _slow_elided(prefix, current, marks)
                head = threads.get(db.conn, thread_id).head_item_id
                boundary = items.latest_compaction(db.conn, thread_id, head)
                if boundary is None:
                    assert [*prefix, *current] == build_messages(items.iter_branch(db.conn, head))
            assert (prefix, current) == _slow(db, thread_id, turn_id)
    finally:
        db.close()


def _apply(db: Database, thread_id: str, op: str, arg: Any) -> None:
    head = threads.get(db.conn, thread_id).head_item_id
    branch = items.branch(db.conn, head)
    if op == "turn":
        _turn(db, thread_id, arg)
    elif op == "damage":
        db.conn.execute(_DAMAGE[arg])
    elif op == "status":
        calls = [i for i in branch if i.kind == "toolCall"]
        with db.transaction() as conn:  # its result is dropped: a synthetic one is sent
            items.set_tool_status(conn, calls[arg % len(calls)].id, "uncertain")
            items.reset_call(conn, calls[arg % len(calls)].id)
    elif op == "compact":
        covered = branch[arg % len(branch)]
        with db.transaction() as conn:
            extra = {"throughItemId": covered.id}
            compaction = ItemRecord(new_id("itm"), thread_id, head, None, "compaction",
                                    now_ms(), "summary", extra=extra)  # fmt: skip
            items.insert(conn, compaction)
            threads.set_head(conn, thread_id, compaction.id)
    else:
        ends = [i for i in branch if i.kind == "assistant" and i.text == "done"]
        with db.transaction() as conn:
            threads.set_head(conn, thread_id, ends[arg % len(ends)].id)
