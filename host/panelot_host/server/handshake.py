"""``initialize``'s checks and answer, shared by the server's handler (``routes``) and the
prelude that answers it before the event loop exists (``prelude``)."""

from __future__ import annotations

import panelot_host
from panelot_host.errors import InvalidParams
from panelot_host.protocol import ops
from panelot_host.protocol.common import PROTOCOL_VERSION


def check_protocol_version(params: ops.InitializeParams) -> None:
    """Raises ``InvalidParams`` when the client speaks another protocol version."""
    if params.protocol_version != PROTOCOL_VERSION:
        raise InvalidParams(
            "unsupported protocol version",
            [
                {
                    "path": "$.params.protocolVersion",
                    "message": f"this host speaks protocol version {PROTOCOL_VERSION}",
                }
            ],
        )


def browser_tools(params: ops.InitializeParams) -> tuple[str, ...]:
    """The browser tools the client offers to run."""
    return tuple(params.capabilities.browser_tools)


def initialize_result(tools: tuple[str, ...]) -> ops.InitializeResult:
    """The answer to a successful ``initialize`` offering ``tools``."""
    return ops.InitializeResult(
        protocol_version=PROTOCOL_VERSION,
        engine=ops.EngineInfo(name="panelot-host", version=panelot_host.__version__),
        capabilities=ops.HostCapabilities(browser_tools=list(tools)),
    )
