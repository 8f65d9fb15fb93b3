"""``initialize``'s checks and answer, shared by the server's handler (``routes``) and the
prelude that answers it before the event loop exists (``prelude``).

The client says the protocol versions it speaks (``protocolVersion``, the newest, and
``minProtocolVersion``, the oldest); the session speaks the newest version both sides
speak. When they share none, the refusal says which side is older and how to update it.
"""

from __future__ import annotations

from typing import Literal

import panelot_host
from panelot_host.errors import InvalidParams, UnsupportedProtocolVersion
from panelot_host.protocol import ops
from panelot_host.protocol.common import HOST_PROTOCOL_VERSIONS, ProtocolVersions

_VERSION_PATH = "$.params.protocolVersion"
_REFUSAL = "unsupported protocol version"  # the words every host has refused with


def negotiate(params: ops.InitializeParams, host: ProtocolVersions = HOST_PROTOCOL_VERSIONS) -> int:
    """The version the session speaks: the newest one both the client and ``host`` speak.

    Raises:
        InvalidParams: ``minProtocolVersion`` is above ``protocolVersion``.
        UnsupportedProtocolVersion: the two ranges do not meet.
    """
    client = params.spoken()
    if client.oldest > client.newest:
        raise InvalidParams(
            "Invalid params: 1 violation",
            [{"path": "$.params.minProtocolVersion", "message": "must be <= protocolVersion"}],
        )
    if client.newest < host.oldest:
        raise _refusal(host, client, "extension")
    if client.oldest > host.newest:
        raise _refusal(host, client, "host")
    return min(client.newest, host.newest)


def _refusal(
    host: ProtocolVersions, client: ProtocolVersions, update: Literal["host", "extension"]
) -> UnsupportedProtocolVersion:
    # lazy: a refusal is rare; every start answers initialize (upgrade_route loads shlex)
    from panelot_host.upgrade_route import upgrade_command

    command = upgrade_command()
    older = "this host is older than the client" if update == "host" else "the client is older"
    how = f": {command}" if update == "host" else ""
    return UnsupportedProtocolVersion(
        f"{_REFUSAL}: the client speaks {_span(client)}, this host "
        f"{panelot_host.__version__} speaks {_span(host)}; {older}, update the {update}{how}",
        [{"path": _VERSION_PATH, "message": speaks(host)}],
        oldest=host.oldest,
        newest=host.newest,
        host_version=panelot_host.__version__,
        update=update,
        host_update_command=command,
    )


def _span(versions: ProtocolVersions) -> str:
    if versions.oldest == versions.newest:
        return f"version {versions.newest}"
    return f"versions {versions.oldest} to {versions.newest}"


def speaks(host: ProtocolVersions) -> str:
    """The violation's words, as hosts before negotiation said them for version 1."""
    if host.oldest == host.newest:
        return f"this host speaks protocol version {host.newest}"
    return f"this host speaks protocol versions {host.oldest} to {host.newest}"


def browser_tools(params: ops.InitializeParams) -> tuple[str, ...]:
    """The browser tools the client offers to run."""
    return tuple(params.capabilities.browser_tools)


def initialize_result(version: int, tools: tuple[str, ...]) -> ops.InitializeResult:
    """The answer to a successful ``initialize`` speaking ``version``, offering ``tools``."""
    return ops.InitializeResult(
        protocol_version=version,
        engine=ops.EngineInfo(name="panelot-host", version=panelot_host.__version__),
        capabilities=ops.HostCapabilities(browser_tools=list(tools)),
        protocol_versions=HOST_PROTOCOL_VERSIONS,
    )
