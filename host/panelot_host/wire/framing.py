"""Native-messaging frames: a uint32 length in native byte order, then that many bytes.

The decoder is incremental and bounded. It never holds more than one frame header plus
one declared payload (at most ``HEADER_SIZE + max_frame`` bytes) between calls, and it
never raises on bad input: framing problems come back as ``FrameError`` values in
stream order.

Resynchronisation rule. A header declaring more than ``max_frame`` bytes cannot be a
frame (Chrome's renderer refuses messages over 64 MiB), so the stream is misaligned or
garbage. The decoder reports one ``frame_too_large`` error, drops the first byte of the
bad header, and scans forward for the next position that looks like the start of a
real frame: a header declaring 2..max_frame bytes, followed by ``{`` (every frame is
one JSON object) and then by ``"``, ``}`` or JSON whitespace (the only bytes that may
follow an object's opening brace). Bytes before that point are discarded without being
buffered. The scan uses ``bytearray.find`` for ``{``, so garbage costs linear time, and
random bytes pass the test at roughly one position in 700,000. Outside resync the
decoder does not look inside payloads: UTF-8 and JSON are the protocol layer's job.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from panelot_host.wire.errors import FrameError, FrameTooLarge

HEADER_SIZE = 4
MAX_INBOUND_FRAME = 64 * 1024 * 1024
MAX_OUTBOUND_FRAME = 1024 * 1024

_HEADER = struct.Struct("=I")
_SMALL = 4096
# Most frames are small events: their headers come from a table (about 150 KB, built once),
# which halves the cost of framing one against packing each header.
_SMALL_HEADERS: tuple[bytes, ...] = tuple(_HEADER.pack(n) for n in range(_SMALL))
_MIN_RESYNC_LENGTH = 2  # "{}" is the smallest JSON object
_AFTER_OPEN_BRACE = frozenset(b'"} \t\n\r')
_OPEN_BRACE = ord("{")


def small_frame_headers() -> tuple[bytes, ...]:
    """The prebuilt headers of payloads shorter than their count, indexed by size."""
    return _SMALL_HEADERS


def frame_header(size: int, *, limit: int = MAX_OUTBOUND_FRAME) -> bytes:
    """The header of a ``size``-byte payload: its native-endian uint32 length.

    The channel writes header and payload side by side (``os.writev``), so framing a
    message never copies it. ``limit`` defaults to what Chrome accepts from a host; a
    client writing to the host may pass ``MAX_INBOUND_FRAME``.

    Raises:
        FrameTooLarge: ``size > limit``.
    """
    if size > limit:
        raise FrameTooLarge(f"frame payload of {size} bytes exceeds the {limit}-byte limit")
    if size < _SMALL:
        return _SMALL_HEADERS[size]
    return _HEADER.pack(size)


def encode_frame(payload: bytes, *, limit: int = MAX_OUTBOUND_FRAME) -> bytes:
    """``payload`` prefixed with its header, as one buffer.

    Raises:
        FrameTooLarge: ``len(payload) > limit``.
    """
    return frame_header(len(payload), limit=limit) + payload


def encode_frames(payloads: Iterable[bytes], *, limit: int = MAX_OUTBOUND_FRAME) -> bytes:
    """Concatenate ``encode_frame`` of each payload into one byte stream.

    Raises:
        FrameTooLarge: any payload exceeds ``limit``.
    """
    return b"".join(encode_frame(p, limit=limit) for p in payloads)


def decode_frames(stream: bytes, *, max_frame: int = MAX_INBOUND_FRAME) -> list[bytes | FrameError]:
    """Decode a whole byte stream, end of stream included (``feed`` then ``eof``)."""
    decoder = FrameDecoder(max_frame=max_frame)
    items = decoder.feed(stream)
    items.extend(decoder.eof())
    return items


class FrameDecoder:
    """Incremental decoder of native-messaging frames; see the module docstring for resync.

    Not thread-safe; one decoder per stream.
    """

    def __init__(self, *, max_frame: int = MAX_INBOUND_FRAME) -> None:
        if max_frame < _MIN_RESYNC_LENGTH:
            raise ValueError(f"max_frame must be at least {_MIN_RESYNC_LENGTH}")
        self._max_frame = max_frame
        self._buf = bytearray()
        self._resyncing = False

    @property
    def buffered(self) -> int:
        """Bytes held for an incomplete frame (or a possible resync point)."""
        return len(self._buf)

    @property
    def resyncing(self) -> bool:
        """Whether the decoder is skipping bytes after a bad header."""
        return self._resyncing

    def feed(self, data: bytes) -> list[bytes | FrameError]:
        """Add ``data``; return the complete frame payloads and framing errors, in order.

        Never raises on any input.
        """
        self._buf += data
        items: list[bytes | FrameError] = []
        pos = 0
        with memoryview(self._buf) as view:
            while True:
                if self._resyncing:
                    pos, progressed = self._resync(pos)
                else:
                    pos, progressed = self._take_frame(view, pos, items)
                if not progressed:
                    break
        del self._buf[:pos]
        return items

    def eof(self) -> list[FrameError]:
        """Report a frame cut off by the end of the stream, and reset the decoder.

        Bytes skipped while resynchronising were already reported as ``frame_too_large``.
        """
        held, resyncing = len(self._buf), self._resyncing
        header = bytes(self._buf[:HEADER_SIZE])
        self._buf.clear()
        self._resyncing = False
        if held == 0 or resyncing:
            return []
        if held < HEADER_SIZE:
            message = f"stream ended inside a frame header ({held} of {HEADER_SIZE} bytes)"
        else:
            (length,) = _HEADER.unpack(header)
            got = held - HEADER_SIZE
            message = f"stream ended inside a frame payload ({got} of {length} bytes)"
        return [FrameError("truncated_frame", message)]

    def _take_frame(
        self, view: memoryview, pos: int, items: list[bytes | FrameError]
    ) -> tuple[int, bool]:
        if len(view) - pos < HEADER_SIZE:
            return pos, False
        (length,) = _HEADER.unpack_from(view, pos)
        if length > self._max_frame:
            items.append(self._too_large(length))
            self._resyncing = True
            return pos + 1, True
        end = pos + HEADER_SIZE + length
        if end > len(view):
            return pos, False
        items.append(bytes(view[pos + HEADER_SIZE : end]))
        return end, True

    def _resync(self, pos: int) -> tuple[int, bool]:
        buf = self._buf
        brace = buf.find(b"{", pos + HEADER_SIZE)
        while brace != -1:
            start = brace - HEADER_SIZE
            if brace + 1 >= len(buf):
                return start, False
            if self._looks_like_frame_start(start):
                self._resyncing = False
                return start, True
            brace = buf.find(b"{", brace + 1)
        return max(pos, len(buf) - HEADER_SIZE), False

    def _looks_like_frame_start(self, start: int) -> bool:
        (length,) = _HEADER.unpack_from(self._buf, start)
        return (
            _MIN_RESYNC_LENGTH <= length <= self._max_frame
            and self._buf[start + HEADER_SIZE] == _OPEN_BRACE
            and self._buf[start + HEADER_SIZE + 1] in _AFTER_OPEN_BRACE
        )

    def _too_large(self, length: int) -> FrameError:
        return FrameError(
            "frame_too_large",
            f"frame header declares {length} bytes, over the {self._max_frame}-byte limit; "
            "skipping to the next frame start",
        )
