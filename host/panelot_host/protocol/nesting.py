"""How deeply a JSON message may nest, and the request id of one that nests deeper.

msgspec decodes nested arrays and objects recursively: about 1,000 levels exhaust the
interpreter's recursion limit and raise ``RecursionError`` (a 2 KB frame). Every message
the host takes is checked first: deeper than ``MAX_DEPTH`` is refused as an invalid
request, answered with the request's id when it can be read, and nothing else of it is
decoded. The check costs two ``bytes.count`` calls unless the message holds more than
``MAX_DEPTH`` brackets; only then are its tokens scanned.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from panelot_host.protocol.jsonrpc import RequestId

MAX_DEPTH: Final = 100
"""Deepest nesting of arrays and objects accepted in one message (the envelope counts as
one level). Params of every op nest a few levels; tool arguments, MCP settings and a
shim's result details a few more. Well under the ~1,000 levels that would exhaust the
recursion limit, also for the code that walks params after decoding (schema validation)."""

# a whole string (escapes included) or one bracket; brackets inside strings are skipped
_TOKEN: Final = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_ID_VALUE: Final = re.compile(rb'\s*:\s*(-?[0-9]+|"[^"\\]*(?:\\.[^"\\]*)*")')
_OPENERS: Final = frozenset(b"[{")


def nests_deeper_than(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """True when ``data`` (JSON text, possibly invalid) nests arrays and objects deeper
    than ``limit`` levels outside strings."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    for token in _TOKEN.finditer(data):
        first = data[token.start()]
        if first == 0x22:  # a string
            continue
        if first in _OPENERS:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def top_level_id(data: bytes) -> RequestId | None:
    """The ``id`` member of the outermost object when it is an integer or a string, read
    without decoding the rest; None otherwise."""
    depth = 0
    for token in _TOKEN.finditer(data):
        text = token.group()
        if text[0] == 0x22:
            if depth == 1 and text == b'"id"':
                value = _ID_VALUE.match(data, token.end())
                if value is not None:
                    return _decode_id(value.group(1))
            continue
        depth += 1 if text[0] in _OPENERS else -1
    return None


def _decode_id(text: bytes) -> RequestId | None:
    try:
        found = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return None
    return found if type(found) in (int, str) else None
