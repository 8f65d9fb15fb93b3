"""``decode_message`` with a one-pass fast path for the requests the host serves.

A well-formed op request is decoded in a single msgspec pass into a tagged union (tag:
``method``) whose members hold the typed params; its ``Request.params`` is then the
params struct itself, which ``codec.decode_params`` returns as is. Anything else (an
unknown method, invalid params, a response, a malformed envelope) goes through
``jsonrpc.decode_message``, which keeps params raw and names exactly what is wrong.
Both paths classify every payload the same way.
"""

from __future__ import annotations

from typing import Any, Final, Literal, Union

import msgspec
from msgspec import UNSET, UnsetType

from panelot_host.protocol import jsonrpc
from panelot_host.protocol.jsonrpc import IncomingMessage, Notification, Request, RequestId
from panelot_host.protocol.registry import CONTROL_NOTIFICATIONS, OPS


def _call_type(method: str, params: type[msgspec.Struct]) -> type[msgspec.Struct]:
    return msgspec.defstruct(
        f"Call_{method}",
        [
            ("jsonrpc", Literal["2.0"]),
            ("params", params),
            ("id", Union[RequestId, UnsetType], UNSET),  # noqa: UP007 (runtime union)
        ],
        tag_field="method",
        tag=method,
        # any extra member sends the payload to the slow path, which judges it
        forbid_unknown_fields=True,
        module=__name__,
    )


_CALL_METHODS: Final = {
    _call_type(m, t): m
    for m, t in {**{m: s.params for m, s in OPS.items()}, **CONTROL_NOTIFICATIONS}.items()
}
_CALLS: Final[msgspec.json.Decoder[Any]] = msgspec.json.Decoder(Union[tuple(_CALL_METHODS)])  # noqa: UP007


def decode_message(data: bytes) -> IncomingMessage:
    """Classify one frame payload (see ``jsonrpc.decode_message``).

    On the fast path ``Request.params`` / ``Notification.params`` is already the op's
    params struct; pass it to ``codec.decode_params`` either way.

    Raises:
        ParseError: ``data`` is not UTF-8 or not JSON (-32700; ``request_id`` None).
        InvalidRequest: valid JSON but not a JSON-RPC 2.0 message (-32600);
            ``request_id`` is the message's id when it could be read, else None.
    """
    try:
        # every member is fully typed, so msgspec checks the UTF-8 of every string
        call: Any = _CALLS.decode(data)
    except msgspec.DecodeError:
        return jsonrpc.decode_message(data)
    method = _CALL_METHODS[type(call)]
    if call.id is UNSET:
        return Notification(method=method, params=call.params)
    return Request(id=call.id, method=method, params=call.params)
