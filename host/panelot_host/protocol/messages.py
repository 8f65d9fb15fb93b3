"""``decode_message`` with a one-pass fast path for the requests the host serves.

A well-formed op request is decoded in a single msgspec pass into a tagged union (tag:
``method``) whose members are ``OpCall`` structs holding the typed params; that struct is
returned as the message itself (a request, or a notification when it has no ``id``), and
``codec.decode_params`` returns its params as they are. Anything else (an unknown
method, invalid params, a response, a malformed envelope) goes through
``jsonrpc.decode_message``, which keeps params raw and names exactly what is wrong.
Both paths classify every payload the same way.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal, Union

import msgspec
from msgspec import UNSET, UnsetType

from panelot_host.errors import InvalidRequest
from panelot_host.protocol import jsonrpc
from panelot_host.protocol.jsonrpc import IncomingMessage, Notification, Request, RequestId
from panelot_host.protocol.nesting import MAX_DEPTH, nests_deeper_than, top_level_id
from panelot_host.protocol.registry import CONTROL_NOTIFICATIONS, OPS


class OpCall(msgspec.Struct, gc=False):
    """A request (or, without ``id``, a notification) the host serves, decoded in one
    pass: ``params`` is already the op's params struct. Each op has its own subclass,
    whose class attribute ``method`` is its tag."""

    method: ClassVar[str]
    jsonrpc: str
    params: Any
    id: RequestId | UnsetType = UNSET


def _call_type(method: str, params: type[msgspec.Struct]) -> type[OpCall]:
    call: type[OpCall] = msgspec.defstruct(  # type: ignore[assignment]
        f"Call_{method}",
        [
            ("jsonrpc", Literal["2.0"]),
            ("params", params),
            ("id", Union[RequestId, UnsetType], UNSET),  # noqa: UP007 (runtime union)
        ],
        bases=(OpCall,),
        tag_field="method",
        tag=method,
        namespace={"method": method},
        # any extra member sends the payload to the slow path, which judges it
        forbid_unknown_fields=True,
        module=__name__,
    )
    return call


class _FastPath:
    """The one-pass decoders: the tagged union over every op's ``OpCall``, built on first
    use (building it evaluates the annotations of every op's params, ~5 ms, which the
    host's first answer should not wait for), and one ``OpCall`` decoder per method for
    the payloads that arrive before it is built."""

    __slots__ = ("_calls", "_each", "decoder")

    def __init__(self) -> None:
        self.decoder: msgspec.json.Decoder[Any] | None = None
        self._calls: dict[str, type[OpCall]] = {}
        self._each: dict[str, msgspec.json.Decoder[Any]] = {}

    def build(self) -> msgspec.json.Decoder[Any]:
        if self.decoder is None:
            calls = tuple(self._call(method) for method in _ACCEPTED)
            self.decoder = msgspec.json.Decoder(Union[calls])  # noqa: UP007
        return self.decoder

    def one(self, method: str) -> msgspec.json.Decoder[Any] | None:
        """The ``OpCall`` decoder of ``method`` alone; None for a method the host does not
        accept."""
        decoder = self._each.get(method)
        if decoder is None and method in _ACCEPTED:
            decoder = self._each[method] = msgspec.json.Decoder(self._call(method))
        return decoder

    def _call(self, method: str) -> type[OpCall]:
        call = self._calls.get(method)
        if call is None:
            call = self._calls[method] = _call_type(method, _ACCEPTED[method])
        return call


_ACCEPTED: Final = {**{m: s.params for m, s in OPS.items()}, **CONTROL_NOTIFICATIONS}
_FAST_PATH: Final = _FastPath()


def build_fast_path() -> None:
    """Build the one-pass decoder now (the host does it after its first answer)."""
    _FAST_PATH.build()


def decode_message(data: bytes, *, build: bool = True) -> IncomingMessage | OpCall:
    """Classify one frame payload (see ``jsonrpc.decode_message``): an ``OpCall`` on the
    fast path, else a ``Request``, ``Notification``, ``Response`` or ``ErrorResponse``.

    Pass ``params`` to ``codec.decode_params`` either way (typed already on the fast path).
    With ``build=False``, until the one-pass decoder is built (``build_fast_path``), a
    payload is classified first and an op call then decoded with its method's decoder:
    two passes, the same results.

    Raises:
        ParseError: ``data`` is not UTF-8 or not JSON (-32700; ``request_id`` None).
        InvalidRequest: valid JSON but not a JSON-RPC 2.0 message (-32600), or nested
            deeper than ``nesting.MAX_DEPTH``; ``request_id`` is the message's id when it
            could be read, else None.
    """
    if nests_deeper_than(data):
        raise _too_deep(data)
    decoder = _FAST_PATH.decoder
    if decoder is None:
        if not build:
            return _decode_by_method(data)
        decoder = _FAST_PATH.build()
    try:
        # every member is fully typed, so msgspec checks the UTF-8 of every string
        call: OpCall = decoder.decode(data)
    except msgspec.DecodeError:
        return _decode_generic(data)
    except RecursionError:  # the stack was already deep: refuse rather than crash
        raise _too_deep(data) from None
    return call


def _decode_by_method(data: bytes) -> IncomingMessage | OpCall:
    message = _decode_generic(data)
    one = _FAST_PATH.one(message.method) if isinstance(message, Request | Notification) else None
    if one is None:
        return message
    try:
        call: OpCall = one.decode(data)
    except msgspec.DecodeError:
        return message
    except RecursionError:
        raise _too_deep(data) from None
    return call


def _decode_generic(data: bytes) -> IncomingMessage:
    try:
        return jsonrpc.decode_message(data)
    except RecursionError:
        raise _too_deep(data) from None


def _too_deep(data: bytes) -> InvalidRequest:
    return InvalidRequest(
        f"Invalid request: JSON nested deeper than {MAX_DEPTH} levels", top_level_id(data)
    )
