"""The target of a tool call: the browser tab it acts on, reported by the shim."""

from __future__ import annotations

import msgspec


class Target(msgspec.Struct, frozen=True, kw_only=True, rename="camel", omit_defaults=True):
    """Where a tool call acts: a tab and its origin (``browser.resolveTarget``'s answer).

    L0 tools have no target. ``origin`` is what the Gatekeeper decides by; a change of
    origin between approval and dispatch makes it ask again. For a call that loads a URL
    (a navigation), ``url``/``origin`` are its destination and ``current_url``/
    ``current_origin`` where the tab is now (``gatekeeper.destination``). ``frame_id``
    names the frame a ref lies in when it is not the tab's top frame: ``origin`` is then
    that frame's own, so a frame of another site is decided for that site. A call that
    acts on no tab (reading a download) has no ``tab_id``. ``active``: the tab is the one
    the user sees in its window.
    """

    tab_id: int | None = None
    url: str | None = None
    origin: str | None = None
    title: str | None = None
    current_url: str | None = None
    current_origin: str | None = None
    frame_id: int | None = None
    element: str | None = None  # the element a ref names, as the snapshot showed it
    active: bool | None = None  # the tab is the active one of its window (the user's view)
