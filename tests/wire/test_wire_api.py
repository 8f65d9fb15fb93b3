import panelot_host.wire as wire
from panelot_host.errors import PanelotError, TooLarge


def test_public_surface_is_pinned() -> None:
    assert sorted(wire.__all__) == [
        "CHUNK_METHOD",
        "ChunkAssembler",
        "ChunkError",
        "ChunkNotification",
        "ChunkParams",
        "FrameDecoder",
        "FrameError",
        "FrameErrorCode",
        "FrameTooLarge",
        "HEADER_SIZE",
        "MAX_INBOUND_FRAME",
        "MAX_OUTBOUND_FRAME",
        "decode_frames",
        "encode_frame",
        "encode_frames",
        "frame_header",
        "split_message",
    ]
    for name in wire.__all__:
        assert getattr(wire, name) is not None


def test_limits_are_chromes() -> None:
    assert wire.MAX_OUTBOUND_FRAME == 1_048_576
    assert wire.MAX_INBOUND_FRAME == 64 * 1_048_576


def test_wire_exceptions_belong_to_the_one_tree() -> None:
    assert issubclass(wire.FrameTooLarge, TooLarge)
    assert wire.FrameTooLarge.kind == "too_large"
    assert issubclass(wire.ChunkError, PanelotError)
