"""**extension** A turn's timeline (issue 30): the small screenshots ("frames") the
extension captures of a tab's viewport around browser actions, as they travel in
``browser.invoke`` results, as the host describes them on a toolCall item, and as
``frame.get`` returns one. Frames are the user's record: they are never sent to a model.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from panelot_host.protocol.common import Id, Timestamp

FramePhase = Literal["before", "after"]
"""``before``: the tab as it was before the Turn's first action on it; ``after``: the tab
right after the action."""

FrameMime = Literal["image/jpeg", "image/webp"]

FrameSkip = Literal["disabled", "private", "incognito", "background", "not_allowed", "failed"]
"""Why a call that acts on a tab has no frame: capture is off (``disabled``), the user
marked the tab private, an incognito tab, a tab in the background (Chrome captures only
the tab a window shows), a page Chrome does not let extensions capture (``chrome://``,
the Web Store, another extension), or the capture failed."""

MAX_FRAME_BASE64 = 700_000
"""A frame's image, base64: at most about 512 KB of JPEG or WebP."""

FrameData = Annotated[str, Meta(min_length=4, max_length=MAX_FRAME_BASE64)]
Pixels = Annotated[int, Meta(ge=1, le=8192)]
Coordinate = Annotated[float, Meta(ge=-100_000, le=100_000)]


class FrameMark(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """What the action did, to be drawn on the frame, in the image's pixels: the point it
    clicked (``point``: ``x``, ``y``), or the element it acted on (``box``: ``x``, ``y``
    its top left corner, ``width``, ``height``)."""

    kind: Literal["point", "box"]
    x: Coordinate
    y: Coordinate
    width: Coordinate | None = None
    height: Coordinate | None = None


class FrameViewport(msgspec.Struct, rename="camel", kw_only=True):
    """The part of the document the image shows, in CSS pixels."""

    x: Coordinate
    y: Coordinate
    width: Coordinate
    height: Coordinate


class CapturedFrame(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """A frame as the extension captured it (``browser.invoke``'s ``frames``). ``typed``:
    the text the action typed (a password field's as ``"••••••••"``); ``blurred``: how many
    password fields were blurred before the capture."""

    phase: FramePhase
    mime: FrameMime
    data: FrameData
    width: Pixels
    height: Pixels
    url: Annotated[str, Meta(max_length=8192)]
    captured_at: Timestamp
    title: Annotated[str, Meta(max_length=1000)] = ""
    viewport: FrameViewport | None = None
    mark: FrameMark | None = None
    typed: Annotated[str, Meta(max_length=4000)] | None = None
    blurred: Annotated[int, Meta(ge=0)] = 0


class FrameInfo(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """A stored frame as a toolCall item lists it (``frames``), without its image."""

    id: Id
    phase: FramePhase
    width: Pixels
    height: Pixels
    url: str
    captured_at: Timestamp
    mark: FrameMark | None = None
    typed: str | None = None


class Frame(FrameInfo, kw_only=True):
    """A stored frame with its image (``frame.get``)."""

    thread_id: Id
    turn_id: Id
    item_id: Id
    mime: FrameMime
    data: str
    title: str = ""
    viewport: FrameViewport | None = None
    blurred: int = 0
