"""Requests the host sends to the shim (browser tools) and ``$/cancelRequest``."""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.protocol.common import ToolContent
from panelot_host.protocol.frames import CapturedFrame, FrameSkip
from panelot_host.protocol.tabs import ThreadTabs


class BrowserTarget(msgspec.Struct, rename="camel", kw_only=True):
    """A tab as the shim reports it. **extension** ``tabId`` is absent for a call that acts
    on no tab (``browser_downloads`` reading a file: ``url``/``origin`` are where it came
    from); ``frameId`` names the frame of the tab a ref lies in when it is not the top one
    (``origin`` is then that frame's own); ``element`` is the element a call's ref names,
    as the tab's latest snapshot showed it (``textbox "Email"``), for the approval card;
    ``active`` says the tab is the active tab of its window (the one the user sees), so a
    card can say "your active tab"."""

    tab_id: int | None = None
    url: str
    origin: str
    title: str = ""
    frame_id: int | None = None
    element: str | None = None
    active: bool | None = None


class BrowserResolveTargetParams(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Which tab would ``tool`` act on with ``args``? Asked before the gatekeeper decides
    and again right before dispatch. **extension** ``threadTabs`` are the calling thread's
    tabs: a call that names no tab acts on ``threadTabs.tabs[0]`` (else the active tab)."""

    tool: str
    args: dict[str, Any]
    thread_tabs: ThreadTabs | None = None


BrowserResolveTargetResult = BrowserTarget


class BrowserInvokeParams(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Run a browser tool. ``callId`` is the toolCall item's ``callId``; ``target`` is the
    tab the gatekeeper approved, when resolved. **extension** ``threadTabs`` as for
    ``browser.resolveTarget``; a tab the call opens joins them. **extension**
    ``threadId``/``turnId``: the Turn the call runs in, so that ``browser.detach`` of that
    Turn releases only what its calls hold (threads run Turns in parallel, each on its own
    tabs)."""

    call_id: str
    tool: str
    args: dict[str, Any]
    target: BrowserTarget | None = None
    thread_tabs: ThreadTabs | None = None
    thread_id: str | None = None
    turn_id: str | None = None
    capture: bool = False
    """**extension** (issue 30): capture frames of this call: one of the tab's viewport
    right after the action, and one before it when it is the Turn's first action on that
    tab. Set by the host on calls that act on a page, while ``captureFrames`` is on."""


class BrowserInvokeResult(msgspec.Struct, rename="camel", kw_only=True):
    """The tool's outcome; ``target`` reports the tab after the action. **extension**
    ``threadTabs``: the calling thread's tabs after the call (with a tab it opened, without
    one that was closed or taken out of the thread's group), for the host to keep."""

    content: ToolContent
    is_error: bool = False
    details: Any | None = None
    target: BrowserTarget | None = None
    thread_tabs: ThreadTabs | None = None
    frames: list[CapturedFrame] | None = None
    """**extension** (issue 30): the frames captured for a call with ``capture``; the host
    stores them with the tool call and never passes them to the model."""
    frame_skipped: FrameSkip | None = None
    """**extension**: why a call with ``capture`` has no frame."""


class BrowserThreadTabsParams(msgspec.Struct, rename="camel", kw_only=True):
    """**extension** ``browser.threadTabs``: find the thread's tabs in the browser (after a
    restart, by the group's title and colour and the tabs' URLs), put them in the thread's
    tab group (made or renamed as needed) and answer what was found. The host asks once
    per connection before a thread's first browser call, and when the user shares a tab."""

    thread_tabs: ThreadTabs


BrowserThreadTabsResult = ThreadTabs


class CancelRequestParams(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """``$/cancelRequest``: abort the request with this id (either direction)."""

    id: int | str
