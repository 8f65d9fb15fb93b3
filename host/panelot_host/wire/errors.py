"""What can go wrong on the wire, as values and as exceptions.

Inbound framing problems are *values* (``FrameError``): the decoder reports them in
order with the frames around them, and the server answers each with a ``$/error``
notification and reads on. Outbound misuse and bad ``$/chunk`` sequences are exceptions,
part of the host's one tree (``panelot_host.errors``):

    PanelotError
    ├── TooLarge
    │   └── FrameTooLarge      encode_frame got a payload over MAX_OUTBOUND_FRAME
    └── ChunkError             a $/chunk sequence is malformed, inconsistent or too big
"""

from __future__ import annotations

from typing import Literal

import msgspec

from panelot_host.errors import PanelotError, TooLarge

FrameErrorCode = Literal["frame_too_large", "truncated_frame"]


class FrameError(msgspec.Struct, frozen=True):
    """An inbound framing problem: ``code`` is stable for machines, ``message`` is for people.

    ``frame_too_large``: a header declared more than ``MAX_INBOUND_FRAME`` bytes; the
    decoder skipped ahead to the next resynchronisation point.
    ``truncated_frame``: the stream ended inside a frame header or payload.
    """

    code: FrameErrorCode
    message: str


class FrameTooLarge(TooLarge):
    """An outbound payload exceeds ``MAX_OUTBOUND_FRAME``; split it with ``split_message``."""


class ChunkError(PanelotError):
    """A ``$/chunk`` notification cannot be accepted; the message it belonged to is dropped."""
