"""Cold start: spawn ``panelot-host serve`` -> the ``initialize`` response.

Run: .venv/bin/python bench/bench_cold_start.py [--quick] [--runs N]

The initialize frame is written right after the spawn; the clock runs from just before
``Popen`` to the moment the whole response frame is read. Median of N runs for each of:
``python -m panelot_host serve``, the venv's ``panelot-host serve`` and the installer's
wrapper as Chrome starts it (``/bin/sh`` running ``python -I -m panelot_host
chrome-extension://<id>/``), each
with a fresh PANELOT_HOME per run (creates and migrates the database) and warm (an existing
database). Baseline in the same run: ``python -c pass`` (spawn -> exit). Targets: median
<= 150 ms, and spawn -> ``initialize`` answered and spawn -> first ``thread.list``
answered each <= 6x the baseline (both are answered by the prelude, ``server.prelude``).
Also in the same run: the floor under the prelude's answers (spawn, import msgspec as the
host does, without typing_extensions, then sqlite3, logging and pathlib, garbage
collection off meanwhile), the
event-loop floor the server stands on (import anyio, msgspec and sqlite3, run an anyio
loop: what answering from the server could not beat), and the prelude's imports alone.
Then a ``-X importtime`` list of the serve path (initialize, then stdin EOF), top 15 by
cumulative and by self time: what to make lazy.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import panelot_host
from _common import INIT_PARAMS, figure, header, median, p90, python_env, venv_script
from panelot_host.install.manifest import PINNED_EXTENSION_ID, extension_origin
from panelot_host.install.wrapper import write_wrapper
from panelot_host.protocol.codec import encode_request
from panelot_host.wire.framing import encode_frame

TARGET_MS = 150.0
TARGET_RATIO = 6.0
_MSGSPEC_AS_THE_HOST = (  # without typing_extensions (panelot_host.msgspec_import)
    "from panelot_host.msgspec_import import import_msgspec_without_typing_extensions as first; "
    "first(); "
)
PRELUDE_FLOOR = (  # what the prelude's answers stand on; collection off, as the host does
    "import gc; gc.disable(); " + _MSGSPEC_AS_THE_HOST + "import msgspec, sqlite3, logging, "
    "pathlib; gc.freeze(); gc.enable()"
)
EVENT_LOOP_FLOOR = (  # what the server stands on: answering from it could not beat this
    "import gc; gc.disable(); import anyio, msgspec, sqlite3; gc.freeze(); gc.enable(); "
    "anyio.run(anyio.sleep, 0)"
)
_HEADER = struct.Struct("=I")


def _request_frame(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    return encode_frame(encode_request(request_id, method, params))


ORIGIN = extension_origin(PINNED_EXTENSION_ID)
INIT_FRAME = _request_frame(1, "initialize", INIT_PARAMS)
LIST_FRAME = _request_frame(2, "thread.list", {"limit": 50})


def _read_exact(stream: object, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))  # type: ignore[attr-defined]
        if not chunk:
            raise RuntimeError(f"host closed stdout after {len(data)} of {size} bytes")
        data += chunk
    return data


def _read_reply(stream: object, request_id: int) -> dict[str, object]:
    """The response to ``request_id`` (skipping notifications)."""
    while True:
        (length,) = _HEADER.unpack(_read_exact(stream, 4))
        message: dict[str, object] = json.loads(_read_exact(stream, length))
        if message.get("id") == request_id and "method" not in message:
            return message


def time_initialize(cmd: list[str], home: Path) -> tuple[float, float]:
    """Seconds from spawn to the initialize response frame, and to a first ``thread.list``.

    The ``thread.list`` request is written once the initialize response is read (the time
    to the first useful answer: work deferred past ``initialize`` shows up there).
    Then stdin EOF and exit.
    """
    env = {**python_env(), "PANELOT_HOME": str(home), "PANELOT_ALLOWED_ORIGINS": ORIGIN}
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INIT_FRAME)
    proc.stdin.flush()
    reply = _read_reply(proc.stdout, 1)
    elapsed = time.perf_counter() - start
    proc.stdin.write(LIST_FRAME)
    proc.stdin.flush()
    listed = _read_reply(proc.stdout, 2)
    first_op = time.perf_counter() - start
    _, err = proc.communicate(timeout=10)  # closes stdin: the host settles and exits
    if "result" not in reply or "result" not in listed:
        raise RuntimeError(f"failed: {reply} {listed} stderr={err.decode(errors='replace')}")
    return elapsed, first_op


PRELUDE_IMPORTS = (
    "import gc; gc.disable(); " + _MSGSPEC_AS_THE_HOST + "import panelot_host.cli.main, "
    "panelot_host.cli.config, "
    "panelot_host.cli.logs, panelot_host.server.prelude, panelot_host.wire.blocking, "
    "panelot_host.wire.fds"
)


def byte_compile_host() -> None:
    """Write the package's ``.pyc`` files, as ``pip install`` does: with
    ``PYTHONDONTWRITEBYTECODE`` set (as on the shared machines) an edited or fresh checkout
    would otherwise compile its changed modules again at every spawn."""
    compileall.compile_dir(Path(panelot_host.__file__).parent, quiet=1)


def time_python(code: str = "pass") -> float:
    """Seconds to spawn ``python -c code`` and see it exit."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=python_env())
    return time.perf_counter() - start


def importtime(
    cmd: list[str], home: Path, frames: bytes = INIT_FRAME
) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """One serve run under ``-X importtime``: module -> (self us, cumulative us, depth)."""
    env = {**python_env(), "PANELOT_HOME": str(home), "PYTHONPROFILEIMPORTTIME": "1"}
    proc = subprocess.run(cmd, input=frames, capture_output=True, env=env, timeout=30, check=False)
    self_us: dict[str, int] = {}
    cumulative: dict[str, int] = {}
    depth: dict[str, int] = {}
    for line in proc.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        _, rest = line.split(":", 1)
        own, cum, name = rest.split("|", 2)
        module = name.rstrip()
        stripped = module.lstrip()
        self_us[stripped] = int(own)
        cumulative[stripped] = int(cum)
        depth[stripped] = (len(module) - len(stripped)) // 2
    return self_us, cumulative, depth


def print_importtime(cmd: list[str], runs: int) -> None:
    selfs: dict[str, list[int]] = defaultdict(list)
    cums: dict[str, list[int]] = defaultdict(list)
    depth: dict[str, int] = {}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="panelot-bench-") as tmp:
            s, c, d = importtime(cmd, Path(tmp))
        for name, value in s.items():
            selfs[name].append(value)
        for name, value in c.items():
            cums[name].append(value)
        depth.update(d)
    total = sum(median(v) for v in selfs.values()) / 1000
    ours = sum(median(v) for k, v in selfs.items() if k.startswith("panelot_host")) / 1000
    print(
        f"\n-X importtime of `{' '.join(cmd[-3:])}` (initialize, then stdin EOF), median of "
        f"{runs} run(s): {len(selfs)} modules, {total:.1f} ms of imports in all "
        f"(panelot_host's own modules: {ours:.1f} ms self)"
    )
    print("top 15 by cumulative time (ms; depth 0 = imported directly by the serve path):")
    ranked = sorted(cums, key=lambda k: median(cums[k]), reverse=True)
    for name in ranked[:15]:
        print(
            f"  {median(cums[name]) / 1000:7.1f}  self {median(selfs[name]) / 1000:5.1f}"
            f"  depth {depth[name]}  {name}"
        )
    print("top 15 by self time (ms):")
    for name in sorted(selfs, key=lambda k: median(selfs[k]), reverse=True)[:15]:
        print(f"  {median(selfs[name]) / 1000:7.1f}  {name}")
    groups: dict[str, float] = defaultdict(float)
    for name, values in selfs.items():
        parts = name.split(".")
        top = ".".join(parts[:2]) if parts[0] == "panelot_host" else parts[0]
        groups[top] += median(values) / 1000
    print("top 15 packages by summed self time (ms; panelot_host split by subpackage):")
    for name in sorted(groups, key=lambda k: groups[k], reverse=True)[:15]:
        print(f"  {groups[name]:7.1f}  {name}")
    later_self: dict[str, list[int]] = defaultdict(list)
    later_cum: dict[str, list[int]] = defaultdict(list)
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="panelot-bench-") as tmp:
            s, c, _ = importtime(cmd, Path(tmp), INIT_FRAME + LIST_FRAME)
        for name in s.keys() - selfs.keys():
            later_self[name].append(s[name])
            later_cum[name].append(c[name])
    later_total = sum(median(v) for v in later_self.values()) / 1000
    print(
        f"imported after that, up to the first thread.list answer: {len(later_self)} more "
        f"modules, {later_total:.1f} ms self; top 15 by cumulative (ms):"
    )
    for name in sorted(later_cum, key=lambda k: median(later_cum[k]), reverse=True)[:15]:
        print(
            f"  {median(later_cum[name]) / 1000:7.1f}  self "
            f"{median(later_self[name]) / 1000:5.1f}  {name}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 runs each, for the smoke test")
    parser.add_argument("--runs", type=int, default=15)
    options = parser.parse_args()
    runs = 2 if options.quick else options.runs
    header("Cold start: spawn panelot-host serve -> initialize response", options.quick)

    commands: dict[str, list[str]] = {
        "python -m panelot_host serve": [sys.executable, "-m", "panelot_host", "serve"]
    }
    script = venv_script("panelot-host")
    if script is not None:
        commands["panelot-host serve (venv script)"] = [str(script), "serve"]
    else:
        print("note: no panelot-host script next to the interpreter; measuring python -m only")

    byte_compile_host()
    root = Path(tempfile.mkdtemp(prefix="panelot-bench-cold-"))
    # what Chrome runs: the installer's wrapper (/bin/sh, then python -I -m panelot_host)
    # with the extension's origin
    wrapper = write_wrapper(root / "bin", Path(os.path.abspath(sys.executable)))
    commands["installed wrapper, as Chrome starts it"] = [str(wrapper), ORIGIN]
    try:
        warm_homes: dict[str, Path] = {}
        for label, cmd in commands.items():
            warm_homes[label] = root / f"warm-{len(warm_homes)}"
            time_initialize(cmd, warm_homes[label])  # creates the database; also warms caches
        time_python()
        results: dict[str, list[float]] = defaultdict(list)
        first_op: dict[str, list[float]] = defaultdict(list)
        baseline: list[float] = []
        imports_only: list[float] = []
        floor: list[float] = []
        loop_floor: list[float] = []
        for run in range(runs):  # interleaved, so machine noise spreads over every series
            baseline.append(time_python())
            imports_only.append(time_python(PRELUDE_IMPORTS))
            floor.append(time_python(PRELUDE_FLOOR))
            loop_floor.append(time_python(EVENT_LOOP_FLOOR))
            for label, cmd in commands.items():
                fresh = root / f"fresh-{run}-{len(results)}"
                init_s, first_s = time_initialize(cmd, fresh)
                results[f"{label}, fresh PANELOT_HOME"].append(init_s)
                first_op[f"{label}, fresh PANELOT_HOME"].append(first_s)
                shutil.rmtree(fresh, ignore_errors=True)
                init_s, first_s = time_initialize(cmd, warm_homes[label])
                results[f"{label}, warm database"].append(init_s)
                first_op[f"{label}, warm database"].append(first_s)
        base_ms = median(baseline) * 1000
        print(f"runs: {runs} per series (interleaved); baseline p90 {p90(baseline) * 1000:.1f} ms")
        for label, values in results.items():
            ms = median(values) * 1000
            figure(
                f"cold start ({label}) median",
                ms,
                "ms",
                baseline=base_ms,
                baseline_name="python -c pass",
                target=f"<= {TARGET_MS:.0f} ms and <= {TARGET_RATIO:.0f}x baseline",
                met=ms <= TARGET_MS and ms <= TARGET_RATIO * base_ms,
                extra=f"p90 {p90(values) * 1000:.1f} ms, min {min(values) * 1000:.1f} ms, "
                f"over baseline +{ms - base_ms:.1f} ms",
            )
        for label, values in first_op.items():
            ms = median(values) * 1000
            figure(
                f"spawn -> initialize -> first thread.list answered ({label}) median",
                ms,
                "ms",
                baseline=base_ms,
                baseline_name="python -c pass",
                target=f"<= {TARGET_RATIO:.0f}x baseline",
                met=ms <= TARGET_RATIO * base_ms,
                extra=f"p90 {p90(values) * 1000:.1f} ms",
            )
        for name, code, values in (
            ("floor: spawn + import msgspec, sqlite3, logging, pathlib", PRELUDE_FLOOR, floor),
            (
                "event-loop floor: spawn + import anyio, msgspec, sqlite3 + run an anyio loop",
                EVENT_LOOP_FLOOR,
                loop_floor,
            ),
            ("breakdown: spawn + the prelude's module imports only", PRELUDE_IMPORTS, imports_only),
        ):
            ms = median(values) * 1000
            figure(
                f"{name}, then exit",
                ms,
                "ms",
                baseline=base_ms,
                baseline_name="python -c pass",
                extra=f"(`python -c '{code}'`; p90 {p90(values) * 1000:.1f} ms)",
            )
        print_importtime(commands["python -m panelot_host serve"], 1 if options.quick else 5)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
