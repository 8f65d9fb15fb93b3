"""Base classes of op params and results, and ``OpSpec``: an op's declaration.

``protocol.registry`` declares every op once with ``command(...)`` or ``request(...)``;
the codec, the JSON Schema and the server's routing are derived from that table
(`docs/protocol.md`, "Adding an op").
"""

from __future__ import annotations

import msgspec


class Params(msgspec.Struct, rename="camel", forbid_unknown_fields=True, kw_only=True):
    """Base of inbound params: camelCase on the wire, unknown fields rejected."""


class Result(msgspec.Struct, rename="camel", kw_only=True):
    """Base of results: camelCase on the wire."""


class EmptyResult(Result, kw_only=True):
    """``{}``: the op's effect is its acknowledgement."""


class OpSpec(msgspec.Struct, frozen=True):
    """What the codec, the schema and the server need to know about a method.

    ``command``: the op changes stored state and carries ``commandId`` (receipts).
    ``before_initialize``: allowed before ``initialize`` (only ``initialize`` itself).
    ``names_thread``: the params have ``threadId`` (the op subscribes the connection).
    """

    method: str
    params: type[msgspec.Struct]
    result: type[msgspec.Struct]
    command: bool = False
    before_initialize: bool = False
    names_thread: bool = False


def command(method: str, params: type[msgspec.Struct], result: type[msgspec.Struct]) -> OpSpec:
    """Declare an op that changes stored state; its params must carry ``command_id``.

    Raises:
        TypeError: ``params`` has no ``command_id`` (checked at import).
    """
    return _spec(method, params, result, command=True)


def request(
    method: str,
    params: type[msgspec.Struct],
    result: type[msgspec.Struct],
    *,
    before_initialize: bool = False,
) -> OpSpec:
    """Declare an op that is not a command (a read, ``turn.interrupt``, a shim request).

    Raises:
        TypeError: ``params`` has a ``command_id`` (checked at import).
    """
    return _spec(method, params, result, command=False, before_initialize=before_initialize)


def _spec(
    method: str,
    params: type[msgspec.Struct],
    result: type[msgspec.Struct],
    *,
    command: bool,
    before_initialize: bool = False,
) -> OpSpec:
    fields = params.__struct_fields__
    if command != ("command_id" in fields):
        kind = "a command's" if command else "a request's (not a command)"
        raise TypeError(f"{method}: {kind} params {params.__name__} and commandId disagree")
    return OpSpec(
        method=method,
        params=params,
        result=result,
        command=command,
        before_initialize=before_initialize,
        names_thread="thread_id" in fields,
    )
