"""The wire: native-messaging frames, their limits, ``$/chunk`` splitting, stdio discipline.

It deals in bytes and already-encoded JSON; it never knows what an op means.

Module map: ``framing`` (length-prefixed frames and their limits), ``chunking`` (``$/chunk``
split and join), ``outbound`` (frame headers and payloads for one ``writev``), ``fds`` (stdin/stdout
reserved for frames, whole writes to an fd), ``blocking`` (frames read before an event
loop runs), ``stdio`` (the channel over stdin/stdout, on anyio), ``errors`` (framing
problems).

The names below need no event loop; ``stdio.StdioChannel`` (which imports anyio) is
imported from its module, so the host's prelude can read and write frames without it.
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
    "decode_frames",
    "encode_frame",
    "encode_frames",
    "frame_header",
    "split_message",
]
