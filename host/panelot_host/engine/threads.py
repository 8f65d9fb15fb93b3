"""Thread operations: create, list, open (snapshot), rename, delete, fork, select a branch.

Each changing operation is one command transaction unit with its receipt
(`docs/engine.md`, "Command transaction units"); the event that reports it is published
after the commit. Plain arguments in, result structs out: the server maps the wire.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import cast

import msgspec

from panelot_host.engine import slots, titles, views
from panelot_host.engine.commands import Receipt, command_unit
from panelot_host.engine.events import PENDING_SEQ, EventSink
from panelot_host.engine.frames import get_frame
from panelot_host.engine.thread_list import list_threads
from panelot_host.protocol import entities, events
from panelot_host.protocol.items import Item
from panelot_host.protocol.ops import threads as ops
from panelot_host.protocol.ops._base import EmptyResult
from panelot_host.protocol.ops.timeline import FrameGetResult
from panelot_host.store import (
    approvals,
    frames,
    item_wire,
    items,
    settings,
    steering,
    threads,
    turns,
)
from panelot_host.store.db import Database
from panelot_host.store.ids import new_id
from panelot_host.store.records import ItemRecord, RunRecord
from panelot_host.store.seq import SeqAllocator

DEFAULT_TITLE = "New thread"


class ThreadService:
    """The thread-level commands and queries; ``guard`` rejects changes to a busy thread."""

    def __init__(
        self,
        db: Database,
        seq: SeqAllocator,
        sink: EventSink,
        guard: Callable[[str, str], None],
    ) -> None:
        self._db = db
        self._seq = seq
        self._sink = sink
        self._guard = guard

    def create(self, cmd: Receipt, title: str | None = None) -> ops.ThreadResult:
        """A new thread titled ``title`` (or the fallback title)."""
        with command_unit(self._db, cmd) as unit:
            title = (title or "").strip()
            record = threads.create(
                unit.conn,
                title=title or DEFAULT_TITLE,
                title_source="user" if title else "fallback",
            )
            result = unit.respond(ops.ThreadResult(thread=views.thread_view(record)))
        return result

    def list(
        self, limit: int, cursor: str | None = None, query: str | None = None
    ) -> ops.ThreadListResult:
        """A page of threads, most recently updated first; with ``query``, the matches."""
        return list_threads(self._db, limit, cursor, query)

    def open(self, thread_id: str) -> entities.ThreadSnapshot:
        """The snapshot of a live thread; raises ``NotFound``."""
        return snapshot(self._db, self._db.conn, thread_id, self._seq.current(thread_id))

    def frame(self, frame_id: str) -> FrameGetResult:
        """``frame.get``: a stored frame with its image; raises ``NotFound``."""
        return get_frame(self._db, frame_id)

    def rename(self, cmd: Receipt, thread_id: str, title: str) -> ops.ThreadResult:
        with command_unit(self._db, cmd) as unit:
            record = threads.rename(unit.conn, thread_id, title.strip(), "user")
            view = views.thread_view(record)
            result = unit.respond(ops.ThreadResult(thread=view))
        self._sink.publish(
            record.id,
            "thread.updated",
            events.ThreadUpdatedEvent(thread_id=record.id, seq=PENDING_SEQ, thread=view),
        )
        return result

    def delete(self, cmd: Receipt, thread_id: str) -> EmptyResult:
        self._guard(thread_id, cmd.identity.method)
        with command_unit(self._db, cmd) as unit:
            threads.delete(unit.conn, thread_id)
            result = unit.respond(EmptyResult())
        return result

    def fork(self, cmd: Receipt, thread_id: str, at_item_id: str | None) -> ops.ThreadResult:
        """A new thread holding the branch up to ``at_item_id`` (nothing when None)."""
        self._guard(thread_id, cmd.identity.method)
        with command_unit(self._db, cmd) as unit:
            source = threads.get(unit.conn, thread_id)
            path: list[ItemRecord] = []
            if at_item_id is not None:
                items.find_in_thread(unit.conn, source.id, at_item_id)
                path = items.branch(unit.conn, at_item_id)
            base = titles.copy_base(source.title)
            taken = threads.titles_starting_with(unit.conn, base)
            fork = threads.create(
                unit.conn,
                title=titles.copy_title(source.title, taken),
                title_source=source.title_source,
                parent_thread_id=source.id,
                forked_from_item_id=at_item_id,
            )
            head = items.copy_branch(unit.conn, path, fork.id, new_id)
            threads.set_head(unit.conn, fork.id, head)
            view = views.thread_view(threads.get(unit.conn, fork.id))
            result = unit.respond(ops.ThreadResult(thread=view))
        return result

    def select_branch(self, cmd: Receipt, thread_id: str, item_id: str) -> entities.ThreadSnapshot:
        """Make ``item_id`` the head of the thread's branch; the thread's new snapshot."""
        self._guard(thread_id, cmd.identity.method)
        with command_unit(self._db, cmd) as unit:
            threads.get(unit.conn, thread_id)
            items.find_in_thread(unit.conn, thread_id, item_id)
            threads.set_head(unit.conn, thread_id, item_id)
            current = snapshot(self._db, unit.conn, thread_id, self._seq.current(thread_id))
            result = unit.respond(current)
        return result


def snapshot(
    db: Database, conn: sqlite3.Connection, thread_id: str, last_seq: int
) -> entities.ThreadSnapshot:
    """Everything a client needs to render and continue a thread (``thread.open``)."""
    record = threads.get(conn, thread_id)
    last = turns.last_turn(conn, thread_id)
    run = turns.run_of_turn(conn, last.id) if last else None
    pending = steering.pending_steering(conn, last.id) if last else []
    path, points = items.branch_with_points(conn, thread_id, record.head_item_id)
    return entities.ThreadSnapshot(
        thread=views.thread_view(record),
        items=branch_wire(db, thread_id, path),
        turn=views.turn_view(last) if last else None,
        run=_run_view(conn, run) if run else None,
        pending_approvals=[
            views.approval_view(a) for a in approvals.pending_approvals(conn, thread_id)
        ],
        pending_interactions=[
            views.interaction_view(i) for i in approvals.pending_interactions(conn, thread_id)
        ],
        queue=views.queue_view(steering.queue(conn, thread_id)),
        pending_steering=[views.steering_view(s) for s in pending],
        last_seq=last_seq,
        turns=[views.turn_view(t) for t in turns.of_thread(conn, thread_id)],
        branches=[
            entities.BranchPoint(
                item_id=item_id,
                choices=[entities.BranchChoice(item_id=i, head_item_id=h) for i, h in choices],
            )
            for item_id, choices in points
        ],
        decided_approvals=[
            entities.DecidedApproval(
                tool_call_id=a.tool_call_item_id, decision=a.decision, scope=a.scope
            )
            for a in approvals.approvals_of_thread(conn, thread_id)
            if a.state == "decided" and a.decision is not None
        ],
    )


def _run_view(conn: sqlite3.Connection, run: RunRecord) -> entities.Run:
    """The run; while ``queued`` (for a slot, ``engine.slots``) with its reason, from the
    limit in the stored settings."""
    if run.state != "queued":
        return views.run_view(run)
    limit = slots.max_parallel_turns(settings.all_settings(conn))
    return views.run_view(run, slots.wait_reason(limit))


WIRE_FORMAT = 3
"""Bump when ``views.item_view`` changes what it renders: cached item JSON is re-rendered
(3: a tool call's ``frames`` and ``frameSkipped``)."""
_encode_item = msgspec.json.Encoder().encode


def branch_wire(db: Database, thread_id: str, ids: list[str]) -> list[Item]:
    """The branch's items (``ids``, oldest first) as their wire JSON, rendered once per
    item and cached (schema 4): reopening a long thread reads stored JSON instead of
    rebuilding every item. A tool call's JSON lists its frames, read for all the items
    rendered in one query; storing or removing a frame drops its item's cached JSON
    (``store.frames``)."""
    conn = db.conn
    rendered = item_wire.cached(conn, thread_id, WIRE_FORMAT)
    missing = [item_id for item_id in ids if item_id not in rendered]
    if missing:
        records = (
            items.of_thread(conn, thread_id, missing)
            if len(missing) > 32
            else [items.get(conn, i) for i in missing]
        )
        calls = [r.id for r in records if r.kind == "toolCall"]
        shots = frames.of_items(conn, calls)
        fresh = [(r.id, _encode_item(views.item_view(r, shots.get(r.id, ())))) for r in records]
        with db.joining() as write:
            item_wire.store(write, thread_id, WIRE_FORMAT, fresh)
        rendered.update(fresh)
    # Raw JSON stands in for the Item structs: msgspec writes it out as it is.
    return cast(list[Item], [msgspec.Raw(rendered[item_id]) for item_id in ids])
