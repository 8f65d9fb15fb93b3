"""What the channel writes for a batch of encoded messages: frame headers and payloads,
side by side, for one ``os.writev`` (framing never copies a message)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from itertools import count

from panelot_host.wire.chunking import split_message
from panelot_host.wire.framing import MAX_OUTBOUND_FRAME, frame_header, small_frame_headers

_SMALL_HEADERS = small_frame_headers()
_SMALL = len(_SMALL_HEADERS)


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
    append = parts.append
    for payload in payloads:
        size = len(payload)
        if size < _SMALL:
            append(_SMALL_HEADERS[size])
            append(payload)
        elif size <= MAX_OUTBOUND_FRAME:
            append(frame_header(size))
            append(payload)
        else:
            for chunk in split_message(payload, chunk_id()):
                append(frame_header(len(chunk)))
                append(chunk)
    return parts
