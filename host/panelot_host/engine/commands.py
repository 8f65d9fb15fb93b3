"""A domain change and its receipt in one transaction (`docs/engine.md`, "Command
transaction units")."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import msgspec

from panelot_host.store import receipts
from panelot_host.store.db import Database
from panelot_host.store.receipts import CommandContext, Replay

_encode = msgspec.json.Encoder().encode
R = TypeVar("R")

__all__ = ["CommandUnit", "Receipt", "Replay", "command_unit"]


class Receipt:
    """One command as the engine sees it: its receipt identity and, once its transaction
    has committed, the response stored with it. That is what the server answers with, so
    a response is encoded once, and a repeated command (``Replay``) answers the same bytes.
    """

    __slots__ = ("identity", "response")

    def __init__(self, identity: CommandContext) -> None:
        self.identity = identity
        self.response: bytes | None = None

    @property
    def command_id(self) -> str:
        return self.identity.command_id


class CommandUnit:
    """The open transaction of one command; ``respond`` fixes the answer stored as receipt."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.response: bytes | None = None

    def respond(self, result: R) -> R:
        """Encode ``result`` as the command's response (stored with its receipt); returns it."""
        self.response = _encode(result)
        return result


@contextmanager
def command_unit(db: Database, receipt: Receipt | None) -> Iterator[CommandUnit]:
    """Run a command's domain change; store its receipt in the same transaction. After the
    commit, ``receipt.response`` holds the stored response.

    Raises ``Replay`` (nothing written) when the identical command already ran, and
    ``Conflict`` when the commandId was used for a different command. With ``receipt`` None
    (an op without commandId) it is a plain transaction.
    """
    with db.transaction() as conn:
        if receipt is not None:
            receipts.check(conn, receipt.identity)
        unit = CommandUnit(conn)
        yield unit
        if receipt is not None:
            if unit.response is None:
                raise RuntimeError(f"command {receipt.identity.method} finished without a response")
            receipts.finish(conn, receipt.identity, unit.response)
    if receipt is not None:
        receipt.response = unit.response
