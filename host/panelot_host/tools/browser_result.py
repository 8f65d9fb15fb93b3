"""Translate the shim's ``browser.invoke`` answer into a ``ToolResult``.

Page text is untrusted: it reaches the model only inside ``<untrusted-page-content>``
markers, and a page cannot forge a closing marker.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from panelot_host.tools.result import (
    ContentBlock,
    TextBlock,
    ToolResult,
    image_refs,
    plain_if_one_text,
)
from panelot_host.tools.target import Target

UNTRUSTED_OPEN = "<untrusted-page-content>"
UNTRUSTED_CLOSE = "</untrusted-page-content>"
_MARKER = re.compile(r"<(/?)(untrusted-page-content)", re.IGNORECASE)
_EMPTY = "(the browser returned no output)"


class ShimAnswer(msgspec.Struct, frozen=True, rename="camel"):
    """``browser.invoke``'s result: ``{content, details?, isError, target?}``."""

    content: str | list[ContentBlock]
    details: dict[str, Any] | None = None
    is_error: bool = False
    target: Target | None = None


def wrap_untrusted(text: str) -> str:
    """Delimit page text as data; markers inside the text are defused."""
    defused = _MARKER.sub(r"&lt;\1\2", text)
    return f"{UNTRUSTED_OPEN}\n{defused}\n{UNTRUSTED_CLOSE}"


def browser_result(tool: str, answer: dict[str, Any]) -> ToolResult:
    """The ``ToolResult`` for the shim's answer (a malformed answer is an error result).

    Text is wrapped as untrusted page content; images stay in ``content`` for the model
    and are referenced in ``details.images`` (by content index) for the panel, beside
    the shim's own details and the tab after the action (``details.target``).
    """
    try:
        parsed = msgspec.convert(answer, ShimAnswer)
    except msgspec.ValidationError as exc:
        return ToolResult(
            content=f"Tool `{tool}`: the browser returned a malformed answer ({exc}).",
            is_error=True,
        )
    blocks = _blocks(parsed.content)
    details = dict(parsed.details or {})
    images = image_refs(blocks)
    if images:
        details["images"] = images
    if parsed.target is not None:
        details["target"] = msgspec.to_builtins(parsed.target)
    content = plain_if_one_text(blocks)
    return ToolResult(content=content, details=details or None, is_error=parsed.is_error)


def _blocks(content: str | list[ContentBlock]) -> list[ContentBlock]:
    raw = [TextBlock(content)] if isinstance(content, str) else content
    blocks: list[ContentBlock] = [
        TextBlock(wrap_untrusted(b.text)) if isinstance(b, TextBlock) else b
        for b in raw
        if not (isinstance(b, TextBlock) and not b.text.strip())
    ]
    return blocks or [TextBlock(_EMPTY)]
