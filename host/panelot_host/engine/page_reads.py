"""What a Turn read through its tools: the text of its settled tool results, which a
navigation's URL must not carry away unasked (``gatekeeper.carried``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from panelot_host.gatekeeper.carried import carried_text
from panelot_host.store import items
from panelot_host.tools.calls import BoundCall
from panelot_host.tools.descriptor import BrowserBinding
from panelot_host.tools.target import Target


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
