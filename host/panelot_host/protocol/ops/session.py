"""``initialize``: the first request of every connection."""

from __future__ import annotations

from functools import partial
from typing import Annotated

import msgspec
from msgspec import Meta

from panelot_host.protocol.common import HOST_PROTOCOL_VERSIONS, ProtocolVersions
from panelot_host.protocol.ops._base import Params, Result

ProfileId = Annotated[
    str,
    Meta(
        pattern=r"^[A-Za-z0-9_-]{1,64}$",  # the store's folder-name rule: one limit
        description="The Chrome profile's random id; selects PANELOT_HOME/profiles/<profileId>/",
    ),
]


class ClientInfo(Params, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=200)]
    version: Annotated[str, Meta(max_length=200)]
    profile_id: ProfileId | None = None


class ClientCapabilities(Params, kw_only=True):
    browser_tools: list[str] = []
    """The browser tools this client can run when the host sends ``browser.invoke``."""


class InitializeParams(Params, kw_only=True):
    protocol_version: Annotated[int, Meta(ge=1)]
    """The newest protocol version the client speaks."""
    min_protocol_version: Annotated[int, Meta(ge=1)] | None = None
    """Extension: the oldest it speaks (absent: ``protocol_version``, a range of one). A host
    from before negotiation refuses this field as unknown: send it only for a wider range."""
    client: ClientInfo
    capabilities: ClientCapabilities = msgspec.field(default_factory=ClientCapabilities)

    def spoken(self) -> ProtocolVersions:
        """The client's versions, oldest to newest (as sent: oldest may exceed newest)."""
        oldest = self.min_protocol_version
        return ProtocolVersions(
            oldest=self.protocol_version if oldest is None else oldest,
            newest=self.protocol_version,
        )


def version_params(spoken: ProtocolVersions = HOST_PROTOCOL_VERSIONS) -> dict[str, int]:
    """``initialize``'s version params for a client speaking ``spoken``:
    ``minProtocolVersion`` only for a range wider than one version (hosts from before
    negotiation refuse the field as unknown)."""
    params = {"protocolVersion": spoken.newest}
    if spoken.oldest != spoken.newest:
        params["minProtocolVersion"] = spoken.oldest
    return params


class EngineInfo(Result, kw_only=True):
    name: str
    version: str


class HostCapabilities(Result, kw_only=True):
    browser_tools: list[str] = []
    """Extension: the browser tools the host will offer models (known to the host and
    listed by the client)."""


class InitializeResult(Result, kw_only=True):
    protocol_version: int
    """The version this session speaks: the newest both sides speak."""
    engine: EngineInfo
    capabilities: HostCapabilities = msgspec.field(default_factory=HostCapabilities)
    protocol_versions: ProtocolVersions = msgspec.field(
        default_factory=partial(ProtocolVersions, oldest=1, newest=1)  # a repr without an address
    )
    """Extension: the versions the host speaks (a host from before negotiation leaves it
    out, and speaks version 1 only)."""
