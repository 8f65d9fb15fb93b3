"""What the host imports to answer ``initialize`` and a first ``thread.list``: the wire,
the protocol, the store and the prelude, no event loop and no server (``server.prelude``),
and by the time the server has served on, never the engine's heavy dependencies (the cold
start is measured in ``bench/bench_cold_start.py``; this pins what it is made of)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from panelot_host.protocol.codec import encode_request
from panelot_host.server.prelude import NEXT_REQUEST_WAIT_S
from panelot_host.wire.framing import encode_frame

pytestmark = pytest.mark.slow

# The real serve path (``panelot-host serve``), noting what was imported when the prelude
# handed over, and with the server's warm-up (which builds the engine once the first
# answers are out) held back so that it cannot race the check.
_PROBE = """
import gc, sys
from panelot_host.msgspec_import import import_msgspec_without_typing_extensions
import_msgspec_without_typing_extensions()  # as the serve path does first
import msgspec  # not json: the check is that the serve path does not import it
import panelot_host.server.prelude as prelude
answer_first_requests = prelude.answer_first_requests
at_handover = []

def noting_what_was_imported(*args):
    handover = answer_first_requests(*args)
    at_handover.extend(sorted(sys.modules))
    import panelot_host.server.host as host
    host.WARM_UP_DELAY_S = 3600.0  # the server's warm-up, held back
    return handover

prelude.answer_first_requests = noting_what_was_imported
from panelot_host.cli.main import main
status = main(["serve"])
seen = {
    "modules": sorted(sys.modules),
    "at_handover": at_handover,
    "gc": gc.isenabled(),
    "frozen": gc.get_freeze_count(),
}
with open(sys.argv[1], "wb") as listing:
    listing.write(msgspec.json.encode(seen))
sys.exit(status)
"""

_HEAVY = {
    # third-party packages the engine, tools and providers need, the host's start does not
    "httpx",
    "httpcore",
    "pydantic",
    "pydantic_core",
    "jsonschema",
    "referencing",
    "mcp",
    "keyring",
    "cryptography",
    "platformdirs",
    # stdlib modules the start-up path used to import for little
    "argparse",
    "json",
    "hashlib",
    "tempfile",
    "zipfile",
    "importlib.resources",
    "shlex",  # only a version refusal words the upgrade command (upgrade_route)
}
_NOT_BEFORE_THE_FIRST_ANSWERS = {
    # the event loop and what only the server needs
    "anyio",
    "asyncio",
    "sniffio",
    "concurrent.futures",
    # the log file's rotation (socket, pickle), and what msgspec needs not (msgspec_import)
    "logging.handlers",
    "socket",
    "typing_extensions",
    "inspect",
}
_SERVER_PARTS = (
    "panelot_host.server.host",
    "panelot_host.server.connection",
    "panelot_host.server.routes",
    "panelot_host.server.native",
    "panelot_host.wire.stdio",
    "panelot_host.engine.threads",
    "panelot_host.engine.commands",
)
_LATER_PARTS = (
    "panelot_host.providers",
    "panelot_host.gatekeeper",
    "panelot_host.credentials",
    "panelot_host.tools.registry",
    "panelot_host.tools.builtin",
    "panelot_host.tools.browser",
    "panelot_host.tools.mcp",
    "panelot_host.engine.core",
    "panelot_host.engine.loop",
)


def _frames() -> bytes:
    init = {"protocolVersion": 1, "client": {"name": "test", "version": "0"}}
    return b"".join(
        encode_frame(encode_request(i, method, params))
        for i, method, params in ((1, "initialize", init), (2, "thread.list", {"limit": 50}))
    )


def _read_answer(stdout: IO[bytes], request_id: int) -> dict[str, object]:
    while True:
        (length,) = struct.unpack("=I", stdout.read(4))
        message: dict[str, object] = json.loads(stdout.read(length))
        if message.get("id") == request_id:
            return message


def test_initialize_and_a_first_thread_list_import_no_heavy_module(tmp_path: Path) -> None:
    listing = tmp_path / "modules.txt"
    env = {**os.environ, "PANELOT_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        [sys.executable, "-c", _PROBE, str(listing)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_frames())
        proc.stdin.flush()
        answers = [_read_answer(proc.stdout, 1), _read_answer(proc.stdout, 2)]
        time.sleep(NEXT_REQUEST_WAIT_S * 6)  # the prelude hands over: the server loads
        _, err = proc.communicate(timeout=60)  # stdin EOF: the host settles and exits
    finally:
        proc.kill()
    assert proc.returncode == 0, err.decode(errors="replace")
    assert all("result" in answer for answer in answers)
    seen = json.loads(listing.read_text(encoding="utf-8"))
    modules = set(seen["modules"])
    heavy = {m for m in modules if m in _HEAVY or m.split(".")[0] in _HEAVY}
    assert heavy == set()
    assert sorted(m for m in modules if m.startswith(_LATER_PARTS)) == []
    # the prelude answered both before the event loop or the server was imported; the
    # server loaded after the handover
    first = set(seen["at_handover"])
    assert first and first < modules and "anyio" in modules
    assert sorted(first & _NOT_BEFORE_THE_FIRST_ANSWERS) == []
    assert sorted(m for m in first if m.startswith(_SERVER_PARTS)) == []
    # no collection ran while the serve path was imported; what it imported was frozen
    # and collection is on again for everything after
    assert seen["gc"] is True and seen["frozen"] > 10_000
