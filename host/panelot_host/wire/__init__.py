"""The wire: native-messaging frames, their limits, ``$/chunk`` splitting, stdio discipline.

It deals in bytes and already-encoded JSON; it never knows what an op means.

Module map: ``framing`` (length-prefixed frames and their limits), ``chunking`` (``$/chunk``
split and join), ``outbound`` (frame headers and payloads for one ``writev``), ``stdio``
(the channel over stdin/stdout), ``errors`` (framing problems).
"""

from panelot_host.wire.chunking import (
    CHUNK_METHOD,
    ChunkAssembler,
    ChunkNotification,
    ChunkParams,
    split_message,
)
from panelot_host.wire.errors import ChunkError, FrameError, FrameErrorCode, FrameTooLarge
from panelot_host.wire.framing import (
    HEADER_SIZE,
    MAX_INBOUND_FRAME,
    MAX_OUTBOUND_FRAME,
    FrameDecoder,
    decode_frames,
    encode_frame,
    encode_frames,
    frame_header,
)
from panelot_host.wire.stdio import StdioChannel, protect_stdin, protect_stdout

__all__ = [
    "CHUNK_METHOD",
    "HEADER_SIZE",
    "MAX_INBOUND_FRAME",
    "MAX_OUTBOUND_FRAME",
    "ChunkAssembler",
    "ChunkError",
    "ChunkNotification",
    "ChunkParams",
    "FrameDecoder",
    "FrameError",
    "FrameErrorCode",
    "FrameTooLarge",
    "StdioChannel",
    "decode_frames",
    "encode_frame",
    "encode_frames",
    "frame_header",
    "protect_stdin",
    "protect_stdout",
    "split_message",
]
