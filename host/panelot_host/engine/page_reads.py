"""What a Turn read through its tools: the text of its settled tool results, which a
navigation's URL must not carry away unasked (``gatekeeper.carried``), and the origins that
text came from since the user's last message, whose content a call must not deliver into
another origin unasked (``gatekeeper.provenance``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from panelot_host.gatekeeper.carried import carried_text
from panelot_host.store import items
from panelot_host.store.records import ItemRecord
from panelot_host.tools.calls import BoundCall
from panelot_host.tools.descriptor import BrowserBinding
from panelot_host.tools.target import Target

WEB_SCHEMES = ("http://", "https://")


def turn_result_texts(conn: sqlite3.Connection, thread_id: str, turn_id: str) -> Iterator[str]:
    """The text blocks of the Turn's tool results, in order."""
    for item in items.of_turn(conn, thread_id, turn_id):
        if item.kind != "toolCall" or not item.result:
            continue
        content = item.result.get("content")
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and isinstance(block.get("text"), str):
                    yield block["text"]


def carried_by(
    conn: sqlite3.Connection,
    call: BoundCall,
    target: Target | None,
    *,
    thread_id: str,
    turn_id: str,
) -> tuple[str, ...]:
    """Text the Turn read that ``call`` would carry in the URL it loads (empty for a call
    that loads no URL)."""
    binding = call.tool.descriptor.binding
    if not isinstance(binding, BrowserBinding) or binding.destination is None:
        return ()
    if target is None or target.url is None or target.current_origin is None:
        return ()
    return carried_text(target.url, turn_result_texts(conn, thread_id, turn_id))


def origins_read(conn: sqlite3.Connection, thread_id: str, turn_id: str) -> tuple[str, ...]:
    """The origins whose page content entered the Turn's context since the user last spoke
    (its message, or a steering message during the Turn), in the order first read."""
    seen: dict[str, None] = {}
    for item in items.of_turn(conn, thread_id, turn_id):
        if item.kind in ("user", "steering"):
            seen.clear()
        elif item.kind == "toolCall":
            seen.update(dict.fromkeys(_content_origins(item)))
    return tuple(seen)


def _content_origins(call: ItemRecord) -> Iterator[str]:
    """Where a settled call's result came from: the tab it ran on, the tab after it (a
    click that left the origin says where it landed), and each tab a tab list names."""
    result = call.result
    if not result or result.get("denied"):
        return
    yield from _origin(call.call_extra.target)
    details = result.get("details")
    if not isinstance(details, dict):
        return
    yield from _origin(details.get("target"))
    cross = details.get("crossOrigin")
    if isinstance(cross, dict):
        yield from _origin({"origin": cross.get("to")})
    tabs = details.get("tabs")
    if isinstance(tabs, list):
        for tab in tabs:
            yield from _origin(tab)


def _origin(target: Any) -> Iterator[str]:
    """A tab's origin when it is a web page's (the browser's and Panelot's own pages, and
    opaque origins, are no site's content)."""
    origin = target.get("origin") if isinstance(target, dict) else None
    if isinstance(origin, str) and origin.startswith(WEB_SCHEMES):
        yield origin
