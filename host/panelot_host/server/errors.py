"""The one place where exceptions become JSON-RPC errors."""

from __future__ import annotations

import logging
from typing import Any

from panelot_host.errors import (
    InvalidParams,
    JsonRpcError,
    PanelotError,
    ProviderConfigError,
    StartupError,
    UnsupportedProtocolVersion,
)
from panelot_host.protocol import jsonrpc

log = logging.getLogger(__name__)


class RpcError(Exception):
    """A JSON-RPC error ready to send: ``code``, ``message`` and optional ``data``."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class ConnectionLost(RpcError):
    """The client went away before answering a request the host had sent it."""


def to_rpc_error(exc: BaseException) -> RpcError:
    """Map any exception raised while handling a request to the error the client sees.

    Deliberate engine errors keep their message and carry ``data.kind``; anything else is
    an internal error whose details stay in the log (they may hold paths or payloads).
    """
    match exc:
        case RpcError():
            return exc
        case UnsupportedProtocolVersion():
            return RpcError(jsonrpc.INVALID_PARAMS, exc.message, _version_refusal(exc))
        case InvalidParams():
            data = {"kind": "invalid_params", "errors": exc.errors}
            return RpcError(jsonrpc.INVALID_PARAMS, exc.message, data)
        case JsonRpcError():
            return RpcError(exc.code, exc.message, {"kind": exc.kind})
        case StartupError():
            # the profile store cannot be opened (held by another host, or too new): the
            # client may retry initialize later; the message says what to do
            return RpcError(
                jsonrpc.code_for_kind("invalid_state"), str(exc), {"kind": "invalid_state"}
            )
        case ProviderConfigError():
            # a client with a setup screen shows it (setup); the variables are for shells
            said: dict[str, Any] = {"kind": exc.kind}
            if exc.setup:
                said["setup"] = True
            if exc.shell_hint:
                said["shellHint"] = exc.shell_hint
            return RpcError(jsonrpc.code_for_kind(exc.kind), exc.message, said)
        case PanelotError():
            return RpcError(jsonrpc.code_for_kind(exc.kind), exc.message, {"kind": exc.kind})
        case _:
            log.exception("internal error while handling a request", exc_info=exc)
            return RpcError(
                jsonrpc.INTERNAL_ERROR,
                f"internal error ({type(exc).__name__}); see the host log",
                {"kind": "internal"},
            )


def _version_refusal(exc: UnsupportedProtocolVersion) -> dict[str, Any]:
    """``invalid_params`` data of a refused ``initialize``: the violation, as every host
    reported it, and what a client needs to say which side to update, and how."""
    return {
        "kind": "invalid_params",
        "errors": exc.errors,
        "protocolVersions": {"oldest": exc.oldest, "newest": exc.newest},
        "hostVersion": exc.host_version,
        "update": exc.update,
        "hostUpdateCommand": exc.host_update_command,
    }
