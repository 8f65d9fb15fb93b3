"""Memory: peak RSS of opening and resuming a 10,000-item thread.

Run: .venv/bin/python bench/bench_memory.py [--quick] [--explain]

The parent seeds a profile database (one thread whose branch holds 10,000 items, as in
bench_store.py) and then runs each measurement in a fresh subprocess, so the figures are
the host's own: a ``Host`` with the scripted provider, a ``DirectTransport`` client,
``initialize`` then

- open: ``thread.open`` of the long thread;
- resume: ``thread.open``, then ``turn.submit`` of one more turn (the scripted model calls a
  no-op tool once, then answers), until ``turn.complete``.

Peak RSS is the child's ``VmHWM`` (``/proc/self/status``; ``ru_maxrss`` where /proc is
missing), with VmRSS at each stage. Baseline, same run: the peak RSS of a bare
``python -c "import panelot_host.server.host"``. Target: peak < 100 MB in both cases.
``--explain`` adds a tracemalloc run of "resume": the Python allocations alive at the peak,
by line.
"""

from __future__ import annotations

import argparse
import json
import linecache
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import (
    figure,
    header,
    profile_db_path,
    python_env,
    seed_profile,
    vm_status,
)

TARGET_MB = 100.0
HERE = Path(__file__).resolve()
PEAK_PROBE = (
    "import resource, sys\n"
    "status = open('/proc/self/status').read() if sys.platform == 'linux' else ''\n"
    "hwm = [int(l.split()[1]) for l in status.splitlines() if l.startswith('VmHWM:')]\n"
    "print(hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)


def peak_kb() -> int:
    return vm_status("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def rss_kb() -> int:
    return vm_status("VmRSS")


# ---------------------------------------------------------------- the child


def child(mode: str, home: Path, thread_id: str) -> None:
    """Runs in the measured subprocess; prints one JSON line of figures."""
    stages: dict[str, int] = {"start": rss_kb()}
    import importlib

    import anyio

    from _common import ToolSteps, scripted_host

    for module in ("panelot_host.engine.models", "panelot_host.server.host"):
        importlib.import_module(module)  # what scripted_host imports: the "imports" stage

    stages["imports"] = rss_kb()
    result: dict[str, Any] = {}

    async def main() -> None:
        async with scripted_host(home, ToolSteps(1)) as (_host, client):
            stages["initialize"] = rss_kb()
            done = anyio.Event()
            client.on_event(lambda m, p: done.set() if m == "turn.complete" else None)
            start = time.perf_counter()
            snapshot = await client.send("thread.open", {"threadId": thread_id})
            result["open_ms"] = (time.perf_counter() - start) * 1000
            result["items"] = len(snapshot["items"])
            stages["thread.open"] = rss_kb()
            if mode == "resume":
                start = time.perf_counter()
                await client.send(
                    "turn.submit",
                    {"commandId": "resume-1", "threadId": thread_id, "text": "One more check."},
                )
                with anyio.fail_after(120):
                    await done.wait()
                result["turn_ms"] = (time.perf_counter() - start) * 1000
                stages["turn.complete"] = rss_kb()
            del snapshot

    anyio.run(main)
    result["stages_kb"] = stages
    result["peak_kb"] = peak_kb()
    print(json.dumps(result))


def explain_peak(home: Path, thread_id: str) -> None:
    """tracemalloc of the resume path, snapshotting the Python heap at its largest point."""
    import tracemalloc

    import anyio

    from _common import scripted_host
    from panelot_host.engine.threads import snapshot as engine_snapshot
    from panelot_host.store import items, threads

    tracemalloc.start(4)

    async def main() -> None:
        async with scripted_host(home) as (host, _client):
            assert host.profile is not None
            conn = host.profile.db.conn
            base = tracemalloc.take_snapshot()
            head = threads.get(conn, thread_id).head_item_id
            records = items.branch(conn, head)
            snap = engine_snapshot(host.profile.db, conn, thread_id, 0)
            import msgspec

            payload = msgspec.json.encode(snap)
            decoded = msgspec.json.decode(payload)
            at_peak = tracemalloc.take_snapshot()
            sizes = {
                "records (items.branch)": len(records),
                "encoded JSON bytes": len(payload),
                "decoded dict items": len(decoded["items"]),
            }
            print(f"held at the snapshot: {sizes}")
            print("top 12 Python allocation sites alive (thread.open path, all stages held):")
            for stat in at_peak.compare_to(base, "lineno")[:12]:
                frame = stat.traceback[0]
                code = linecache.getline(frame.filename, frame.lineno).strip()[:60]
                print(
                    f"  {stat.size_diff / 1e6:7.1f} MB  {stat.count_diff:>8,} blocks  "
                    f"{Path(frame.filename).name}:{frame.lineno}  {code}"
                )

    anyio.run(main)
    _current, peak = tracemalloc.get_traced_memory()
    print(f"tracemalloc: peak {peak / 1e6:.1f} MB of Python allocations")


# ---------------------------------------------------------------- the parent


def run_child(mode: str, home: Path, thread_id: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(HERE), "--child", mode, str(home), thread_id],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"child {mode} failed: {proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def baseline_kb() -> int:
    code = "import panelot_host.server.host\n" + PEAK_PROBE
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=python_env(), check=True
    )
    return int(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the smoke test")
    parser.add_argument("--explain", action="store_true", help="add a tracemalloc breakdown")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "HOME", "THREAD"), help="internal")
    options = parser.parse_args()
    if options.child:
        mode, home, thread_id = options.child
        child(mode, Path(home), thread_id)
        return 0
    n_items = 500 if options.quick else 10_000
    header(f"Memory: peak RSS opening and resuming a {n_items:,}-item thread", options.quick)
    with tempfile.TemporaryDirectory(prefix="panelot-bench-memory-") as tmp:
        home = Path(tmp)
        thread_id = seed_profile(home, n_items)
        size = profile_db_path(home).stat().st_size
        print(f"database: {size / 1e6:.1f} MB on disk")
        base = baseline_kb() / 1024
        bare = int(
            subprocess.run(
                [sys.executable, "-c", PEAK_PROBE], capture_output=True, text=True, check=True
            ).stdout
        )
        print(f"bare `python -c pass` peak RSS: {bare / 1024:.1f} MB")
        for mode in ("open", "resume"):
            result = run_child(mode, home, thread_id)
            assert result["items"] >= n_items, result
            peak = result["peak_kb"] / 1024
            stages = ", ".join(f"{k} {v / 1024:.1f}" for k, v in result["stages_kb"].items())
            timing = f"thread.open {result['open_ms']:.0f} ms"
            if "turn_ms" in result:
                timing += f", turn {result['turn_ms']:.0f} ms"
            figure(
                f"peak RSS, {'thread.open' if mode == 'open' else 'thread.open + one more turn'}",
                peak,
                "MB",
                baseline=base,
                baseline_name="import panelot_host.server.host",
                target=f"< {TARGET_MB:.0f} MB",
                met=peak < TARGET_MB,
                extra=f"+{peak - base:.1f} MB over the baseline; VmRSS (MB) at {stages}; {timing}",
            )
        if options.explain:
            print()
            explain_peak(home, thread_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
