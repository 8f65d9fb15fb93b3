"""Codec throughput against bare msgspec on the same structs (target: >= 50 %).

    .venv/bin/python bench/bench_codec.py

Encode: small events through the native connection's ``FramedMessages.notification``
(frame header, JSON-RPC envelope and params as the buffers ``StdioChannel`` hands to
``os.writev``), against ``msgspec.json.Encoder().encode(event_params)`` (params only).
Decode: op requests through ``decode_message`` + ``decode_params``, against bare msgspec
decoding the same requests the way a server must: one decoder for every op, a union of
envelope + params structs tagged by ``method`` (the target's baseline).
Also printed: the codec without framing, the frame copied into one buffer
(``encode_frame``), bare msgspec on the *whole* message (a typed envelope struct for a
method known in advance), and on the params alone (no envelope; no server sees that).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Union

import msgspec

from panelot_host.protocol import decode_message, decode_params, encode_event, encode_request, ops
from panelot_host.protocol import events as ev
from panelot_host.protocol.common import Usage
from panelot_host.protocol.items import NoticeItem
from panelot_host.protocol.registry import EVENT_METHODS
from panelot_host.server.outgoing import FramedMessages
from panelot_host.wire.framing import encode_frame

N = 2_000 if "--quick" in sys.argv else 200_000  # --quick: a smoke run (tests/bench)
T0 = "2025-01-31T12:34:56.789Z"

EVENTS: list[msgspec.Struct] = [
    ev.ItemDeltaEvent(
        thread_id="th_01J",
        seq=101,
        turn_id="tu_01J",
        item_id="it_01J",
        delta=ev.ItemDelta(text="Hel"),
    ),
    ev.RunUpdatedEvent(thread_id="th_01J", seq=102, run_id="ru_01J", state="executing_tool"),
    ev.TurnStartedEvent(
        thread_id="th_01J", seq=103, turn_id="tu_01J", run_id="ru_01J", user_item_id="it_01"
    ),
    ev.ItemCompletedEvent(
        thread_id="th_01J",
        seq=104,
        turn_id="tu_01J",
        item=NoticeItem(id="it_9", turn_id="tu_01J", created_at=T0, code="retry", text="retrying"),
    ),
    ev.TurnCompleteEvent(
        thread_id="th_01J",
        seq=105,
        turn_id="tu_01J",
        status="completed",
        usage=Usage(input_tokens=1200, output_tokens=300),
        cost_usd=0.0123,
        stop_reason="end_turn",
    ),
]

OPS: list[tuple[str, msgspec.Struct]] = [
    (
        "turn.submit",
        ops.TurnSubmitParams(command_id="c-1", thread_id="th_01J", text="Find a flight"),
    ),
    ("thread.open", ops.ThreadOpenParams(thread_id="th_01J")),
    (
        "turn.steer",
        ops.TurnSteerParams(
            command_id="c-2", thread_id="th_01J", expected_turn_id="tu_01J", text="cheaper"
        ),
    ),
    (
        "approval.response",
        ops.ApprovalResponseParams(
            command_id="c-3", request_id="ap_01J", decision="allow", scope="once"
        ),
    ),
    ("turn.interrupt", ops.TurnInterruptParams(thread_id="th_01J")),
]


class _Envelope(msgspec.Struct):
    method: str
    params: Any
    jsonrpc: str = "2.0"


def _envelope_type(params: type[msgspec.Struct]) -> Any:
    return msgspec.defstruct(
        "Typed", [("jsonrpc", str), ("id", int), ("method", str), ("params", params)]
    )


def _call_type(method: str, params: type[msgspec.Struct]) -> Any:
    return msgspec.defstruct(
        f"Call_{method}",
        [("jsonrpc", str), ("params", params), ("id", int)],
        tag_field="method",
        tag=method,
    )


def _rate(fn: Callable[[], Any], n: int) -> float:
    """Messages per second, best of 3 runs of ``n`` calls (each call handles 5 messages)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - start)
    return n * 5 / best


def main() -> None:
    bare_encoder = msgspec.json.Encoder()

    framed = FramedMessages().notification
    named = [(EVENT_METHODS[type(e)], e) for e in EVENTS]

    def ours_encode() -> None:
        for method, event in named:
            framed(method, event)

    def one_buffer_encode() -> None:
        for event in EVENTS:
            encode_frame(encode_event(event))

    def bare_encode() -> None:
        for event in EVENTS:
            bare_encoder.encode(event)

    payloads = [encode_request(i, m, p) for i, (m, p) in enumerate(OPS)]
    bare = [(msgspec.json.Decoder(type(p)), msgspec.json.encode(p)) for _, p in OPS]

    def ours_decode() -> None:
        for payload in payloads:
            message = decode_message(payload)
            decode_params(message.method, message.params)  # type: ignore[union-attr]

    def bare_decode() -> None:
        for decoder, data in bare:
            decoder.decode(data)

    def codec_encode() -> None:
        for event in EVENTS:
            encode_event(event)

    whole = [_Envelope(method=EVENT_METHODS[type(e)], params=e) for e in EVENTS]

    def bare_whole_encode() -> None:
        for envelope in whole:
            bare_encoder.encode(envelope)

    typed = [
        (msgspec.json.Decoder(_envelope_type(type(p))), d)
        for (_, p), d in zip(OPS, payloads, strict=True)
    ]

    def bare_whole_decode() -> None:
        for decoder, data in typed:
            decoder.decode(data)

    # What a server must decode: one decoder for every op, dispatched on ``method`` (a
    # tagged union of the same envelope + params structs), as bare msgspec offers it.
    union = msgspec.json.Decoder(
        Union[tuple(_call_type(m, type(p)) for m, p in OPS)]  # type: ignore[valid-type]  # noqa: UP007
    )

    def bare_union_decode() -> None:
        for payload in payloads:
            union.decode(payload)

    n = N // 5
    rows = [
        ("encode framed events/s", ours_encode, bare_encode, True),
        ("decode op requests/s", ours_decode, bare_union_decode, True),
        ("encode events/s, no frame", codec_encode, bare_encode, False),
        ("encode, one frame buffer", one_buffer_encode, bare_encode, False),
        ("encode vs whole message", codec_encode, bare_whole_encode, False),
        ("decode vs whole message", ours_decode, bare_whole_decode, False),
        ("decode vs params alone", ours_decode, bare_decode, False),
    ]
    for label, ours, bare_fn, target in rows:
        a, b = _rate(ours, n), _rate(bare_fn, n)
        verdict = ("MET" if a / b >= 0.5 else "MISSED") if target else ""
        print(
            f"{label:<27} ours {a:>11,.0f}  bare msgspec {b:>11,.0f}  ratio {a / b:6.1%}  {verdict}"
        )


if __name__ == "__main__":
    main()
