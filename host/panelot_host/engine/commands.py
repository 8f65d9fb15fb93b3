"""A domain change and its receipt in one transaction (`docs/engine.md`, "Command
transaction units")."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import msgspec

from panelot_host.store import receipts
from panelot_host.store.db import Database
from panelot_host.store.receipts import CommandContext, Replay

_encode = msgspec.json.Encoder().encode

__all__ = ["CommandUnit", "Replay", "command_unit"]


class CommandUnit:
    """The open transaction of one command; ``respond`` fixes the answer stored as receipt."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.response: bytes | None = None

    def respond(self, result: object) -> bytes:
        self.response = _encode(result)
        return self.response


@contextmanager
def command_unit(db: Database, ctx: CommandContext | None) -> Iterator[CommandUnit]:
    """Run a command's domain change; store its receipt in the same transaction.

    Raises ``Replay`` (nothing written) when the identical command already ran, and
    ``Conflict`` when the commandId was used for a different command. With ``ctx`` None
    (an op without commandId) it is a plain transaction.
    """
    with db.transaction() as conn:
        if ctx is not None:
            receipts.check(conn, ctx)
        unit = CommandUnit(conn)
        yield unit
        if ctx is not None:
            if unit.response is None:
                raise RuntimeError(f"command {ctx.method} finished without a response")
            receipts.finish(conn, ctx, unit.response)
