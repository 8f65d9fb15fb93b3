"""The JSON-RPC 2.0 envelope: message structs, error codes, and ``decode_message``.

``decode_message`` classifies one frame payload into a ``Request``, ``Notification``,
``Response`` or ``ErrorResponse``; params and results stay ``msgspec.Raw`` until the
method is known (``codec.decode_params``). No I/O.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Final, Literal, get_args

import msgspec

from panelot_host.errors import InvalidRequest, InvalidResponse, ParseError
from panelot_host.protocol.common import ErrorKind, ProtocolVersions

JSONRPC_VERSION: Final = "2.0"

# ---------------------------------------------------------------- error codes

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
REQUEST_CANCELLED: Final = -32800
"""Extension (as LSP): the answer to a request aborted by ``$/cancelRequest``."""

ERROR_CODES: Final = MappingProxyType(
    {
        # engine kinds (docs/protocol.md, "Errors"), -32000..-32099, stable
        "stale_turn": -32001,
        "not_initialized": -32002,
        "not_found": -32003,
        "invalid_state": -32004,
        "turn_active": -32005,
        "queue_full": -32006,
        "conflict": -32007,
        "thread_busy": -32008,
        "capability": -32009,
        "drift": -32010,
        "too_large": -32011,
        "provider": -32012,
        "tool": -32013,
        "storage": -32020,  # extension: a commit failed and was rolled back
        "context_overflow": -32014,  # the context does not fit the model (issue 17)
        # standard JSON-RPC codes under the kinds the error tree uses for them
        "parse_error": PARSE_ERROR,
        "invalid_request": INVALID_REQUEST,
        "method_not_found": METHOD_NOT_FOUND,
        "invalid_params": INVALID_PARAMS,
        "internal": INTERNAL_ERROR,
        "cancelled": REQUEST_CANCELLED,
    }
)
"""``data.kind`` -> JSON-RPC ``code``. Every error response carries ``data.kind``."""

ENGINE_ERROR_KINDS: Final[tuple[str, ...]] = tuple(
    kind for kind in get_args(ErrorKind) if kind != "internal"
)
"""The engine kinds of `docs/protocol.md`, "Errors" (``ErrorKind`` without ``internal``)."""


def code_for_kind(kind: str) -> int:
    """The JSON-RPC code of an error ``kind``; unknown kinds are internal errors (-32603)."""
    return ERROR_CODES.get(kind, INTERNAL_ERROR)


# ---------------------------------------------------------------- envelope structs

RequestId = int | str


class Request(msgspec.Struct, kw_only=True, gc=False):
    """``{"jsonrpc":"2.0","id":..,"method":..,"params":..}``. Decoded: ``params`` is a
    ``msgspec.Raw`` (empty when absent). Encoded: any struct, dict or ``Raw``."""

    jsonrpc: str = JSONRPC_VERSION
    id: RequestId
    method: str
    params: Any = msgspec.Raw()


class Notification(msgspec.Struct, kw_only=True, gc=False):
    """``{"jsonrpc":"2.0","method":..,"params":..}``: no id, no answer."""

    jsonrpc: str = JSONRPC_VERSION
    method: str
    params: Any = msgspec.Raw()


class Response(msgspec.Struct, kw_only=True):
    """A successful answer. Decoded: ``result`` is a ``msgspec.Raw``."""

    jsonrpc: str = JSONRPC_VERSION
    id: RequestId
    result: Any


class ErrorObject(msgspec.Struct, omit_defaults=True):
    """``{code, message, data?}``; the host always sends ``data.kind``."""

    code: int
    message: str
    data: Any = None


class ErrorResponse(msgspec.Struct, kw_only=True):
    """A failed answer; ``id`` is null when the request's id could not be read."""

    jsonrpc: str = JSONRPC_VERSION
    id: RequestId | None
    error: ErrorObject


IncomingMessage = Request | Notification | Response | ErrorResponse


class Violation(msgspec.Struct):
    """One entry of ``data.errors`` of an invalid-params error."""

    path: str
    """JSONPath-like, rooted at the member: ``$.params.attachments[0].mediaType``."""
    message: str


class ErrorData(msgspec.Struct, omit_defaults=True):
    """``error.data`` of every host error response; ``errors`` only for -32602."""

    kind: str
    errors: list[Violation] | None = None
    # extension: an ``initialize`` refused because the protocol versions do not meet
    protocol_versions: ProtocolVersions | None = msgspec.field(
        default=None, name="protocolVersions"
    )
    """The versions the host speaks."""
    host_version: str | None = msgspec.field(default=None, name="hostVersion")
    """The host's own version (``panelot_host.__version__``)."""
    update: Literal["host", "extension"] | None = None
    """The side that is older, so the one to update."""
    host_update_command: str | None = msgspec.field(default=None, name="hostUpdateCommand")
    """The command that upgrades the host the way it was installed."""


# ---------------------------------------------------------------- decoding


class _Envelope(msgspec.Struct):
    """Loose view of any JSON object: members typed ``Any`` so that one pass reads
    everything and the checks below can name exactly what is wrong."""

    jsonrpc: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    method: Any = msgspec.UNSET
    params: msgspec.Raw = msgspec.Raw()
    result: msgspec.Raw = msgspec.Raw()
    error: Any = msgspec.UNSET


_ENVELOPE_DECODER: Final = msgspec.json.Decoder(_Envelope)
_OBJECT_OR_ARRAY: Final = frozenset(b"{[")


def decode_message(data: bytes) -> IncomingMessage:
    """Classify one frame payload.

    Raises:
        ParseError: ``data`` is not UTF-8 or not JSON (-32700; ``request_id`` None).
        InvalidRequest: valid JSON but not a JSON-RPC 2.0 message (-32600);
            ``request_id`` is the message's id when it could be read, else None.
    """
    try:
        env = _ENVELOPE_DECODER.decode(data)
    except msgspec.ValidationError as exc:
        _require_utf8(data)
        raise InvalidRequest(_shape_message(str(exc))) from None
    except msgspec.DecodeError as exc:
        _require_utf8(data)
        raise ParseError(f"Parse error: invalid JSON ({exc})") from None
    if not data.isascii():
        # msgspec does not check UTF-8 inside values it only skips or keeps raw
        _require_utf8(data)
    return _classify(env)


def _require_utf8(data: bytes) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"Parse error: invalid UTF-8 at byte {exc.start}") from None


def _shape_message(detail: str) -> str:
    if detail.startswith("Expected `object`, got `"):
        got = detail.split("`")[3]
        return f"Invalid request: a message must be a JSON object, not {got}"
    return f"Invalid request: {detail}"


def _is_id(value: object) -> bool:
    return type(value) is int or type(value) is str


def _classify(env: _Envelope) -> IncomingMessage:
    rid = env.id
    readable: RequestId | None = rid if _is_id(rid) else None
    if env.jsonrpc != JSONRPC_VERSION:
        what = "missing" if env.jsonrpc is msgspec.UNSET else 'not the string "2.0"'
        raise InvalidRequest(f'Invalid request: "jsonrpc" is {what}', readable)
    if env.method is not msgspec.UNSET:
        return _classify_call(env, readable)
    has_result = len(env.result) > 0
    has_error = env.error is not msgspec.UNSET
    if has_result and has_error:
        raise InvalidResponse("Invalid response: it has both result and error", readable)
    if has_result:
        if readable is None:
            raise InvalidResponse("Invalid response: its id must be an integer or a string")
        return Response(id=readable, result=env.result)
    if has_error:
        if rid is msgspec.UNSET or (rid is not None and readable is None):
            raise InvalidResponse("Invalid response: an error response id must be int, str or null")
        return ErrorResponse(id=readable, error=_error_object(env.error, readable))
    raise InvalidRequest("Invalid request: no method, result or error", readable)


def _classify_call(env: _Envelope, readable: RequestId | None) -> Request | Notification:
    if not isinstance(env.method, str):
        raise InvalidRequest('Invalid request: "method" must be a string', readable)
    if len(env.result) > 0 or env.error is not msgspec.UNSET:
        raise InvalidRequest("Invalid request: a request has no result or error", readable)
    params = env.params
    if len(params) > 0 and memoryview(params)[0] not in _OBJECT_OR_ARRAY:
        raise InvalidRequest('Invalid request: "params" must be an object or an array', readable)
    if env.id is msgspec.UNSET:
        return Notification(method=env.method, params=params)
    if readable is None:
        raise InvalidRequest('Invalid request: "id" must be an integer or a string')
    return Request(id=readable, method=env.method, params=params)


def _error_object(error: Any, readable: RequestId | None) -> ErrorObject:
    if (
        not isinstance(error, dict)
        or type(error.get("code")) is not int
        or not isinstance(error.get("message"), str)
    ):
        raise InvalidResponse(
            'Invalid response: "error" must be an object with an integer code and a message',
            readable,
        )
    return ErrorObject(code=error["code"], message=error["message"], data=error.get("data"))
