"""The checks run after every kill, with the host dead, on its database (read-only), the
ledger of acknowledged commands, the shim's executions and the provider request log."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import msgspec
from tests.support.invariants import InvariantViolation, check_request
from tests.torture.ledger import Ack, Ledger
from tests.torture.shim import Shim

from panelot_host.providers.directives import STEERING_SEEN
from panelot_host.providers.types import ModelRequest
from panelot_host.store.migrate import load_migrations

TERMINAL = frozenset({"succeeded", "failed", "denied", "interrupted"})
UNSETTLED = frozenset({"pending", "awaiting_approval", "running", "uncertain"})
TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)
Report = Callable[[str, str], None]  # (kind, detail)


def open_readonly(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)


class RequestLog:
    """The directives provider's request log, read incrementally (whole lines only)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self.checked = 0

    def check_new(self, report: Report) -> None:
        if not self.path.exists():
            return
        with self.path.open("rb") as log:
            log.seek(self._offset)
            data = log.read()
        end = data.rfind(b"\n") + 1
        self._offset += end
        for line in data[:end].splitlines():
            self.checked += 1
            try:
                check_request(msgspec.json.decode(line, type=ModelRequest))
            except (InvariantViolation, msgspec.DecodeError) as exc:
                report("request", f"provider request #{self.checked} is invalid: {exc}")


def check_store(db: Path, ledger: Ledger, shim: Shim, report: Report) -> int:
    """Every check on the store; returns how many acknowledgements were verified."""
    try:
        with closing(open_readonly(db)) as conn:
            if not _fully_migrated(conn):
                # killed while the first start created the schema: each migration commits
                # whole, the next start finishes the rest; nothing can have been answered
                if ledger.acks:
                    report("ack_lost", f"{len(ledger.acks)} acknowledged, schema unfinished")
                return 0
            rows = conn.execute("PRAGMA integrity_check").fetchall()
            if rows != [("ok",)]:
                report("integrity", f"PRAGMA integrity_check: {rows[:5]}")
                return 0
            verified = check_acks(conn, ledger, report)
            check_tool_calls(conn, report)
            check_no_internal_failures(conn, report)
            check_writes(conn, ledger, shim, report)
            check_usage(conn, report)
            check_steering_reached_model(conn, report)
    except sqlite3.DatabaseError as exc:
        report("integrity", f"the database cannot be read: {exc}")
        return 0
    return verified


def _fully_migrated(conn: sqlite3.Connection) -> bool:
    newest = load_migrations()[-1].version
    return int(conn.execute("PRAGMA user_version").fetchone()[0]) == newest


# ---------------------------------------------------------------- acknowledged commands


def check_acks(conn: sqlite3.Connection, ledger: Ledger, report: Report) -> int:
    receipts = {row[0] for row in conn.execute("SELECT command_id FROM command_receipt")}
    for ack in ledger.acks:
        if ack.command_id not in receipts:
            report("receipt_missing", f"{_name(ack)}: no command_receipt row")
        problem = _effect_missing(conn, ledger, ack)
        if problem:
            report("ack_lost", f"{_name(ack)}: {problem}")
    return len(ledger.acks)


def _name(ack: Ack) -> str:
    return f"{ack.method} {ack.command_id} (acknowledged before kill {ack.kill_no + 1})"


def _effect_missing(conn: sqlite3.Connection, ledger: Ledger, ack: Ack) -> str | None:
    checker = _EFFECTS.get(ack.method)
    return checker(conn, ledger, ack) if checker else None


def _one(conn: sqlite3.Connection, sql: str, *args: Any) -> Any:
    row = conn.execute(sql, args).fetchone()
    return row if row is None else row[0] if len(row) == 1 else row


def _created(conn: sqlite3.Connection, ledger: Ledger, ack: Ack) -> str | None:
    thread_id = ack.result["thread"]["id"]
    found = _one(conn, "SELECT deleted FROM thread WHERE id = ?", thread_id)
    return None if found == 0 else f"thread {thread_id} is not stored"


def _renamed(conn: sqlite3.Connection, ledger: Ledger, ack: Ack) -> str | None:
    thread_id = ack.params["threadId"]
    row = _one(conn, "SELECT title, title_source FROM thread WHERE id = ?", thread_id)
    allowed = {s.params["title"] for s in ledger.sent_after_last_ack(*_RENAME_KEY, thread_id)}
    if row is None or row[0] not in allowed or row[1] != "user":
        return f"thread {thread_id} has title {row!r}, expected one of {sorted(allowed)}"
    return None


_RENAME_KEY = ("thread.rename", "threadId")


def _submitted(conn: sqlite3.Connection, ledger: Ledger, ack: Ack) -> str | None:
    turn_id = ack.result["turnId"]
    found = _one(conn, "SELECT 1 FROM turn WHERE id = ?", turn_id)
    return None if found else f"turn {turn_id} is not stored"


def _steered(conn: sqlite3.Connection, ledger: Ledger, ack: Ack) -> str | None:
    item_id = ack.result["itemId"]
    found = _one(
        conn,
        "SELECT 1 FROM steering WHERE id = ? UNION SELECT 1 FROM item WHERE id = ?",
        item_id,
        item_id,
    )
    return None if found else f"steering message {item_id} is neither in steering nor item"


def _enqueued(conn: sqlite3.Connection, ledger: Ledger, ack: Ack) -> str | None:
    entry_id, text = ack.result["entryId"], ack.params["text"]
    found = _one(
        conn,
        "SELECT 1 FROM queue_entry WHERE id = ? UNION "
        "SELECT 1 FROM item WHERE thread_id = ? AND kind = 'user' AND text = ?",
        entry_id,
        ack.params["threadId"],
        text,
    )
    return None if found else f"queue entry {entry_id} is neither queued nor started"


def _decided(conn: sqlite3.Connection, ledger: Ledger, ack: Ack) -> str | None:
    request_id = ack.params["requestId"]
    row = _one(conn, "SELECT state, decision FROM approval WHERE id = ?", request_id)
    if row != ("decided", ack.params["decision"]):
        return f"approval {request_id} is {row!r}, expected decided {ack.params['decision']}"
    return None


def _resolved(conn: sqlite3.Connection, ledger: Ledger, ack: Ack) -> str | None:
    outcome, item_id = ack.params["outcome"], ack.params["toolCallId"]
    status = _one(conn, "SELECT status FROM item WHERE id = ?", item_id)
    if outcome != "retry" and status != outcome:
        return f"tool call {item_id} is {status!r} after being resolved {outcome}"
    return None


_EFFECTS: dict[str, Callable[[sqlite3.Connection, Ledger, Ack], str | None]] = {
    "thread.create": _created,
    "thread.rename": _renamed,
    "turn.submit": _submitted,
    "turn.steer": _steered,
    "turn.enqueue": _enqueued,
    "approval.response": _decided,
    "recovery.resolve": _resolved,
}


# ---------------------------------------------------------------- tool calls


def check_tool_calls(conn: sqlite3.Connection, report: Report) -> None:
    """A terminal status iff a result (one column: at most one result per call)."""
    rows = conn.execute(
        "SELECT id, call_id, name, status, result IS NOT NULL FROM item WHERE kind = 'toolCall'"
    )
    for item_id, call_id, name, status, has_result in rows:
        what = f"tool call {item_id} ({name}, {call_id}) is {status}"
        if status in TERMINAL and not has_result:
            report("tool_result", f"{what} without a result")
        elif status in UNSETTLED and has_result:
            report("tool_result", f"{what} but already has a result")
        elif status not in TERMINAL | UNSETTLED:
            report("tool_result", f"{what}: an unknown status")


def check_no_internal_failures(conn: sqlite3.Connection, report: Report) -> None:
    """A death of the process (any of the four) never fails a Turn as ``internal``: work
    in flight is settled for recovery (a write in flight becomes ``uncertain``)."""
    rows = conn.execute("SELECT id, error FROM turn WHERE status = 'failed'")
    for turn_id, error in rows:
        kind = json.loads(error).get("kind") if error else None
        if kind == "internal":
            report("internal_failure", f"turn {turn_id} failed as internal: {error}")


def check_writes(conn: sqlite3.Connection, ledger: Ledger, shim: Shim, report: Report) -> None:
    """No write call executed twice unless the user chose retry (and it was stored)."""
    receipts = {row[0] for row in conn.execute("SELECT command_id FROM command_receipt")}
    retries: dict[str, int] = {}
    for sent in ledger.sent:
        params = sent.params
        chosen = sent.method == "recovery.resolve" and params["outcome"] == "retry"
        if chosen and params["commandId"] in receipts:
            retries[params["toolCallId"]] = retries.get(params["toolCallId"], 0) + 1
    for call_id, count in shim.write_counts().items():
        item_id = _one(conn, "SELECT id FROM item WHERE call_id = ?", call_id)
        allowed = 1 + retries.get(item_id, 0)
        if count > allowed:
            report(
                "write_twice",
                f"write call {call_id} (item {item_id}) ran {count} times in the shim; "
                f"retries chosen: {allowed - 1}",
            )


# ---------------------------------------------------------------- usage and statistics


def check_usage(conn: sqlite3.Connection, report: Report) -> None:
    sums = ", ".join(f"coalesce(sum({c}), 0)" for c in TOKENS)
    cols = ", ".join(TOKENS)
    for thread_id, *stats in conn.execute(f"SELECT id, {cols}, turns FROM thread"):
        used = conn.execute(f"SELECT {sums} FROM usage WHERE thread_id = ?", (thread_id,))
        turns = _one(conn, "SELECT count(*) FROM turn WHERE thread_id = ?", thread_id)
        expected = [*used.fetchone(), turns]
        if list(stats) != expected:
            report("usage", f"thread {thread_id} stats {stats} != usage rows + turns {expected}")
    for turn_id, *stats in conn.execute(f"SELECT id, {cols} FROM turn"):
        used = conn.execute(f"SELECT {sums} FROM usage WHERE turn_id = ?", (turn_id,)).fetchone()
        if list(stats) != list(used):
            report("usage", f"turn {turn_id} usage {stats} != its usage rows {list(used)}")


# ---------------------------------------------------------------- steering


def check_steering_reached_model(conn: sqlite3.Connection, report: Report) -> None:
    """A completed Turn admitted all its steering, and its final answer saw each text."""
    for turn_id, answer in _completed_turns(conn):
        pending = conn.execute(
            "SELECT id FROM steering WHERE turn_id = ? AND state = 'pending'", (turn_id,)
        ).fetchall()
        for (steering_id,) in pending:
            report("steering", f"turn {turn_id} completed with steering {steering_id} pending")
        seen = _seen(answer)
        if seen is None:
            report("steering", f"turn {turn_id} completed without a directives answer: {answer!r}")
            continue
        for steering_id, text in conn.execute(
            "SELECT id, text FROM steering WHERE turn_id = ? AND state = 'admitted'", (turn_id,)
        ):
            if text not in seen:
                report("steering", f"steering {steering_id} never reached turn {turn_id}'s model")


def _completed_turns(conn: sqlite3.Connection) -> Iterator[tuple[str, str]]:
    rows = conn.execute(
        "SELECT turn.id, (SELECT text FROM item WHERE item.turn_id = turn.id "
        "AND kind = 'assistant' ORDER BY ord DESC LIMIT 1) FROM turn WHERE status = 'completed'"
    )
    for turn_id, answer in rows:
        yield turn_id, answer or ""


def _seen(answer: str) -> list[str] | None:
    """The steering texts a directives answer lists (None: not a directives answer)."""
    at = answer.find(STEERING_SEEN)
    if at < 0:
        return None
    try:
        seen = json.loads(answer[at + len(STEERING_SEEN) :])
    except json.JSONDecodeError:
        return None
    return [str(s) for s in seen] if isinstance(seen, list) else None
