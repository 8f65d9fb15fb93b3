"""Wire throughput: run with `.venv/bin/python bench/bench_wire.py`.

Frame decoding (one feed, and 4 KiB feeds as a pipe delivers them) against a naive
reference measured in the same run: a bare ``struct.unpack_from`` loop over the same
stream, with none of the decoder's bounds, resynchronisation or incremental buffering.
``$/chunk`` splitting of a 10 MB message against ``msgspec.json.encode`` of the same
text (what producing the chunks' JSON must at least cost).
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable

import msgspec

from panelot_host.wire import FrameDecoder, encode_frames, split_message


def timed(label: str, work: Callable[[], object], megabytes: float) -> None:
    started = time.perf_counter()
    work()
    elapsed = time.perf_counter() - started
    print(f"{label:<44} {elapsed * 1000:8.1f} ms {megabytes / elapsed:8.1f} MB/s")


def main() -> None:
    small = encode_frames(
        [b'{"jsonrpc":"2.0","method":"item.delta","params":{"i":%d}}' % i for i in range(200_000)]
    )
    timed(
        "decode 200k small frames, one feed", lambda: FrameDecoder().feed(small), len(small) / 1e6
    )

    def in_pieces() -> None:
        decoder = FrameDecoder()
        for k in range(0, len(small), 4096):
            decoder.feed(small[k : k + 4096])

    timed("decode 200k small frames, 4 KiB feeds", in_pieces, len(small) / 1e6)
    timed("baseline: bare struct.unpack_from loop", lambda: _naive_frames(small), len(small) / 1e6)
    for name, text in [("plain", "abc def " * 1_250_000), ("all quotes", '"' * 5_000_000)]:
        message = msgspec.json.encode({"t": text})
        timed(
            f"split 10 MB message ({name})",
            lambda m=message: split_message(m, "b"),
            len(message) / 1e6,
        )
        timed(
            f"baseline: msgspec.json.encode of it ({name})",
            lambda t=text: msgspec.json.encode(t),
            len(message) / 1e6,
        )


def _naive_frames(stream: bytes) -> list[bytes]:
    unpack = struct.Struct("=I").unpack_from
    frames, at = [], 0
    while at < len(stream):
        (size,) = unpack(stream, at)
        frames.append(stream[at + 4 : at + 4 + size])
        at += 4 + size
    return frames


if __name__ == "__main__":
    main()
