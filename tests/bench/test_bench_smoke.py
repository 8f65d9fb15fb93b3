"""Each host benchmark runs (the long ones in their ``--quick`` form), exits 0 and prints
its figures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = {
    "bench_cold_start.py": ["cold start (python -m panelot_host serve, fresh PANELOT_HOME)"],
    "bench_store.py": ["thread.list first page via DirectTransport", "thread.open"],
    "bench_engine.py": ["durable tool steps per second", "SQLite COMMITs per tool step"],
    "bench_memory.py": ["peak RSS, thread.open", "peak RSS, thread.open + one more turn"],
    # the extension in real Chromium (tests/e2e's harness)
    "bench_shim_roundtrip.py": ["thread.list round trip, median"],
    "bench_shim_stream.py": ["delta latency to the panel DOM, p95", "longest panel main-thread"],
    "bench_shim_memory.py": ["worker JS heap after GC", "worker tables after the turns"],
    "bench_context.py": [
        "input tokens sent",
        "prefix shared with the previous request",
        "build a request's context, next request",
    ],
    "bench_composer_layout.py": ["composer layout, "],
    "bench_nesting.py": [
        "pre-check of a crafted 39 KiB frame, with id",
        "pre-check of a crafted 39 KiB frame, no id",
        "pre-check of a valid 39 KiB frame of empty arrays",
    ],
    "bench_panel.py": ["-item thread: last item in the DOM", "frame interval p95", "deltas: delta"],
    "bench_miniwob.py": ["MiniWoB++ episodes solved", "MiniWoB++ seconds per episode"],
    "bench_parallel.py": ["1 thread at once, wall time", "2 threads at once, wall time"],
    "bench_capture.py": [
        "frames stored per 20-action turn",
        "20-action turn with capture, wall time",
    ],
    "bench_workflow.py": [
        "replay of the 11-step task, model calls",
        "replay of the 11-step task, wall time",
        "cosmetic looks completed without the model",
    ],
    "bench_snapshot.py": [
        "browser_snapshot, 10,000-element page, median",
        "browser_snapshot tokens, 10,000-element page",
        "browser_snapshot vs aria_snapshot tokens",
    ],
}
ROWS = {
    "bench_codec.py": ["encode framed events/s", "decode op requests/s", "decode vs params alone"],
    "bench_gatekeeper.py": ["validation + Gatekeeper decision: median", "baseline (dict lookup"],
    "bench_wire.py": ["decode 200k small frames, 4 KiB feeds", "baseline: bare struct"],
    "bench_sse.py": ["SSEParser + Anthropic decoder", "baseline: httpx aiter_lines"],
}
QUICK = {"bench_codec.py"}  # of ROWS: the others are short enough to run whole


# the browser benchmarks start Chromium and load a 10,000-element page: on a loaded 2-core
# machine a quick run took over 120 s (pytest's default bound); the bound catches hangs
RUN_BOUND_S = 300


def _run(script: str, *args: str) -> list[str]:
    """The script's stdout lines; it must exit 0."""
    env = {k: v for k, v in os.environ.items() if k not in ("PANELOT_HOME", "PYTHONPATH")}
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=RUN_BOUND_S,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


@pytest.mark.slow
@pytest.mark.timeout(RUN_BOUND_S + 30)
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_quick_run_prints_its_figures(script: str) -> None:
    lines = _run(script, "--quick")
    figures = [line for line in lines if line.startswith("FIGURE ")]
    for name in SCRIPTS[script]:
        assert any(name in line for line in figures), (name, lines)
    assert all(("MET" in line or "MISSED" in line) for line in figures if "| target " in line)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(ROWS))
def test_table_benchmarks_print_their_rows(script: str) -> None:
    lines = _run(script, *(["--quick"] if script in QUICK else []))
    for row in ROWS[script]:
        assert any(line.startswith(row) for line in lines), (row, lines)
