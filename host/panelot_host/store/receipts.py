"""Command receipts (`docs/protocol.md`, "Commands and receipts").

Every op that changes stored state carries a client-chosen ``commandId``. Its receipt (the
method, a digest of the params and the response sent) is written in the same transaction
as the domain change. A repeated identical command replays the stored response and changes
nothing; the same ``commandId`` with a different method or params is a ``Conflict`` and
changes nothing either.

Receipts outlive upgrades. A later release may add a param (always with a default), so the
digest leaves out every field at its default: a command that does not use the new field
keeps its digest. Receipts stored before this rule (the params encoded whole, with only
the fields their release knew) still match the same command: ``check`` also tries the
digests of the params with some of their default fields left out.
"""

from __future__ import annotations

import itertools
import sqlite3
import time
from typing import Any

import msgspec

from panelot_host.errors import Conflict

# a params struct has a handful of optional fields; past this many, no older form is tried
_MAX_LEGACY_FIELDS = 10


class CommandContext(msgspec.Struct, frozen=True):
    """The receipt identity of one command; an engine/store notion, never on the wire.
    ``params``: what the digest covers, for matching a receipt of an older release."""

    command_id: str
    method: str
    params_digest: str
    params: object = None


class Replay(Exception):
    """The command was already carried out; ``response`` is what was answered then."""

    def __init__(self, response: bytes) -> None:
        super().__init__("command already carried out")
        self.response = response


def params_digest(params: object) -> str:
    """sha256 of the params' canonical JSON: sorted keys, a struct's fields at their
    default left out."""
    builtins = msgspec.to_builtins(params)
    if isinstance(builtins, dict):
        builtins = {k: v for k, v in builtins.items() if k not in _default_fields(params)}
    return _sha256(builtins)


def _sha256(builtins: Any) -> str:
    import hashlib  # commands only: not on the start-up path

    encoded = msgspec.json.encode(builtins, order="sorted")
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def _default_fields(params: object) -> list[str]:
    """The wire names of the struct's fields that hold their default value."""
    if not isinstance(params, msgspec.Struct):
        return []
    names = []
    for field in msgspec.structs.fields(params):
        if field.default is not msgspec.NODEFAULT:
            default = field.default
        elif field.default_factory is not msgspec.NODEFAULT:
            default = field.default_factory()
        else:
            continue
        if getattr(params, field.name) == default:
            names.append(field.encode_name)
    return names


def _older_digest_matches(digest: str, params: object) -> bool:
    """Whether ``digest`` is these params as an older release digested them: encoded
    whole, without the fields it did not know yet (which can only be at their default)."""
    builtins = msgspec.to_builtins(params)
    defaults = _default_fields(params)
    if not isinstance(builtins, dict) or len(defaults) > _MAX_LEGACY_FIELDS:
        return False
    for size in range(len(defaults)):
        for left_out in itertools.combinations(defaults, size):
            if _sha256({k: v for k, v in builtins.items() if k not in left_out}) == digest:
                return True
    return False


def command_context(command_id: str, method: str, params: object) -> CommandContext:
    return CommandContext(command_id, method, params_digest(params), params)


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
    same = digest == ctx.params_digest or _older_digest_matches(digest, ctx.params)
    if method != ctx.method or not same:
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
