"""The target of a tool call: the browser tab it acts on, reported by the shim."""

from __future__ import annotations

import msgspec


class Target(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """Where a tool call acts: a tab and its origin (``browser.resolveTarget``'s answer).

    L0 tools have no target. ``origin`` is what the Gatekeeper decides by; a change of
    origin between approval and dispatch makes it ask again.
    """

    tab_id: int | None = None
    url: str | None = None
    origin: str | None = None
    title: str | None = None
