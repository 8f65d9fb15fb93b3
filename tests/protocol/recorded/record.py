"""Record one short session with a real ``panelot-host serve``, every frame both ways.

The session is the one the extension runs (the worker's ``initialize`` and ``thread.list``,
the panel's ``provider.status``, ``settings.get``, ``permissions.list``, ``thread.create``,
``thread.open``, ``turn.submit`` with its events streamed to ``turn.complete``, and so on),
against the scripted echo model (``PANELOT_PROVIDER=scripted``) in a temporary
``PANELOT_HOME``. It writes ``<host version>-<commit>.jsonl`` beside this file: a header
line, then one line per frame, ``{"dir": "client" | "host", "frame": {...}}``.

Record an older release the same way, from a checkout of its ``host/`` folder:

    git archive <commit> host | tar -x -C /tmp/old
    python tests/protocol/recorded/record.py --pythonpath /tmp/old/host --commit <commit>

It imports nothing of ``panelot_host``, so it runs against any release; a request the host
does not know is recorded with its error (the replay tests skip those).
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
_HEADER = struct.Struct("=I")
PROFILE = "recorded"
TIMEOUT_S = 20.0


class Recorder:
    """A native-messaging client of a host subprocess that keeps every frame."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.frames: list[dict[str, Any]] = []
        self.next_id = 0
        self.tool_answers: dict[str, Any] = {}

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.frames.append({"dir": "client", "frame": message})
        data = json.dumps(message, separators=(",", ":")).encode()
        self.proc.stdin.write(_HEADER.pack(len(data)) + data)
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        header = self.proc.stdout.read(4)
        if len(header) < 4:
            raise RuntimeError("the host closed stdout")
        (length,) = _HEADER.unpack(header)
        message: dict[str, Any] = json.loads(self.proc.stdout.read(length))
        self.frames.append({"dir": "host", "frame": message})
        if "method" in message and message.get("id") is not None:
            self._answer_host_request(message)
        return message

    def _answer_host_request(self, request: dict[str, Any]) -> None:
        # a shim without tabs: no thread owns a tab; anything else is not served here
        if request["method"] == "browser.threadTabs":
            answer: dict[str, Any] = {"result": {"tabs": []}}
        else:
            answer = {"error": {"code": -32601, "message": "not served by the recorder"}}
        self.send({"jsonrpc": "2.0", "id": request["id"], **answer})

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        request_id = self.next_id
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            message = self.receive()
            if message.get("id") == request_id and "method" not in message:
                return message
        raise RuntimeError(f"no answer to {method}")

    def until_event(self, method: str, **match: Any) -> dict[str, Any]:
        while True:
            message = self.receive()
            params = message.get("params") or {}
            if message.get("method") == method and all(
                params.get(k) == v for k, v in match.items()
            ):
                return message


def session(rec: Recorder) -> None:
    """The extension's session: what its worker and one panel send, in order."""
    rec.call(
        "initialize",
        {
            "protocolVersion": 1,
            "client": {"name": "panelot-extension", "version": "0.1.0", "profileId": PROFILE},
            "capabilities": {"browserTools": []},
        },
    )
    rec.call("thread.list", {"limit": 200})  # the worker's toolbar badge
    rec.call("provider.status", {})
    rec.call("thread.list", {"limit": 50})
    rec.call("settings.get", {})
    rec.call("permissions.list", {})
    thread = rec.call("thread.create", {"commandId": "rec-create"})["result"]["thread"]
    thread_id = thread["id"]
    rec.call("thread.open", {"threadId": thread_id})
    for n, text in enumerate(("Hello, recorded session", "And a second message"), 1):
        turn = rec.call(
            "turn.submit", {"commandId": f"rec-submit-{n}", "threadId": thread_id, "text": text}
        )
        rec.until_event("turn.complete", turnId=turn["result"]["turnId"])
        rec.call("thread.list", {"limit": 50})
    rec.call("thread.open", {"threadId": thread_id})
    rec.call("thread.list", {"limit": 50, "query": "recorded"})
    rec.call("thread.rename", {"commandId": "rec-rename", "threadId": thread_id, "title": "Kept"})
    rec.call("settings.update", {"commandId": "rec-settings", "defaultTokenBudget": 50_000})
    rec.call("settings.get", {})
    other = rec.call("thread.create", {"commandId": "rec-create-2"})["result"]["thread"]
    rec.call("thread.delete", {"commandId": "rec-delete", "threadId": other["id"]})
    rec.call("thread.open", {"threadId": thread_id})


def host_version(env: dict[str, str]) -> str:
    code = "import panelot_host; print(panelot_host.__version__)"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def record(pythonpath: Path | None, commit: str, out_dir: Path) -> Path:
    """Run the session against the host found on ``pythonpath`` (else this checkout's)."""
    with tempfile.TemporaryDirectory(prefix="panelot-record-") as home:
        env = {**os.environ, "PANELOT_HOME": home, "PANELOT_PROVIDER": "scripted"}
        for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "PANELOT_SCRIPTED"):
            env.pop(key, None)
        if pythonpath is not None:
            env["PYTHONPATH"] = str(pythonpath)
        version = host_version(env)
        proc = subprocess.Popen(
            [sys.executable, "-m", "panelot_host", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        rec = Recorder(proc)
        try:
            session(rec)
        finally:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(10)
    path = out_dir / f"{version}-{commit}.jsonl"
    header = {"hostVersion": version, "commit": commit, "frames": len(rec.frames)}
    lines = [json.dumps({"recorded": header})]
    lines += [json.dumps(frame, ensure_ascii=False, sort_keys=True) for frame in rec.frames]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pythonpath", type=Path, help="an older release's host/ folder")
    parser.add_argument("--commit", help="the commit recorded (default: this checkout's HEAD)")
    parser.add_argument("--out", type=Path, default=HERE, help="where to write (default: here)")
    options = parser.parse_args(argv)
    commit = (
        options.commit
        or subprocess.run(
            ["git", "rev-parse", "--short=7", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
    )
    print(record(options.pythonpath, commit[:7], options.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
