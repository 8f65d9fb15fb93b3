"""The wire contract of the Panelot host: ops, events, items and errors as msgspec
structs, the JSON-RPC envelope codec, and the JSON Schema generated from them.

No I/O, and nothing but msgspec, the stdlib and ``panelot_host.vocabulary`` (the domain's
Literals, which the store shares) at import time (jsonschema is loaded
only to report invalid params). Submodules:

- ``jsonrpc``: envelope structs, error codes, the generic ``decode_message``
- ``messages``: ``decode_message`` with a one-pass fast path for op requests
- ``common``, ``items``, ``entities``: shared types, items, threads/turns/runs/...
- ``frames``: a turn's timeline: frames captured around browser actions (extension)
- ``thread_export``: the thread export document ``thread.export`` writes and
  ``thread.import`` takes (extension); ``thread_export_schema``: its JSON Schema
- ``tabs``: a thread's tabs and its Chrome tab group (extension)
- ``workflows``: saved workflows, their steps' semantic targets, schedules and the export
  document (extension); ``workflow_schema``: that document's JSON Schema
- ``ops``: ``<Op>Params`` / ``<Op>Result`` of every op and host -> shim request
- ``events``: ``<Name>Event`` params of every notification
- ``registry``: ``OPS`` and ``SHIM_REQUESTS`` (each op declared once: method, params,
  result, command or not), ``EVENTS``, ``CONTROL_NOTIFICATIONS``
- ``codec``: ``decode_params``, ``decode_result``, ``decode_event``, ``encode_*``
- ``schema``: ``python -m panelot_host.protocol.schema [--write]``
- ``nesting``: the nesting limit checked before decoding (and the id of a too-deep request)
- ``validation``: invalid params and results reported with JSON paths
"""

from panelot_host.protocol.codec import (
    decode_event,
    decode_params,
    decode_result,
    decode_shim_params,
    encode,
    encode_error,
    encode_event,
    encode_notification,
    encode_request,
    encode_result,
)
from panelot_host.protocol.common import PROTOCOL_VERSION
from panelot_host.protocol.jsonrpc import (
    ERROR_CODES,
    ErrorObject,
    ErrorResponse,
    IncomingMessage,
    Notification,
    Request,
    RequestId,
    Response,
    code_for_kind,
)
from panelot_host.protocol.messages import OpCall, decode_message
from panelot_host.protocol.registry import (
    CONTROL_NOTIFICATIONS,
    EVENTS,
    OPS,
    SHIM_REQUESTS,
    OpSpec,
)

__all__ = [
    "CONTROL_NOTIFICATIONS",
    "ERROR_CODES",
    "EVENTS",
    "OPS",
    "PROTOCOL_VERSION",
    "SHIM_REQUESTS",
    "ErrorObject",
    "ErrorResponse",
    "IncomingMessage",
    "Notification",
    "OpCall",
    "OpSpec",
    "Request",
    "RequestId",
    "Response",
    "code_for_kind",
    "decode_event",
    "decode_message",
    "decode_params",
    "decode_result",
    "decode_shim_params",
    "encode",
    "encode_error",
    "encode_event",
    "encode_notification",
    "encode_request",
    "encode_result",
]
