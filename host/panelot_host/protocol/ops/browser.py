"""Requests the host sends to the shim (browser tools) and ``$/cancelRequest``."""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.protocol.common import ToolContent


class BrowserTarget(msgspec.Struct, rename="camel", kw_only=True):
    """A tab as the shim reports it. **extension** ``tabId`` is absent for a call that acts
    on no tab (``browser_downloads`` reading a file: ``url``/``origin`` are where it came
    from); ``frameId`` names the frame of the tab a ref lies in when it is not the top one
    (``origin`` is then that frame's own); ``element`` is the element a call's ref names,
    as the tab's latest snapshot showed it (``textbox "Email"``), for the approval card."""

    tab_id: int | None = None
    url: str
    origin: str
    title: str = ""
    frame_id: int | None = None
    element: str | None = None


class BrowserResolveTargetParams(msgspec.Struct, rename="camel", kw_only=True):
    """Which tab would ``tool`` act on with ``args``? Asked before the gatekeeper decides
    and again right before dispatch."""

    tool: str
    args: dict[str, Any]


BrowserResolveTargetResult = BrowserTarget


class BrowserInvokeParams(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Run a browser tool. ``callId`` is the toolCall item's ``callId``; ``target`` is the
    tab the gatekeeper approved, when resolved."""

    call_id: str
    tool: str
    args: dict[str, Any]
    target: BrowserTarget | None = None


class BrowserInvokeResult(msgspec.Struct, rename="camel", kw_only=True):
    """The tool's outcome; ``target`` reports the tab after the action."""

    content: ToolContent
    is_error: bool = False
    details: Any | None = None
    target: BrowserTarget | None = None


class CancelRequestParams(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """``$/cancelRequest``: abort the request with this id (either direction)."""

    id: int | str
