"""Where the turn's content came from, against where a call delivers (issue 25).

A page can tell the model to carry what it read on one site into another: type it into a
form there, click a button there, load a page there. Such a call is never allowed by a
grant, rule or default given for its target site alone: the Gatekeeper asks, and the card
names the origins the turn read since the user's last message and the one the call
reaches ("this turn read content from a.example; this call types into b.example").

``read_from`` is gathered by the engine (``engine.page_reads.origins_read``); this module
only compares.
"""

from __future__ import annotations

from collections.abc import Sequence

from panelot_host.tools.calls import BoundCall
from panelot_host.tools.descriptor import BrowserBinding
from panelot_host.tools.target import Target

NO_ORIGIN = ("", "null")  # about:blank, data: and file: pages have an opaque origin


def foreign_sources(
    call: BoundCall, target: Target | None, read_from: Sequence[str]
) -> tuple[str, ...]:
    """The origins in ``read_from`` other than the one ``call`` delivers into; empty when
    the call delivers nothing or its target has no origin."""
    binding = call.tool.descriptor.binding
    if not isinstance(binding, BrowserBinding) or binding.delivers is None:
        return ()
    if target is None or target.origin in (None, *NO_ORIGIN):
        return ()
    return tuple(o for o in dict.fromkeys(read_from) if o not in (target.origin, *NO_ORIGIN))


def flow_sentence(call: BoundCall, target: Target | None, foreign: Sequence[str]) -> str:
    """The card's sentence: "this turn read content from a.example; this call types into
    b.example"."""
    binding = call.tool.descriptor.binding
    verb = binding.delivers if isinstance(binding, BrowserBinding) else None
    where = target.origin if target is not None and target.origin else "another place"
    return f"this turn read content from {_listed(foreign)}; this call {verb or 'acts on'} {where}"


def _listed(origins: Sequence[str]) -> str:
    if len(origins) <= 1:
        return "".join(origins)
    return ", ".join(origins[:-1]) + " and " + origins[-1]
