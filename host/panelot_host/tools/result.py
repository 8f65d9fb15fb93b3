"""``ToolResult``: what a tool gives back, split into model-facing content and UI details."""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.protocol.frames import CapturedFrame, FrameSkip
from panelot_host.providers.types import ImagePart, TextPart


class TextBlock(msgspec.Struct, tag="text", tag_field="type", frozen=True):
    text: str


class ImageBlock(msgspec.Struct, tag="image", tag_field="type", frozen=True, rename="camel"):
    media_type: str
    data: str  # base64


ContentBlock = TextBlock | ImageBlock


class ToolResult(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The outcome of one tool call (protocol: ``result {content, details, isError}``).

    ``content`` is concise model-facing text, a string or a list of text/image blocks.
    ``details`` is for the UI only (screenshots, snapshot diffs, coordinates): the model
    never sees it, so a conclusion the model needs must be in ``content`` — which is
    therefore required to be non-empty. ``denied`` marks a user or policy denial: it is
    an error for the model but not a tool failure, so the failure streak ignores it.
    ``frames`` (issue 30): the screenshots the browser captured around the action, or
    why it has none (``frame_skipped``): the engine stores them beside the result, never
    in it, and no model sees them.

    Raises:
        ValueError: ``content`` is empty, or ``denied`` without ``is_error``.
    """

    content: str | list[ContentBlock]
    details: dict[str, Any] | None = None
    is_error: bool = False
    denied: bool = False
    frames: list[CapturedFrame] = []
    frame_skipped: FrameSkip | None = None

    def __post_init__(self) -> None:
        if not _has_content(self.content):
            raise ValueError("ToolResult.content must be non-empty: the model reads only content")
        if self.denied and not self.is_error:
            raise ValueError("a denial is an error result for the model (is_error must be true)")

    @property
    def counts_as_failure(self) -> bool:
        """True for an error the failure streak counts (denials are not failures)."""
        return self.is_error and not self.denied

    def model_content(self) -> list[TextPart | ImagePart]:
        """The content as provider message parts (for a ``ToolResultMessage``)."""
        if isinstance(self.content, str):
            return [TextPart(self.content)]
        return [_to_part(block) for block in self.content]


def error_result(message: str, *, details: dict[str, Any] | None = None) -> ToolResult:
    """An error result the model can correct from (counts as a tool failure)."""
    return ToolResult(content=message, details=details, is_error=True)


def denial_result(message: str, *, details: dict[str, Any] | None = None) -> ToolResult:
    """A user or policy denial: an error for the model, not a failure for the streak."""
    return ToolResult(content=message, details=details, is_error=True, denied=True)


def image_refs(blocks: list[ContentBlock]) -> list[dict[str, Any]]:
    """``details.images`` for the panel: each image's index in ``content`` and its type."""
    return [
        {"contentIndex": i, "mediaType": b.media_type}
        for i, b in enumerate(blocks)
        if isinstance(b, ImageBlock)
    ]


def plain_if_one_text(blocks: list[ContentBlock]) -> str | list[ContentBlock]:
    """A lone text block as a plain string; any other content as the blocks."""
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        return blocks[0].text
    return blocks


def _has_content(content: str | list[ContentBlock]) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    return any(isinstance(block, ImageBlock) or bool(block.text.strip()) for block in content)


def _to_part(block: ContentBlock) -> TextPart | ImagePart:
    if isinstance(block, TextBlock):
        return TextPart(block.text)
    return ImagePart(media_type=block.media_type, data=block.data)
