"""Encoding and decoding of whole messages and of params, results and events.

The encoder is built once at import; each ``msgspec.json.Decoder`` (one per method) is
built on its method's first use and reused: building one evaluates its types'
annotations, which for every method at once would cost the host's start-up ~15 ms
(``warm_decoders`` builds them all ahead of traffic). The fast path is pure msgspec; only
a failed decode loads the jsonschema-based reporter (``panelot_host.protocol.validation``)
to list every violation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from panelot_host.errors import InvalidParams, InvalidResult, MethodNotFound
from panelot_host.protocol.jsonrpc import (
    ErrorObject,
    ErrorResponse,
    Request,
    RequestId,
    Response,
)
from panelot_host.protocol.messages import build_fast_path
from panelot_host.protocol.registry import (
    CONTROL_NOTIFICATIONS,
    EVENT_METHODS,
    EVENTS,
    OPS,
    SHIM_REQUESTS,
)

RawParams = bytes | bytearray | memoryview | msgspec.Raw | msgspec.Struct | None
"""Params as they came: ``Request.params``, a ``msgspec.Raw`` (empty when absent) or,
from ``decode_message``'s one-pass fast path, the already decoded params struct."""

_ENCODER: Final = msgspec.json.Encoder()
_EMPTY_OBJECT: Final = b"{}"


class _Decoders:
    """A method -> ``msgspec.json.Decoder`` table whose decoders are built on first use."""

    __slots__ = ("_built", "types")

    def __init__(self, types: Mapping[str, type[Any]]) -> None:
        self.types: Final = dict(types)  # plain dicts: faster to look up than a proxy
        self._built: dict[str, msgspec.json.Decoder[Any]] = {}

    def get(self, method: str) -> msgspec.json.Decoder[Any] | None:
        decoder = self._built.get(method)
        if decoder is None and method in self.types:
            decoder = self._built[method] = msgspec.json.Decoder(self.types[method])
        return decoder

    def build_all(self) -> None:
        for method in self.types:
            self.get(method)


_HOST_PARAMS: Final = _Decoders({**{m: s.params for m, s in OPS.items()}, **CONTROL_NOTIFICATIONS})
_HOST_PARAM_TYPES: Final = _HOST_PARAMS.types
_SHIM_PARAMS: Final = _Decoders(
    {**{m: s.params for m, s in SHIM_REQUESTS.items()}, **CONTROL_NOTIFICATIONS}
)
_RESULTS: Final = _Decoders({m: s.result for m, s in (*OPS.items(), *SHIM_REQUESTS.items())})
_EVENTS: Final = _Decoders(EVENTS)


def warm_decoders() -> None:
    """Build now every decoder the host uses (op params, shim results, the one-pass
    request decoder), so no request pays for its method's first use; clients' decoders
    are still built on first use."""
    _HOST_PARAMS.build_all()
    for method in SHIM_REQUESTS:
        _RESULTS.get(method)
    build_fast_path()


# ---------------------------------------------------------------- decoding


def decode_params(
    method: str, raw: RawParams, request_id: RequestId | None = None
) -> msgspec.Struct:
    """Decode the params of a request or notification the host accepts (an op or
    ``$/cancelRequest``) into its ``<Op>Params`` struct. Absent params mean ``{}``.

    Raises:
        MethodNotFound: ``method`` is not one the host serves (-32601; carries ``request_id``).
        InvalidParams: the params violate the op's schema; ``errors`` lists every
            violation as ``{"path": "$.params.field[0].sub", "message": ...}``.
    """
    if type(raw) is _HOST_PARAM_TYPES.get(method):  # decoded in one pass by decode_message
        return raw  # type: ignore[return-value]
    decoder = _HOST_PARAMS.get(method)
    if decoder is None:
        raise MethodNotFound(method, request_id)
    return _decode_params_with(decoder, raw)


def decode_shim_params(method: str, raw: RawParams) -> msgspec.Struct:
    """Like ``decode_params`` for what a shim accepts (``browser.*``, ``$/cancelRequest``).

    Raises:
        MethodNotFound: not a host -> shim method.
        InvalidParams: as ``decode_params``.
    """
    decoder = _SHIM_PARAMS.get(method)
    if decoder is None:
        raise MethodNotFound(method)
    return _decode_params_with(decoder, raw)


def decode_result(method: str, raw: RawParams) -> msgspec.Struct:
    """Decode the ``result`` of a response to ``method`` (an op or a host -> shim request).

    Raises:
        MethodNotFound: unknown method.
        InvalidResult: the result violates its schema; paths under ``$.result``.
    """
    decoder = _RESULTS.get(method)
    if decoder is None:
        raise MethodNotFound(method)
    data: Any = raw if raw else _EMPTY_OBJECT
    try:
        return decoder.decode(data)  # type: ignore[no-any-return]
    except msgspec.DecodeError as exc:
        errors = _violations(decoder.type, data, exc, "$.result")
        raise InvalidResult(f"Invalid result of {method}", errors) from None


def decode_event(method: str, raw: RawParams) -> msgspec.Struct:
    """Decode an event's params (client side) into its ``<Name>Event`` struct.

    Raises:
        MethodNotFound: not an event.
        InvalidParams: the params violate the event's schema.
    """
    decoder = _EVENTS.get(method)
    if decoder is None:
        raise MethodNotFound(method)
    return _decode_params_with(decoder, raw)


def _decode_params_with(decoder: msgspec.json.Decoder[Any], raw: RawParams) -> msgspec.Struct:
    data: Any = raw if raw else _EMPTY_OBJECT
    try:
        return decoder.decode(data)  # type: ignore[no-any-return]
    except msgspec.DecodeError as exc:
        errors = _violations(decoder.type, data, exc, "$.params")
        raise InvalidParams(_summary(errors), errors) from None


def _violations(tp: Any, data: Any, exc: msgspec.DecodeError, root: str) -> list[dict[str, str]]:
    # lazy: the violations are worked out only after a request failed to decode
    from panelot_host.protocol.validation import list_violations

    return list_violations(tp, bytes(data), exc, root)


def _summary(errors: list[dict[str, str]]) -> str:
    if len(errors) == 1:
        return f"Invalid params: {errors[0]['message']} at {errors[0]['path']}"
    return f"Invalid params: {len(errors)} violations"


# ---------------------------------------------------------------- encoding


def encode_request(id: RequestId, method: str, params: Any) -> bytes:
    """``{"jsonrpc":"2.0","id":..,"method":..,"params":..}`` as JSON bytes (no frame)."""
    return _ENCODER.encode(Request(id=id, method=method, params=params))


def notification_head(method: str) -> bytes:
    """``{"jsonrpc":"2.0","method":<method>,"params":``: a notification up to its params."""
    return b'{"jsonrpc":"2.0","method":' + _ENCODER.encode(method) + b',"params":'


# the envelope around params is constant per method: join bytes instead of encoding it
_HEADS: Final = {m: notification_head(m) for m in (*EVENTS, *CONTROL_NOTIFICATIONS)}
_EVENT_HEADS: Final = {cls: _HEADS[m] for cls, m in EVENT_METHODS.items()}
_TAIL: Final = b"}"
NOTIFICATION_TAIL: Final = _TAIL
"""What closes a notification after its params."""


def notification_heads() -> dict[str, bytes]:
    """``notification_head`` of every event and control notification, built once (the
    caller must not change it)."""
    return _HEADS


def encode_notification(method: str, params: Any) -> bytes:
    """``{"jsonrpc":"2.0","method":..,"params":..}`` as JSON bytes (no frame)."""
    head = _HEADS.get(method) or notification_head(method)
    return b"".join((head, _ENCODER.encode(params), _TAIL))


def encode_event(params: msgspec.Struct) -> bytes:
    """Encode an event notification, taking the method from the params' type.

    Raises:
        KeyError: ``params`` is not one of the event structs of ``registry.EVENTS``.
    """
    return b"".join((_EVENT_HEADS[type(params)], _ENCODER.encode(params), _TAIL))


def encode_result(id: RequestId, result: Any) -> bytes:
    """``{"jsonrpc":"2.0","id":..,"result":..}`` as JSON bytes."""
    return _ENCODER.encode(Response(id=id, result=result))


def encode_error(id: RequestId | None, code: int, message: str, data: Any = None) -> bytes:
    """``{"jsonrpc":"2.0","id":..,"error":{"code","message","data"?}}`` as JSON bytes;
    ``data`` is omitted when None."""
    return _ENCODER.encode(ErrorResponse(id=id, error=ErrorObject(code, message, data)))


def encode(value: Any) -> bytes:
    """Encode any protocol struct (or envelope) with the shared encoder."""
    return _ENCODER.encode(value)
