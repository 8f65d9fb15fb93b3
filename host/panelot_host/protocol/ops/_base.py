"""Base classes of op params and results."""

from __future__ import annotations

import msgspec


class Params(msgspec.Struct, rename="camel", forbid_unknown_fields=True, kw_only=True):
    """Base of inbound params: camelCase on the wire, unknown fields rejected."""


class Result(msgspec.Struct, rename="camel", kw_only=True):
    """Base of results: camelCase on the wire."""


class EmptyResult(Result, kw_only=True):
    """``{}``: the op's effect is its acknowledgement."""
