"""Command receipts (`docs/protocol.md`, "Commands and receipts").

Every op that changes stored state carries a client-chosen ``commandId``. Its receipt (the
method, a digest of the params and the response sent) is written in the same transaction
as the domain change. A repeated identical command replays the stored response and changes
nothing; the same ``commandId`` with a different method or params is a ``Conflict`` and
changes nothing either.
"""

from __future__ import annotations

import sqlite3
import time

import msgspec

from panelot_host.errors import Conflict


class CommandContext(msgspec.Struct, frozen=True):
    """The receipt identity of one command; an engine/store notion, never on the wire."""

    command_id: str
    method: str
    params_digest: str


class Replay(Exception):
    """The command was already carried out; ``response`` is what was answered then."""

    def __init__(self, response: bytes) -> None:
        super().__init__("command already carried out")
        self.response = response


def params_digest(params: object) -> str:
    """sha256 of the params' canonical JSON (struct field order, sorted map keys)."""
    import hashlib  # commands only: not on the start-up path

    encoded = msgspec.json.encode(params, order="sorted")
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def command_context(command_id: str, method: str, params: object) -> CommandContext:
    return CommandContext(command_id, method, params_digest(params))


def check(conn: sqlite3.Connection, ctx: CommandContext) -> None:
    """Raise ``Replay`` if this command already ran identically, ``Conflict`` if differently.

    Call it inside the command's transaction, before any domain write.
    """
    row = conn.execute(
        "SELECT method, params_digest, response FROM command_receipt WHERE command_id = ?",
        (ctx.command_id,),
    ).fetchone()
    if row is None:
        return
    method, digest, response = row
    if method != ctx.method or digest != ctx.params_digest:
        raise Conflict(
            f"commandId {ctx.command_id!r} was already used for a different command "
            f"({method}); the first one stands and nothing was changed"
        )
    raise Replay(bytes(response))


def finish(conn: sqlite3.Connection, ctx: CommandContext, response: bytes) -> None:
    """Store the receipt; call it in the same transaction as the domain change."""
    conn.execute(
        "INSERT INTO command_receipt (command_id, method, params_digest, response, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (ctx.command_id, ctx.method, ctx.params_digest, response, int(time.time() * 1000)),
    )
