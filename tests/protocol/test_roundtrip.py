"""Every op, result and event survives encode -> frame payload -> decode unchanged."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from panelot_host.protocol import (
    CONTROL_NOTIFICATIONS,
    EVENTS,
    OPS,
    SHIM_REQUESTS,
    Notification,
    OpCall,
    Request,
    Response,
    decode_event,
    decode_message,
    decode_params,
    decode_result,
    decode_shim_params,
    encode_event,
    encode_notification,
    encode_request,
    encode_result,
)
from panelot_host.protocol.items import ITEM_KINDS, Item

from . import samples

HOST_INBOUND = {**{m: s.params for m, s in OPS.items()}, **CONTROL_NOTIFICATIONS}
SHIM_INBOUND = {m: s.params for m, s in SHIM_REQUESTS.items()}


def test_samples_cover_every_method() -> None:
    assert set(samples.PARAMS) == set(HOST_INBOUND) | set(SHIM_INBOUND)
    assert set(samples.RESULTS) == set(OPS) | set(SHIM_REQUESTS)
    assert set(samples.EVENTS) == set(EVENTS)
    for method, params in samples.PARAMS.items():
        expected = HOST_INBOUND.get(method) or SHIM_INBOUND[method]
        assert type(params) is expected, method


@pytest.mark.parametrize("method", sorted(HOST_INBOUND))
def test_op_params_round_trip(method: str) -> None:
    sent = samples.PARAMS[method]
    message = decode_message(encode_request(41, method, sent))
    assert isinstance(message, OpCall)  # the one-pass fast path
    assert (message.id, message.method) == (41, method)
    assert decode_params(message.method, message.params) == sent


@pytest.mark.parametrize("method", sorted(SHIM_INBOUND))
def test_shim_request_params_round_trip(method: str) -> None:
    sent = samples.PARAMS[method]
    message = decode_message(encode_request("h-1", method, sent))
    assert isinstance(message, Request)
    assert decode_shim_params(message.method, message.params) == sent


@pytest.mark.parametrize("method", sorted(samples.RESULTS))
def test_results_round_trip(method: str) -> None:
    sent = samples.RESULTS[method]
    message = decode_message(encode_result("r-7", sent))
    assert isinstance(message, Response)
    assert message.id == "r-7"
    assert decode_result(method, message.result) == sent


@pytest.mark.parametrize("method", sorted(EVENTS))
def test_events_round_trip(method: str) -> None:
    sent = samples.EVENTS[method]
    payload = encode_event(sent)
    assert payload == encode_notification(method, sent)
    message = decode_message(payload)
    assert isinstance(message, Notification)
    assert message.method == method
    assert decode_event(method, message.params) == sent


def test_cancel_request_is_a_notification() -> None:
    message = decode_message(
        encode_notification("$/cancelRequest", samples.PARAMS["$/cancelRequest"])
    )
    assert isinstance(message, OpCall) and message.id is msgspec.UNSET  # no id: a notification
    assert decode_params(message.method, message.params) == samples.PARAMS["$/cancelRequest"]


@pytest.mark.parametrize("item", samples.ITEMS, ids=lambda i: type(i).__name__)
def test_items_decode_by_kind(item: Any) -> None:
    wire = msgspec.json.decode(msgspec.json.encode(item))
    assert wire["kind"] in ITEM_KINDS
    assert msgspec.json.decode(msgspec.json.encode(item), type=Item) == item


def test_absent_params_mean_empty_object() -> None:
    message = decode_message(b'{"jsonrpc":"2.0","id":1,"method":"settings.get"}')
    assert isinstance(message, Request)
    assert decode_params(message.method, message.params) == samples.PARAMS["settings.get"]


def test_array_params_are_invalid_params_not_a_crash() -> None:
    from panelot_host.errors import InvalidParams

    message = decode_message(b'{"jsonrpc":"2.0","id":1,"method":"thread.open","params":["t"]}')
    assert isinstance(message, Request)
    with pytest.raises(InvalidParams) as info:
        decode_params(message.method, message.params)
    assert info.value.errors == [{"path": "$.params", "message": "expected object, got array"}]
