"""What the channel writes for a batch of encoded messages: frame headers and payloads,
side by side, for one ``os.writev`` (framing never copies a message)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from itertools import count

from panelot_host.wire.chunking import split_message
from panelot_host.wire.framing import MAX_OUTBOUND_FRAME, frame_header


def chunk_ids() -> Callable[[], str]:
    """A new source of ``$/chunk`` ids for one channel: ``<8 random hex digits>-<n>``, ``n``
    counting from 0. (``os.urandom`` as ``secrets.token_hex`` uses it, without importing
    ``secrets`` and ``hmac`` on the start-up path.)"""
    prefix = os.urandom(4).hex()
    seq = count()
    return lambda: f"{prefix}-{next(seq)}"


def frame_parts(payloads: Iterable[bytes], chunk_id: Callable[[], str]) -> list[bytes]:
    """Header, payload, header, payload... for ``payloads`` in order: each message is one
    frame, or its ``$/chunk`` frames (ids from ``chunk_id()``) when it is over 1 MiB.

    Raises:
        ValueError: a message over 1 MiB is not valid UTF-8.
    """
    parts: list[bytes] = []
    for payload in payloads:
        if len(payload) <= MAX_OUTBOUND_FRAME:
            frames: Iterable[bytes] = (payload,)
        else:
            frames = split_message(payload, chunk_id())
        for frame in frames:
            parts += (frame_header(len(frame)), frame)
    return parts
