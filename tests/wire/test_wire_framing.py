import itertools
import struct
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from panelot_host.wire import (
    HEADER_SIZE,
    MAX_INBOUND_FRAME,
    MAX_OUTBOUND_FRAME,
    FrameDecoder,
    FrameError,
    FrameTooLarge,
    decode_frames,
    encode_frame,
    encode_frames,
)

SMALL_MAX = 1024  # a small inbound limit so random headers often exceed it

payloads = st.lists(st.binary(max_size=300), max_size=12)
json_like_payloads = st.lists(
    st.binary(max_size=200).map(lambda b: b'{"k":' + b + b"}"), min_size=1, max_size=6
)


def header(length: int) -> bytes:
    return length.to_bytes(4, sys.byteorder)


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def feed_pieces(decoder: FrameDecoder, pieces: list[bytes]) -> list[bytes | FrameError]:
    items: list[bytes | FrameError] = []
    for piece in pieces:
        items.extend(decoder.feed(piece))
    items.extend(decoder.eof())
    return items


def test_header_is_native_endian_uint32() -> None:
    frame = encode_frame(b'{"a":1}')
    assert frame[:4] == struct.pack("=I", 7)
    assert frame[:4] == (7).to_bytes(4, sys.byteorder)
    assert frame[4:] == b'{"a":1}'


def test_outbound_frame_of_exactly_1_mib_is_allowed() -> None:
    assert len(encode_frame(b"x" * MAX_OUTBOUND_FRAME)) == MAX_OUTBOUND_FRAME + HEADER_SIZE


def test_outbound_frame_over_1_mib_is_refused() -> None:
    with pytest.raises(FrameTooLarge, match="1048577"):
        encode_frame(b"x" * (MAX_OUTBOUND_FRAME + 1))


def test_a_client_may_encode_frames_up_to_the_inbound_limit() -> None:
    payload = b"x" * (MAX_OUTBOUND_FRAME + 1)
    assert encode_frame(payload, limit=MAX_INBOUND_FRAME)[4:] == payload


def test_empty_frame_is_delivered_as_is() -> None:
    assert decode_frames(header(0)) == [b""]


@settings(max_examples=150)
@given(payloads)
def test_round_trip(frames: list[bytes]) -> None:
    assert decode_frames(encode_frames(frames)) == frames


@settings(max_examples=150)
@given(payloads, st.lists(st.integers(min_value=0, max_value=4000), max_size=20))
def test_any_partition_of_the_stream_gives_the_same_frames(
    frames: list[bytes], cuts: list[int]
) -> None:
    stream = encode_frames(frames)
    assert feed_pieces(FrameDecoder(), split_at(stream, cuts)) == frames


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=2000), max_size=10))
def test_garbage_never_raises_and_never_overfills(pieces: list[bytes]) -> None:
    decoder = FrameDecoder(max_frame=SMALL_MAX)
    for piece in pieces:
        for item in decoder.feed(piece):
            assert isinstance(item, FrameError) or len(item) <= SMALL_MAX
        assert decoder.buffered <= HEADER_SIZE + SMALL_MAX
    for error in decoder.eof():
        assert error.code == "truncated_frame"
    assert decoder.buffered == 0


@settings(max_examples=150)
@given(
    st.integers(min_value=SMALL_MAX + 1, max_value=2**32 - 1),
    st.binary(max_size=500).map(lambda b: b.replace(b"{", b"")),
    json_like_payloads,
    st.lists(st.integers(min_value=0, max_value=3000), max_size=8),
)
def test_frames_after_a_bad_header_and_garbage_are_recovered(
    bad_length: int, garbage: bytes, frames: list[bytes], cuts: list[int]
) -> None:
    stream = header(bad_length) + garbage + encode_frames(frames)
    items = feed_pieces(FrameDecoder(max_frame=SMALL_MAX), split_at(stream, cuts))
    assert isinstance(items[0], FrameError)
    assert items[0].code == "frame_too_large"
    assert str(bad_length) in items[0].message
    assert items[1:] == frames


def test_absurd_length_is_reported_at_once_without_waiting_for_4_gb() -> None:
    decoder = FrameDecoder()
    items = decoder.feed(header(2**32 - 1))
    assert [i.code for i in items if isinstance(i, FrameError)] == ["frame_too_large"]
    assert decoder.resyncing
    assert decoder.buffered <= HEADER_SIZE


def test_declared_length_just_over_64_mib_is_refused_and_exactly_64_mib_is_awaited() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(header(MAX_INBOUND_FRAME))[:1] == []
    assert not decoder.resyncing
    over = FrameDecoder().feed(header(MAX_INBOUND_FRAME + 1))
    assert isinstance(over[0], FrameError) and over[0].code == "frame_too_large"


def test_resync_skips_a_brace_not_followed_by_an_object_start() -> None:
    decoy = header(5) + b"{xyz!"  # plausible length, but "{x" cannot open a JSON object
    stream = header(2**31) + decoy + encode_frame(b'{"ok":true}')
    items = decode_frames(stream, max_frame=SMALL_MAX)
    assert [type(i) for i in items] == [FrameError, bytes]
    assert items[1] == b'{"ok":true}'


def test_resync_accepts_whitespace_and_empty_objects() -> None:
    frames = [b"{ }", b"{}", b'{\n"a":1}']
    items = decode_frames(header(2**31) + encode_frames(frames), max_frame=SMALL_MAX)
    assert items[1:] == frames


def test_resync_holds_at_most_a_candidate_header_between_feeds() -> None:
    decoder = FrameDecoder(max_frame=SMALL_MAX)
    decoder.feed(header(2**31))
    for _ in range(100):
        decoder.feed(b"\xff" * 10_000)
        assert decoder.buffered <= HEADER_SIZE + 1


def test_eof_in_a_header_reports_a_truncated_frame() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(encode_frame(b"{}") + b"\x05\x00") == [b"{}"]
    [error] = decoder.eof()
    assert error.code == "truncated_frame"
    assert "header (2 of 4 bytes)" in error.message


def test_eof_in_a_payload_reports_a_truncated_frame_and_resets() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_frame(b'{"long":1}')[:-3])
    [error] = decoder.eof()
    assert error == FrameError(
        "truncated_frame", "stream ended inside a frame payload (7 of 10 bytes)"
    )
    assert decoder.buffered == 0
    assert decoder.feed(encode_frame(b"{}")) == [b"{}"]
    assert decoder.eof() == []


def test_eof_while_resyncing_adds_nothing_to_the_earlier_error() -> None:
    decoder = FrameDecoder(max_frame=SMALL_MAX)
    assert len(decoder.feed(header(2**31) + b"junk")) == 1
    assert decoder.eof() == []


def test_many_small_frames_in_one_feed_decode_in_linear_time() -> None:
    frames = [b'{"i":%d}' % i for i in range(200_000)]
    stream = encode_frames(frames)
    started = time.perf_counter()
    assert FrameDecoder().feed(stream) == frames
    assert time.perf_counter() - started < 5.0


def test_a_large_frame_fed_in_small_pieces_decodes_in_linear_time() -> None:
    payload = b"{" + b"x" * (16 * 1024 * 1024) + b"}"
    stream = encode_frame(payload, limit=MAX_INBOUND_FRAME)
    decoder = FrameDecoder()
    started = time.perf_counter()
    items = [i for k in range(0, len(stream), 4096) for i in decoder.feed(stream[k : k + 4096])]
    assert items == [payload]
    assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize("offset", [1, 2, 3])
def test_resync_finds_a_frame_starting_inside_the_bad_header(offset: int) -> None:
    frame = encode_frame(b'{"n":"' + b"x" * 100 + b'"}')
    stream = b"\xee" * offset + frame
    assert int.from_bytes(stream[:4], sys.byteorder) > SMALL_MAX
    items = decode_frames(stream, max_frame=SMALL_MAX)
    assert [type(i) for i in items] == [FrameError, bytes]
    assert items[1] == frame[4:]


def test_resync_ignores_candidates_too_short_to_be_an_object() -> None:
    stream = header(2**31) + header(1) + b'{"' + encode_frame(b'{"ok":1}')
    assert decode_frames(stream, max_frame=SMALL_MAX)[1:] == [b'{"ok":1}']
