"""Nesting pre-check on the crafted frames of issue 25 against ``json.loads`` of a valid frame.

Run: .venv/bin/python bench/bench_nesting.py [--quick] [--sizes 39,156,1024] [--repeat 3]

The crafted frame: a JSON-RPC request whose ``params`` hold a string that never ends, made
of ``\\"`` runs, followed by ``MAX_DEPTH + 1`` brackets (so the scan must run), with or
without an ``id`` before it. Measured: ``protocol.decode_message`` on it, i.e. what the
host runs on the event loop for such a frame (the nesting pre-check, which refuses it, and
reading its id). Baseline, same run: ``json.loads`` of a valid frame of the same size (the
same runs in a string that ends). Before issue 25 the pre-check was quadratic on such text
(5.5 s at 39 KiB, 89 s at 156 KiB). Also printed, for each size: the pre-check of a valid
frame holding as many brackets as it can (``[],`` repeated, so every token is scanned)
against ``json.loads`` of that frame. Each figure is the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from _common import figure, header
from panelot_host.errors import InvalidRequest
from panelot_host.protocol import decode_message
from panelot_host.protocol.nesting import MAX_DEPTH, nests_deeper_than


def crafted(size: int, *, with_id: bool) -> bytes:
    head = b'{"jsonrpc":"2.0",' + (b'"id":7,' if with_id else b"") + b'"method":"thread.list",'
    head += b'"params":{"query":"'
    tail = b"[" * (MAX_DEPTH + 1)
    return head + b'\\"' * ((size - len(head) - len(tail)) // 2) + tail


def valid(size: int) -> bytes:
    head = b'{"jsonrpc":"2.0","id":7,"method":"thread.list","params":{"query":"'
    tail = b'"}}'
    return head + b'\\"' * ((size - len(head) - len(tail)) // 2) + tail


def dense(size: int) -> bytes:
    head = b'{"jsonrpc":"2.0","id":7,"method":"thread.list","params":{"query":['
    return head + b"[]," * ((size - len(head) - 5) // 3) + b"[]]}}"


def refuse(frame: bytes) -> None:
    try:
        decode_message(frame)
    except InvalidRequest:
        return
    raise AssertionError("the crafted frame was not refused")


def best_ms(work: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small frame, for the smoke test")
    parser.add_argument("--sizes", default="39,156,1024", help="frame sizes in KiB")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    sizes = [39] if options.quick else [int(kib) for kib in options.sizes.split(",")]
    header("Nesting pre-check on crafted frames (issue 25)", options.quick)
    for kib in sizes:
        baseline_frame = valid(kib * 1024)
        baseline = best_ms(lambda f=baseline_frame: json.loads(f), options.repeat)
        for with_id in (True, False):
            frame = crafted(kib * 1024, with_id=with_id)
            assert abs(len(frame) - len(baseline_frame)) < 4
            spent = best_ms(lambda f=frame: refuse(f), options.repeat)
            figure(
                f"pre-check of a crafted {kib:,} KiB frame, {'with' if with_id else 'no'} id",
                spent,
                "ms",
                baseline=baseline,
                baseline_name="json.loads of a valid frame of that size",
            )
        frame = dense(kib * 1024)
        figure(
            f"pre-check of a valid {kib:,} KiB frame of empty arrays",
            best_ms(lambda f=frame: nests_deeper_than(f), options.repeat),
            "ms",
            baseline=best_ms(lambda f=frame: json.loads(f), options.repeat),
            baseline_name="json.loads of it",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
