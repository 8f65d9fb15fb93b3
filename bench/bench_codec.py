"""Codec throughput against bare msgspec on the same structs (target: >= 50 %).

    .venv/bin/python bench/bench_codec.py

Encode: small events through ``encode_event`` (JSON-RPC envelope) + the wire's
``encode_frame``, against ``msgspec.json.Encoder().encode(event_params)``.
Decode: op requests through ``decode_message`` + ``decode_params``, against a prebuilt
``msgspec.json.Decoder(<Op>Params).decode(params_bytes)``.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from typing import Any

import msgspec

from panelot_host.protocol import decode_message, decode_params, encode_event, encode_request, ops
from panelot_host.protocol import events as ev
from panelot_host.protocol.common import Usage
from panelot_host.protocol.items import NoticeItem

try:
    from panelot_host.wire.framing import encode_frame

    FRAMING = "panelot_host.wire.framing.encode_frame"
except ImportError:  # the wire part not there yet

    def encode_frame(payload: bytes) -> bytes:  # type: ignore[misc]
        return struct.pack("=I", len(payload)) + payload

    FRAMING = 'struct.pack("=I", len) + payload (fallback: panelot_host.wire missing)'

N = 200_000
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

    def ours_encode() -> None:
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

    n = N // 5
    enc_ours, enc_bare = _rate(ours_encode, n), _rate(bare_encode, n)
    dec_ours, dec_bare = _rate(ours_decode, n), _rate(bare_decode, n)
    print(f"framing: {FRAMING}")
    print(
        f"encode  framed events/s  ours {enc_ours:>12,.0f}  bare msgspec {enc_bare:>12,.0f}"
        f"  ratio {enc_ours / enc_bare:6.1%}"
    )
    print(
        f"decode  op requests/s    ours {dec_ours:>12,.0f}  bare msgspec {dec_bare:>12,.0f}"
        f"  ratio {dec_ours / dec_bare:6.1%}"
    )


if __name__ == "__main__":
    main()
