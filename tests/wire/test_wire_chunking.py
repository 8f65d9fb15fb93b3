import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panelot_host.wire import (
    CHUNK_METHOD,
    MAX_OUTBOUND_FRAME,
    ChunkAssembler,
    ChunkError,
    ChunkParams,
    split_message,
)
from panelot_host.wire.chunking import MAX_CHUNK_ID_LENGTH

ADVERSARIAL_ALPHABETS = {
    "quotes": '"',
    "backslashes": "\\",
    "controls": "".join(map(chr, range(32))),
    "emoji": "\U0001f600\U0001f9ea\U0010ffff",
    "mixed": '"\\\x00\x01\n\u00e9\u2028\U0001f600a',
}


def message_with(text: str) -> bytes:
    return msgspec.json.encode({"jsonrpc": "2.0", "method": "item.delta", "params": {"t": text}})


def check_chunks(encoded: bytes, frames: list[bytes], frame_limit: int) -> None:
    """Every frame fits, the frames are a well-formed chunk run, and they rebuild `encoded`."""
    decoded = [msgspec.json.decode(f) for f in frames]
    count = len(frames)
    for index, (frame, message) in enumerate(zip(frames, decoded, strict=True)):
        assert len(frame) <= frame_limit
        assert message["jsonrpc"] == "2.0"
        assert message["method"] == CHUNK_METHOD
        params = message["params"]
        assert (params["index"], params["count"]) == (index, count)
        assert params["chunkId"] == decoded[0]["params"]["chunkId"]
        if index < count - 1:  # greedy: only the last chunk may be much shorter
            assert len(frame) > frame_limit - 6 - 2 * len(str(count))
    assert "".join(m["params"]["data"] for m in decoded).encode() == encoded
    assembler = ChunkAssembler()
    results = [assembler.accept(frame) for frame in frames]
    assert results == [None] * (count - 1) + [encoded]
    assert assembler.pending == 0


def test_a_message_of_exactly_1_mib_passes_unchunked() -> None:
    encoded = message_with("x" * 100)
    encoded = message_with("x" * (100 + MAX_OUTBOUND_FRAME - len(encoded)))
    assert len(encoded) == MAX_OUTBOUND_FRAME
    [frame] = split_message(encoded, "c1")
    assert frame is encoded


def test_a_message_of_1_mib_plus_1_is_chunked() -> None:
    encoded = message_with("x" * (101 + MAX_OUTBOUND_FRAME - len(message_with("x" * 100))))
    assert len(encoded) == MAX_OUTBOUND_FRAME + 1
    frames = split_message(encoded, "c1")
    assert len(frames) == 2
    check_chunks(encoded, frames, MAX_OUTBOUND_FRAME)


def raw_text(text: str) -> bytes:
    """Text as is: unlike an encoded JSON message, it may hold raw control characters."""
    return text.encode()


@pytest.mark.parametrize("wrap", [message_with, raw_text])
@pytest.mark.parametrize("alphabet", ADVERSARIAL_ALPHABETS.values(), ids=ADVERSARIAL_ALPHABETS)
def test_adversarial_messages_over_1_mib_chunk_within_the_limit(wrap, alphabet: str) -> None:
    encoded = wrap((alphabet * (2_500_000 // len(alphabet) + 1))[:2_500_000])
    check_chunks(encoded, split_message(encoded, "adv"), MAX_OUTBOUND_FRAME)


adversarial_text = st.one_of(
    *(st.text(alphabet=a, min_size=1, max_size=3000) for a in ADVERSARIAL_ALPHABETS.values()),
    st.text(max_size=3000),
)


@settings(max_examples=200, deadline=None)
@given(
    adversarial_text,
    st.integers(min_value=150, max_value=600),
    st.sampled_from([message_with, raw_text]),
)
def test_chunk_frames_fit_and_reassemble_for_adversarial_content(
    text: str, frame_limit: int, wrap
) -> None:
    encoded = wrap(text)
    frames = split_message(encoded, "p", frame_limit=frame_limit)
    if len(encoded) <= frame_limit:
        assert frames == [encoded]
    else:
        check_chunks(encoded, frames, frame_limit)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(adversarial_text, min_size=1, max_size=30).map("".join),
    st.integers(min_value=5000, max_value=20000),
    st.sampled_from([message_with, raw_text]),
)
def test_chunk_sizing_is_exact_across_measured_blocks(text: str, frame_limit: int, wrap) -> None:
    encoded = wrap(text)
    frames = split_message(encoded, "blocks", frame_limit=frame_limit)
    if len(encoded) > frame_limit:
        check_chunks(encoded, frames, frame_limit)


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=1, max_size=2000), st.integers(min_value=120, max_value=400))
def test_any_utf8_text_splits_on_code_points(text: str, frame_limit: int) -> None:
    encoded = text.encode()
    frames = split_message(encoded, "raw", frame_limit=frame_limit)
    assert all(len(f) <= frame_limit for f in frames)
    if len(encoded) > frame_limit:
        check_chunks(encoded, frames, frame_limit)


def test_chunk_count_crossing_a_power_of_ten_still_fits() -> None:
    # Enough slices that count needs more digits than the first sizing pass assumed.
    encoded = ("a" * 5000).encode()
    frames = split_message(encoded, "d", frame_limit=110)
    assert len(frames) >= 100
    check_chunks(encoded, frames, 110)


@pytest.mark.parametrize("bad", [b"\xff" * 300, b"\x80" * 300, b"a" * 150 + b"\xbf" * 150])
def test_oversized_message_that_is_not_utf8_is_refused(bad: bytes) -> None:
    with pytest.raises(ValueError):
        split_message(bad, "x", frame_limit=200)


@pytest.mark.parametrize("chunk_id", ["", "x" * 257])
def test_chunk_id_must_be_short_and_non_empty(chunk_id: str) -> None:
    with pytest.raises(ValueError, match="chunk_id"):
        split_message(b"a" * 300, chunk_id, frame_limit=200)


def test_a_frame_limit_without_room_for_data_is_refused() -> None:
    with pytest.raises(ValueError, match="no room"):
        split_message(b"a" * 300, "x", frame_limit=90)


def chunk(chunk_id: str, index: int, count: int, data: str) -> ChunkParams:
    return ChunkParams(chunk_id=chunk_id, index=index, count=count, data=data)


def test_chunks_in_any_order_and_interleaved_messages_reassemble() -> None:
    assembler = ChunkAssembler()
    assert assembler.add(chunk("a", 2, 3, "ghi")) is None
    assert assembler.add(chunk("b", 1, 2, "\U0001f600")) is None
    assert assembler.add(chunk("a", 0, 3, "abc")) is None
    assert assembler.add(chunk("b", 0, 2, "x")) == "x\U0001f600".encode()
    assert assembler.add(chunk("a", 1, 3, "def")) == b"abcdefghi"
    assert assembler.pending == 0


def test_non_chunk_frames_pass_through_unchanged() -> None:
    frame = b'{"jsonrpc":"2.0","method":"turn.started","params":{}}'
    assert ChunkAssembler().accept(frame) is frame


@pytest.mark.parametrize(
    ("second", "reason"),
    [
        (chunk("m", 0, 3, "again"), "repeated"),
        (chunk("m", 1, 4, "x"), "count"),
        (chunk("m", 3, 3, "x"), "out of range"),
        (chunk("m", -1, 3, "x"), "out of range"),
    ],
)
def test_inconsistent_chunks_are_rejected_and_drop_the_message(
    second: ChunkParams, reason: str
) -> None:
    assembler = ChunkAssembler()
    assembler.add(chunk("m", 0, 3, "abc"))
    with pytest.raises(ChunkError, match=reason):
        assembler.add(second)
    assert assembler.pending == 0
    with pytest.raises(ChunkError, match="dropped"):
        assembler.add(chunk("m", 2, 3, "xyz"))


def test_malformed_chunk_params_are_a_chunk_error() -> None:
    frame = b'{"jsonrpc":"2.0","method":"$/chunk","params":{"chunkId":"a","index":"0"}}'
    with pytest.raises(ChunkError, match="malformed"):
        ChunkAssembler().accept(frame)


def test_a_message_growing_past_the_limit_is_dropped() -> None:
    assembler = ChunkAssembler(max_message_bytes=1000)
    assembler.add(chunk("big", 0, 3, "x" * 500))
    with pytest.raises(ChunkError, match="exceeds 1000 bytes"):
        assembler.add(chunk("big", 1, 3, "x" * 500))
    assert assembler.pending == 0


def test_empty_chunks_cannot_grow_memory_without_bound() -> None:
    assembler = ChunkAssembler(max_message_bytes=10_000)
    with pytest.raises(ChunkError, match="exceeds"):
        for index in range(1000):
            assembler.add(chunk("empty", index, 10**9, ""))


def test_too_many_incomplete_messages_drop_the_oldest() -> None:
    assembler = ChunkAssembler(max_pending=2)
    assembler.add(chunk("first", 0, 2, "a"))
    assembler.add(chunk("second", 0, 2, "b"))
    assembler.add(chunk("third", 0, 2, "c"))
    assert assembler.pending == 2
    with pytest.raises(ChunkError, match="dropped message 'first'"):
        assembler.add(chunk("first", 1, 2, "a"))
    assert assembler.add(chunk("second", 1, 2, "b")) == b"bb"


@pytest.mark.parametrize("escapes", [1, 3, 9])
def test_a_few_escapes_in_a_plain_window_are_not_overlooked(escapes: int) -> None:
    encoded = ('"' * escapes + "a" * 40_000).encode()
    check_chunks(encoded, split_message(encoded, "few", frame_limit=10_000), 10_000)


def test_chunk_frames_are_the_protocols_chunk_event() -> None:
    """``ChunkParams`` (the wire's) and ``ChunkEvent`` (the protocol's, in the committed
    schema) are two structs for one wire shape: every chunk frame is a valid ``$/chunk``
    event with the same members, the longest chunk id included."""
    from panelot_host.protocol import codec, jsonrpc, registry
    from panelot_host.protocol.events import ChunkEvent

    assert CHUNK_METHOD == registry.CHUNK
    assert ChunkParams.__struct_encode_fields__ == ChunkEvent.__struct_encode_fields__
    encoded = message_with('"\u00e9\U0001f600' * 200_000)
    longest = "c" * MAX_CHUNK_ID_LENGTH
    frames = split_message(encoded, longest)
    assert len(frames) > 1
    for frame in frames:
        message = jsonrpc.decode_message(frame)
        assert isinstance(message, jsonrpc.Notification) and message.method == CHUNK_METHOD
        event = codec.decode_event(CHUNK_METHOD, message.params)
        wire = msgspec.json.decode(message.params, type=ChunkParams)
        assert msgspec.structs.asdict(event) == msgspec.structs.asdict(wire)
    with pytest.raises(ValueError, match="chunk_id"):
        split_message(encoded, longest + "c")
