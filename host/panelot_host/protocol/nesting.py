"""How deeply a JSON message may nest, and the request id of one that nests deeper.

msgspec decodes nested arrays and objects recursively: about 1,000 levels exhaust the
interpreter's recursion limit and raise ``RecursionError`` (a 2 KB frame). Every message
the host takes is checked first: deeper than ``MAX_DEPTH`` is refused as an invalid
request, answered with the request's id when it can be read, and nothing else of it is
decoded. The check costs two ``bytes.count`` calls unless the message holds more than
``MAX_DEPTH`` brackets; only then are its tokens scanned, in time linear in the message's
size whatever it holds (it runs on the event loop; issue 25).

The scan reads strings and brackets. A string that never ends (valid JSON has none) ends
the reading of strings: every quote after its opening one is escaped in it, so no later
string would end either, and each bracket after it counts as one outside strings. That
is how the scan judged such text before it was made linear, and it can only refuse more:
a decoder stops at the unended string and never recurses past it.
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

# a string (escapes included; ``lastindex`` 1 when it ends, None when it never does) or
# one bracket. At a quote it always matches, so the scan never returns to a byte it read;
# the possessive quantifiers (*+) keep the regex engine from giving back what it matched.
# (No groups around the brackets: they would cost the regex its fast search between tokens.)
_TOKEN: Final = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(")?|[\[\]{}]', re.DOTALL)
_BRACKET: Final = re.compile(rb"[\[\]{}]")
_ID_VALUE: Final = re.compile(rb'\s*:\s*(-?[0-9]+|"[^"\\]*+(?:\\.[^"\\]*+)*+")')
_OPENERS: Final = frozenset(b"[{")
_QUOTE: Final = 0x22


def nests_deeper_than(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """True when ``data`` (JSON text, possibly invalid) nests arrays and objects deeper
    than ``limit`` levels outside strings."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    for token in _TOKEN.finditer(data):
        if token.lastindex:  # a string
            continue
        first = data[token.start()]
        if first in _OPENERS:
            depth += 1
            if depth > limit:
                return True
        elif first == _QUOTE:  # a string that never ends
            return _deeper_after(data, token.start() + 1, depth, limit)
        else:
            depth -= 1
    return False


def _deeper_after(data: bytes, start: int, depth: int, limit: int) -> bool:
    """Whether counting each bracket from ``start`` on takes ``depth`` past ``limit``."""
    for bracket in _BRACKET.finditer(data, start):
        if data[bracket.start()] in _OPENERS:
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
        if token.lastindex:  # a string
            if depth == 1 and text == b'"id"':
                value = _ID_VALUE.match(data, token.end())
                if value is not None:
                    return _decode_id(value.group(1))
        elif text[0] == _QUOTE:  # a string that never ends: no member after it can be read
            return None
        else:
            depth += 1 if text[0] in _OPENERS else -1
    return None


def _decode_id(text: bytes) -> RequestId | None:
    try:
        found = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return None
    return found if type(found) in (int, str) else None
