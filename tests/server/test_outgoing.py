"""FramedMessages: what a native connection writes equals the codec's message in frames,
whatever its size; PlainMessages: the payload alone."""

from __future__ import annotations

import re

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from panelot_host.protocol import codec
from panelot_host.protocol.events import ItemDelta, ItemDeltaEvent, RunUpdatedEvent
from panelot_host.server.outgoing import FramedMessages, PlainMessages
from panelot_host.wire import MAX_OUTBOUND_FRAME, ChunkAssembler, decode_frames


def _messages(buffers: tuple[bytes, ...]) -> list[bytes]:
    assembler = ChunkAssembler()
    frames = decode_frames(b"".join(buffers))
    return [m for f in frames if isinstance(f, bytes) and (m := assembler.accept(f)) is not None]


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=5000), seq=st.integers(0, 2**53))
def test_a_framed_notification_is_the_codec_message_in_one_frame(text: str, seq: int) -> None:
    event = ItemDeltaEvent(
        thread_id="t", seq=seq, turn_id="u", item_id="i", delta=ItemDelta(text=text)
    )
    buffers = FramedMessages().notification("item.delta", event)
    assert _messages(buffers) == [codec.encode_notification("item.delta", event)]
    assert len(decode_frames(b"".join(buffers))) == 1
    assert buffers[2] == msgspec.json.encode(event)  # the params are never copied to frame


def test_sizes_around_the_header_table_and_the_frame_limit() -> None:
    framed = FramedMessages()
    for size in (0, 4000, 4090, 4096, 5000, MAX_OUTBOUND_FRAME - 200, MAX_OUTBOUND_FRAME + 10):
        event = ItemDeltaEvent(
            thread_id="t", seq=1, turn_id="u", item_id="i", delta=ItemDelta(text="é" * (size // 2))
        )
        expected = codec.encode_notification("item.delta", event)
        buffers = framed.notification("item.delta", event)
        assert _messages(buffers) == [expected]
        frames = decode_frames(b"".join(buffers))
        assert all(len(f) <= MAX_OUTBOUND_FRAME for f in frames if isinstance(f, bytes))
        assert (len(frames) > 1) == (len(expected) > MAX_OUTBOUND_FRAME)


def test_a_method_without_a_prebuilt_head_and_an_encoded_payload() -> None:
    framed = FramedMessages()
    params = {"id": 3}
    assert _messages(framed.notification("x.custom", params)) == [
        codec.encode_notification("x.custom", params)
    ]
    result = codec.encode_result(7, {"ok": True})
    assert _messages(framed.payload(result)) == [result]
    big = codec.encode_result(8, {"t": "z" * (2 * MAX_OUTBOUND_FRAME)})
    assert _messages(framed.payload(big)) == [big]


def test_plain_messages_are_the_payload_alone() -> None:
    event = RunUpdatedEvent(thread_id="t", seq=2, run_id="r", state="streaming")
    plain = PlainMessages()
    assert plain.notification("run.updated", event) == (
        codec.encode_notification("run.updated", event),
    )
    assert plain.payload(b"{}") == (b"{}",)


def test_each_oversized_message_has_its_own_chunk_id() -> None:
    framed = FramedMessages()
    big = codec.encode_result(9, {"t": "z" * (MAX_OUTBOUND_FRAME + 10)})
    ids = []
    for buffers in (framed.payload(big), framed.payload(big)):
        frames = decode_frames(b"".join(buffers))
        run = {msgspec.json.decode(f)["params"]["chunkId"] for f in frames if isinstance(f, bytes)}
        assert len(frames) == 2 and len(run) == 1
        ids += run
    assert ids[0] != ids[1]
    assert all(re.fullmatch(r"[0-9a-f]{8}-\d+", i) for i in ids)
