"""Identifiers: time-ordered, random, prefixed by what they name (``thr_``, ``itm_``...)."""

from __future__ import annotations

import os
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case


def new_id(prefix: str) -> str:
    """A ULID-like id: 48 bits of milliseconds then 80 random bits, sortable by creation."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return f"{prefix}_{''.join(reversed(chars))}"


def now_ms() -> int:
    return int(time.time() * 1000)
