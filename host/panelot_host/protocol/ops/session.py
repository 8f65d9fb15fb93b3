"""``initialize``: the first request of every connection."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

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
    client: ClientInfo
    capabilities: ClientCapabilities = msgspec.field(default_factory=ClientCapabilities)


class EngineInfo(Result, kw_only=True):
    name: str
    version: str


class HostCapabilities(Result, kw_only=True):
    browser_tools: list[str] = []
    """Extension: the browser tools the host will offer models (known to the host and
    listed by the client)."""


class InitializeResult(Result, kw_only=True):
    protocol_version: int
    engine: EngineInfo
    capabilities: HostCapabilities = msgspec.field(default_factory=HostCapabilities)
