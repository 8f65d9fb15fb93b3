"""Translate the shim's ``browser.invoke`` answer into a ``ToolResult``.

Page text is untrusted: it reaches the model only inside ``<untrusted-page-content>``
markers, and a page cannot forge a closing marker.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import msgspec

from panelot_host.protocol.frames import CapturedFrame, FrameSkip
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

log = logging.getLogger(__name__)


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
    Its ``frames`` and ``frameSkipped`` (issue 30) go to the result's own fields, never
    into ``content`` or ``details``; a frame that is not a valid ``CapturedFrame`` is left
    out (logged), the result kept.
    """
    answer = dict(answer)
    sent = answer.pop("frames", None)
    frames = _frames(tool, sent)
    skipped = _skipped(tool, answer.pop("frameSkipped", None))
    if sent and not frames and skipped is None:
        skipped = "failed"  # frames came, and none of them was one
    try:
        parsed = msgspec.convert(answer, ShimAnswer)
    except msgspec.ValidationError as exc:
        return ToolResult(
            content=f"Tool `{tool}`: the browser returned a malformed answer ({exc}).",
            is_error=True,
            frames=frames,
            frame_skipped=skipped,
        )
    blocks = _blocks(parsed.content)
    details = dict(parsed.details or {})
    images = image_refs(blocks)
    if images:
        details["images"] = images
    if parsed.target is not None:
        details["target"] = msgspec.to_builtins(parsed.target)
    content = plain_if_one_text(blocks)
    return ToolResult(
        content=content,
        details=details or None,
        is_error=parsed.is_error,
        frames=frames,
        frame_skipped=skipped,
    )


def _frames(tool: str, raw: Any) -> list[CapturedFrame]:
    """The valid frames of ``raw`` (the answer's ``frames``), in order."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        log.warning("%s: the browser's frames are not a list; none kept", tool)
        return []
    frames = []
    for index, frame in enumerate(raw):
        try:
            frames.append(msgspec.convert(frame, CapturedFrame))
        except msgspec.ValidationError as exc:
            log.warning("%s: frame %d dropped: %s", tool, index, exc)
    return frames


def _skipped(tool: str, raw: Any) -> FrameSkip | None:
    if raw is None:
        return None
    try:
        skipped: FrameSkip = msgspec.convert(raw, FrameSkip)
    except msgspec.ValidationError:
        log.warning("%s: unknown frameSkipped %r: taken as failed", tool, raw)
        return "failed"
    return skipped


def _blocks(content: str | list[ContentBlock]) -> list[ContentBlock]:
    raw = [TextBlock(content)] if isinstance(content, str) else content
    blocks: list[ContentBlock] = [
        TextBlock(wrap_untrusted(b.text)) if isinstance(b, TextBlock) else b
        for b in raw
        if not (isinstance(b, TextBlock) and not b.text.strip())
    ]
    return blocks or [TextBlock(_EMPTY)]
