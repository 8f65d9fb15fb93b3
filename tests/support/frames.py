"""Frames for tests (issue 30): real JPEG bytes made by hand (no imaging library), and the
``CapturedFrame`` JSON the extension sends in ``browser.invoke`` results."""

from __future__ import annotations

import base64
import struct
from typing import Any

T0 = "2026-12-04T10:00:00.000Z"


def _segment(marker: int, payload: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def tiny_jpeg(width: int = 16, height: int = 8, padding: int = 0) -> bytes:
    """A baseline JPEG of a plain grey ``width`` x ``height`` image (one component, every
    block's DC difference and AC coefficients zero, one-code Huffman tables), with a
    ``padding``-byte comment to make it larger. Browsers decode it (checked in Chromium:
    16x8, every pixel 128,128,128)."""
    quant = _segment(0xDB, bytes([0]) + bytes([1] * 64))
    frame = _segment(0xC0, bytes([8]) + struct.pack(">HH", height, width) + bytes([1, 1, 0x11, 0]))
    one_code = bytes([1] + [0] * 15) + bytes([0])  # one code of length 1, for symbol 0
    huffman = _segment(0xC4, bytes([0x00]) + one_code + bytes([0x10]) + one_code)
    scan = _segment(0xDA, bytes([1, 1, 0x00, 0, 63, 0]))
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    bits = "00" * blocks  # per block: DC category 0, then end of block
    bits += "1" * (-len(bits) % 8)
    data = bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8)).replace(
        b"\xff", b"\xff\x00"
    )
    comment = b""
    while padding > 0:  # a comment segment holds at most 65533 bytes
        size = min(padding, 65533)
        comment += _segment(0xFE, b"p" * size)
        padding -= size
    return b"\xff\xd8" + comment + quant + frame + huffman + scan + data + b"\xff\xd9"


JPEG = tiny_jpeg()
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452")  # the start of a PNG


def captured(
    phase: str = "after",
    *,
    image: bytes = JPEG,
    data: str | None = None,
    url: str = "https://shop.example/cart",
    captured_at: str = T0,
    mime: str = "image/jpeg",
    **more: Any,
) -> dict[str, Any]:
    """A frame as ``browser.invoke`` carries it (``data``: the base64 sent, default
    ``image``'s)."""
    return {
        "phase": phase,
        "mime": mime,
        "data": base64.b64encode(image).decode() if data is None else data,
        "width": 16,
        "height": 8,
        "url": url,
        "capturedAt": captured_at,
        **more,
    }
