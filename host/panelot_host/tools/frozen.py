"""Deep-freezing of JSON values and their canonical encoding for digests."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import msgspec

FrozenJSON = MappingProxyType[str, Any]

_canonical = msgspec.json.Encoder(order="sorted")


def deep_freeze(value: Any) -> Any:
    """Return an immutable copy: mappings become read-only proxies, lists become tuples.

    Raises:
        TypeError: ``value`` holds something that is not a JSON value.
    """
    if isinstance(value, Mapping):
        return MappingProxyType({_key(k): deep_freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(deep_freeze(v) for v in value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def thaw(value: Any) -> Any:
    """Return a fresh, mutable copy of a frozen (or plain) JSON value."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


def canonical_json(value: Any) -> bytes:
    """Encode a JSON value with sorted keys and no whitespace (stable across processes)."""
    return _canonical.encode(thaw(value))


def sha256_hex(value: Any) -> str:
    """``sha256`` over the canonical JSON of ``value``, as ``sha256:<hex>``."""
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError(f"JSON object keys must be strings, got {type(key).__name__}")
    return key
