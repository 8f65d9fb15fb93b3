"""The nesting pre-check (issue 25, item 1): its verdicts are the true depth for any JSON,
the same as before on any text, and it reads each byte a bounded number of times, so a
crafted frame of unterminated ``\\"`` runs cannot stall the host's event loop."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from panelot_host.protocol import nesting
from panelot_host.protocol.jsonrpc import RequestId
from panelot_host.protocol.nesting import MAX_DEPTH, nests_deeper_than, top_level_id

# ---------------------------------------------------------------- the reference

# The scanner before issue 25: right, but a quote that starts no complete string was
# re-read to the end of the text from every later quote (quadratic). Its verdicts on any
# text, valid JSON or not, are the ones to keep.
_OLD_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_OLD_ID_VALUE = re.compile(rb'\s*:\s*(-?[0-9]+|"[^"\\]*(?:\\.[^"\\]*)*")')


def _old_nests_deeper_than(data: bytes, limit: int) -> bool:
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    for token in _OLD_TOKEN.finditer(data):
        first = data[token.start()]
        if first == 0x22:
            continue
        depth += 1 if first in b"[{" else -1
        if depth > limit:
            return True
    return False


def _old_top_level_id(data: bytes) -> RequestId | None:
    depth = 0
    for token in _OLD_TOKEN.finditer(data):
        text = token.group()
        if text[0] == 0x22:
            if depth == 1 and text == b'"id"':
                value = _OLD_ID_VALUE.match(data, token.end())
                if value is not None:
                    return nesting._decode_id(value.group(1))
            continue
        depth += 1 if text[0] in b"[{" else -1
    return None


def _depth(value: Any) -> int:
    """Levels of arrays and objects in a decoded JSON value (a scalar is 0)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


# ---------------------------------------------------------------- strategies

# strings made of what a string scanner can trip on: quotes, backslashes, brackets
_tricky_text = st.text(st.sampled_from('\\"[]{}:,a é\n'), max_size=12)
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), _tricky_text)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_tricky_text, inner, max_size=3),
    max_leaves=25,
)
_ids = st.one_of(st.integers(-(2**40), 2**40), _tricky_text)
# any text over the bytes that matter, valid JSON or not
_raw = st.lists(
    st.sampled_from([b'"', b"\\", b"[", b"]", b"{", b"}", b":", b"a", b"id", b'"id"', b"1"]),
    max_size=60,
).map(b"".join)


def _encode(value: Any, compact: bool, ascii_only: bool) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(value, separators=separators, ensure_ascii=ascii_only).encode()


# ---------------------------------------------------------------- valid JSON: the truth


@given(_values, st.booleans(), st.booleans(), st.integers(0, 6))
@example(["[[[", '\\"', "\\"], True, True, 1)
@example({'"': ['\\\\"', ["{"]]}, False, True, 1)
def test_on_any_json_the_verdict_is_the_true_depth_over_the_limit(
    value: Any, compact: bool, ascii_only: bool, limit: int
) -> None:
    data = _encode(value, compact, ascii_only)
    assert json.loads(data) == value
    assert nests_deeper_than(data, limit) == (_depth(value) > limit)


@given(_values, _ids, st.booleans(), st.booleans())
def test_on_any_json_object_the_id_read_is_its_own(
    value: Any, request_id: RequestId, compact: bool, ascii_only: bool
) -> None:
    # after members of every kind, with tricky keys: only the outermost "id" is read
    message = {"params": value, **(value if isinstance(value, dict) else {}), "id": request_id}
    data = _encode(message, compact, ascii_only)
    assert top_level_id(data) == json.loads(data)["id"]


# ---------------------------------------------------------------- any text: as before


@settings(max_examples=500)
@given(_raw, st.integers(0, 4))
@example(b'"\\"\\"[[', 1)
@example(b'["\\"]"]', 0)
@example(b'{"a":"\\', 0)
def test_on_any_text_the_verdicts_are_those_of_the_old_scanner(data: bytes, limit: int) -> None:
    assert nests_deeper_than(data, limit) == _old_nests_deeper_than(data, limit)
    assert top_level_id(data) == _old_top_level_id(data)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(_raw)
@example(b'"\\"\\"\\"')
@example(b'"abc\\')
def test_a_quote_always_starts_a_token_so_no_byte_is_read_twice(data: bytes) -> None:
    """The scanner's regex matches wherever it finds a quote (a string, or the rest of the
    text when the string never ends): a failed match there is what made the old scan read
    the rest of the text again from each later quote."""
    for at in (i for i, byte in enumerate(data) if byte == 0x22):
        assert nesting._TOKEN.match(data, at) is not None, at


# ---------------------------------------------------------------- the crafted frames


def _crafted(size: int, *, with_id: bool) -> bytes:
    """The report's frame: a string that never ends, made of ``\\"`` runs, and more than
    ``MAX_DEPTH`` brackets after it (so the scan must run)."""
    head = b'{"jsonrpc":"2.0",' + (b'"id":7,' if with_id else b"") + b'"method":"thread.list",'
    head += b'"params":{"query":"'
    tail = b"[" * (MAX_DEPTH + 1)
    return head + b'\\"' * ((size - len(head) - len(tail)) // 2) + tail


@pytest.mark.parametrize("kib", [39, 156, 1024])
@pytest.mark.parametrize("with_id", [True, False])
def test_the_crafted_frames_of_the_report_are_judged(kib: int, with_id: bool) -> None:
    """Before the fix: 5.5 s at 39 KiB, 89 s at 156 KiB, about an hour at 1 MiB (the
    pytest timeout fails it); now a few milliseconds (``bench/bench_nesting.py``)."""
    frame = _crafted(kib * 1024, with_id=with_id)
    # the old verdict: after a string that never ends every bracket counts
    assert nests_deeper_than(frame)
    assert top_level_id(frame) == (7 if with_id else None)
