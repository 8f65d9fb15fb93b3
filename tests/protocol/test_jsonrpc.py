"""decode_message: classification of frame payloads and the error codes they map to."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from panelot_host.errors import InvalidRequest, InvalidResponse, JsonRpcError, ParseError
from panelot_host.protocol import (
    ERROR_CODES,
    ErrorResponse,
    Notification,
    OpCall,
    Request,
    Response,
    code_for_kind,
    decode_message,
    encode_error,
    jsonrpc,
    messages,
)
from panelot_host.protocol.jsonrpc import ENGINE_ERROR_KINDS


def test_request_notification_response_and_error_are_told_apart() -> None:
    req = decode_message(b'{"jsonrpc":"2.0","id":"a","method":"thread.open","params":{"x":1}}')
    assert isinstance(req, Request)
    assert (req.id, req.method, bytes(req.params)) == ("a", "thread.open", b'{"x":1}')
    note = decode_message(b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}')
    assert isinstance(note, OpCall) and note.id is msgspec.UNSET  # fast path: no id
    assert note.method == "$/cancelRequest"
    other = decode_message(b'{"jsonrpc":"2.0","method":"x.unknown","params":{"id":3}}')
    assert isinstance(other, Notification)
    resp = decode_message(b'{"jsonrpc":"2.0","id":5,"result":null}')
    assert isinstance(resp, Response)
    assert bytes(resp.result) == b"null"
    err = decode_message(
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"m","data":{"k":1}}}'
    )
    assert isinstance(err, ErrorResponse)
    assert (err.id, err.error.code, err.error.message, err.error.data) == (
        None,
        -32000,
        "m",
        {"k": 1},
    )


@pytest.mark.parametrize(
    ("payload", "error", "request_id", "words"),
    [
        (b'{"jsonrpc":"2.0","method":"x","p":"\xff"}', ParseError, None, "UTF-8"),
        (b"\xc3\x28", ParseError, None, "UTF-8"),
        (b'{"jsonrpc":"2.0","id":1,"method":', ParseError, None, "invalid JSON"),
        (b"", ParseError, None, "invalid JSON"),
        (b"{'a': 1}", ParseError, None, "invalid JSON"),
        (b"[1, 2]", InvalidRequest, None, "not array"),
        (b"3", InvalidRequest, None, "not int"),
        (b'"text"', InvalidRequest, None, "not str"),
        (b"null", InvalidRequest, None, "not null"),
        (b'{"id":4,"method":"x"}', InvalidRequest, 4, '"jsonrpc" is missing'),
        (b'{"jsonrpc":"1.0","id":"k","method":"x"}', InvalidRequest, "k", '"jsonrpc"'),
        (b'{"jsonrpc":2.0,"id":"k","method":"x"}', InvalidRequest, "k", '"jsonrpc"'),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"x"}', InvalidRequest, None, '"id"'),
        (b'{"jsonrpc":"2.0","id":true,"method":"x"}', InvalidRequest, None, '"id"'),
        (b'{"jsonrpc":"2.0","id":null,"method":"x"}', InvalidRequest, None, '"id"'),
        (b'{"jsonrpc":"2.0","id":[1],"method":"x"}', InvalidRequest, None, '"id"'),
        (b'{"jsonrpc":"2.0","id":2,"method":7}', InvalidRequest, 2, '"method"'),
        (b'{"jsonrpc":"2.0","id":2,"method":"x","params":"p"}', InvalidRequest, 2, '"params"'),
        (b'{"jsonrpc":"2.0","id":2,"method":"x","params":null}', InvalidRequest, 2, '"params"'),
        (b'{"jsonrpc":"2.0","id":2}', InvalidRequest, 2, "no method"),
        (b'{"jsonrpc":"2.0","id":2,"result":1,"error":{}}', InvalidResponse, 2, "both"),
        (b'{"jsonrpc":"2.0","result":1}', InvalidResponse, None, "its id"),
        (b'{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}', InvalidResponse, 3, '"error"'),
        (b'{"jsonrpc":"2.0","id":1e999,"method":"x"}', InvalidRequest, None, "out of range"),
    ],
)
def test_malformed_messages_map_to_codes(
    payload: bytes, error: type[JsonRpcError], request_id: object, words: str
) -> None:
    with pytest.raises(JsonRpcError) as info:
        decode_message(payload)
    assert type(info.value) is error
    assert info.value.code == (-32700 if error is ParseError else -32600)
    assert info.value.request_id == request_id
    assert words in info.value.message


def test_error_response_round_trips_with_null_id() -> None:
    payload = encode_error(None, -32700, "Parse error", {"kind": "parse_error"})
    assert json.loads(payload) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error", "data": {"kind": "parse_error"}},
    }
    assert "data" not in json.loads(encode_error(1, -32603, "x"))["error"]


def test_engine_error_kinds_have_stable_distinct_codes() -> None:
    codes = [ERROR_CODES[k] for k in ENGINE_ERROR_KINDS]
    assert len(set(codes)) == len(codes)
    assert all(-32099 <= c <= -32000 for c in codes)
    assert (code_for_kind("stale_turn"), code_for_kind("not_initialized")) == (-32001, -32002)
    assert code_for_kind("invalid_params") == -32602
    assert code_for_kind("something_new") == -32603


@given(st.binary(max_size=512))
def test_arbitrary_bytes_raise_only_protocol_errors(data: bytes) -> None:
    try:
        decode_message(data)
    except JsonRpcError as exc:
        assert exc.code in (-32700, -32600)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_member = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"])


@given(st.dictionaries(_member | st.text(max_size=6), _json, max_size=6))
def test_arbitrary_objects_raise_only_protocol_errors(obj: dict[str, object]) -> None:
    try:
        message = decode_message(json.dumps(obj).encode())
    except JsonRpcError as exc:
        assert exc.code == -32600
    else:
        assert obj["jsonrpc"] == "2.0"
        assert isinstance(message, Request | Notification | Response | ErrorResponse)


def test_invalid_utf8_inside_a_well_formed_request_is_a_parse_error() -> None:
    payload = b'{"jsonrpc":"2.0","id":1,"method":"thread.open","params":{"threadId":"\xff"}}'
    with pytest.raises(ParseError):
        decode_message(payload)


def test_fast_path_hands_over_typed_params() -> None:
    from panelot_host.protocol import decode_params
    from panelot_host.protocol.ops import ThreadOpenParams

    message = decode_message(
        b'{"jsonrpc":"2.0","id":1,"method":"thread.open","params":{"threadId":"t"}}'
    )
    assert isinstance(message, OpCall)
    assert (message.method, message.id) == ("thread.open", 1)
    assert message.params == ThreadOpenParams(thread_id="t")  # typed in the one pass
    assert decode_params(message.method, message.params) is message.params


def _outcome(decode: object, data: bytes) -> object:
    try:
        message = decode(data)  # type: ignore[operator]
    except JsonRpcError as exc:
        return type(exc), exc.request_id
    kind: type = type(message)
    request_id = getattr(message, "id", None)
    if isinstance(message, OpCall):  # the fast path's form of a request or notification
        kind = Notification if message.id is msgspec.UNSET else Request
        request_id = None if message.id is msgspec.UNSET else message.id
    return kind, getattr(message, "method", None), request_id


_ops = st.sampled_from(["thread.open", "turn.interrupt", "settings.get", "$/cancelRequest", "x"])


@given(
    st.fixed_dictionaries(
        {"jsonrpc": st.sampled_from(["2.0", "1.0"]), "method": _ops},
        optional={
            "id": st.none() | st.integers() | st.text(max_size=3) | st.booleans(),
            "params": st.dictionaries(
                st.sampled_from(["threadId", "turnId", "id", "zz"]),
                st.text(max_size=3) | st.integers(),
                max_size=3,
            ),
            "result": st.integers(),
        },
    )
)
def test_fast_and_generic_paths_classify_alike(obj: dict[str, object]) -> None:
    data = json.dumps(obj).encode()
    assert _outcome(decode_message, data) == _outcome(jsonrpc.decode_message, data)


_PAYLOADS = [
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,'
    b'"client":{"name":"c","version":"1"}}}',
    b'{"jsonrpc":"2.0","id":"a","method":"thread.list","params":{}}',
    b'{"jsonrpc":"2.0","id":2,"method":"settings.get"}',
    b'{"jsonrpc":"2.0","id":3,"method":"thread.open","params":{"threadId":"t"}}',
    b'{"jsonrpc":"2.0","id":4,"method":"thread.open","params":{}}',
    b'{"jsonrpc":"2.0","id":5,"method":"thread.open","params":{"threadId":"t"},"x":1}',
    b'{"jsonrpc":"2.0","id":6,"method":"x.unknown","params":{"a":1}}',
    b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}',
    b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":[1]}}',
    b'{"jsonrpc":"2.0","method":"x.note","params":{"id":3}}',
    b'{"jsonrpc":"2.0","id":7,"result":{"ok":true}}',
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"m"}}',
    b'{"jsonrpc":"2.0","id":8,"method":"thread.open","params":{"threadId":"\xff"}}',
    b'{"jsonrpc":"1.0","id":9,"method":"thread.list","params":{}}',
    b"[1, 2]",
]


def _seen(payload: bytes, build: bool) -> object:
    try:
        message = decode_message(payload, build=build)
    except JsonRpcError as exc:
        return type(exc).__name__, exc.code, exc.message, exc.request_id
    params = message.params if hasattr(message, "params") else None
    plain = bytes(params) if isinstance(params, msgspec.Raw) else msgspec.to_builtins(params)
    return (
        type(message).__name__,
        getattr(message, "method", None),
        getattr(message, "id", None),
        plain,
    )


@pytest.mark.parametrize("payload", _PAYLOADS)
def test_before_the_one_pass_decoder_is_built_messages_decode_the_same(
    payload: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server decodes with ``build=False`` until its warm-up has built the one-pass
    decoder: each payload, a ``$/cancelRequest`` included, comes out the same."""
    fast = _seen(payload, build=True)
    monkeypatch.setattr(messages, "_FAST_PATH", messages._FastPath())
    assert _seen(payload, build=False) == fast
    assert messages._FAST_PATH.decoder is None  # nothing built the union meanwhile
