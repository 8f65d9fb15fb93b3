"""TurnHistory: a Turn's messages built from the items added since the last model call
equal build_messages over the whole Turn, however the Turn's items arrive in chunks."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from panelot_host.engine.context_window.history import TurnHistory, build_messages
from panelot_host.store.records import ItemRecord


def _item(n: int, kind: str, **fields: Any) -> ItemRecord:
    return ItemRecord(id=f"i{n}", thread_id="t", parent_id=None, turn_id="u", kind=kind,
                      created_at=n, **fields)  # fmt: skip


@st.composite
def turns(draw: st.DrawFn) -> list[ItemRecord]:
    """A Turn as stored: a user message, then model calls with parallel tool calls
    (settled, their rows in any order), steering and notices in between."""
    out = [_item(0, "user", text="go")]
    for _ in range(draw(st.integers(0, 6))):
        assistant = _item(len(out), "assistant", text=draw(st.sampled_from(["", "ok"])))
        out.append(assistant)
        calls = draw(st.integers(0, 3))
        rows = []
        for index in range(calls):
            rows.append(
                _item(
                    len(out) + index,
                    "toolCall",
                    call_id=f"c{len(out) + index}",
                    name="noop",
                    args={},
                    batch_item_id=assistant.id,
                    batch_index=index,
                    status=draw(st.sampled_from(["succeeded", "failed", "denied"])),
                    result={"content": "r", "isError": False},
                )
            )
        out.extend(draw(st.permutations(rows)))
        for _ in range(draw(st.integers(0, 2))):
            out.append(_item(len(out), draw(st.sampled_from(["steering", "notice"])), text="s"))
    return out


@settings(max_examples=300, deadline=None)
@given(turn=turns(), data=st.data())
def test_fed_in_chunks_it_equals_build_messages_of_the_whole_turn(
    turn: list[ItemRecord], data: st.DataObject
) -> None:
    history = TurnHistory()
    cuts = data.draw(st.lists(st.integers(0, len(turn)), max_size=8))
    for stored in [*sorted(cuts), len(turn)]:
        ids = [i.id for i in turn[:stored]]
        start = ids.index(history.last_item_id) + 1 if history.last_item_id else 0
        assert history.messages(turn[start:stored]) == build_messages(turn[:stored])


def test_an_unsettled_call_and_what_follows_it_are_read_again() -> None:
    assistant = _item(1, "assistant", text="")
    call = _item(2, "toolCall", call_id="c", name="noop", args={}, batch_item_id="i1",
                 batch_index=0, status="running")  # fmt: skip
    history = TurnHistory()
    first = [_item(0, "user", text="go"), assistant, call]
    assert history.messages(first) == build_messages(first)
    assert history.last_item_id == "i1"
    settled = _item(2, "toolCall", call_id="c", name="noop", args={}, batch_item_id="i1",
                    batch_index=0, status="succeeded", result={"content": "done"})  # fmt: skip
    later = [settled, _item(3, "steering", text="also")]
    assert history.messages(later) == build_messages([first[0], assistant, *later])
    assert history.last_item_id == "i3"


def test_steering_is_a_user_message_marked_as_added_to_the_running_turn() -> None:
    messages = build_messages([_item(0, "user", text="go"), _item(1, "steering", text="also")])
    assert [(type(m).__name__, getattr(m, "steering", None)) for m in messages] == [
        ("UserMessage", False),
        ("UserMessage", True),
    ]
