"""Version skew both ways, from sessions recorded with older releases
(``tests/protocol/recorded/record.py``; docs/protocol.md, "initialize").

- An older panel against this host: each recorded session's requests, replayed against a
  real ``panelot-host serve`` of this checkout, all succeed, and every answer and event
  validates against the current schema.
- This panel against an older host: every answer and event the older host sent validates
  against the current schema, so nothing the schema requires is missing from an older host
  (the panel's own reading of those frames: extension-shim/test/recorded.test.mjs).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from tests.support.wire_client import HostProcess

import panelot_host
from panelot_host.protocol.schema import SCHEMA_PATH

RECORDED = sorted((Path(__file__).parent / "recorded").glob("*.jsonl"))
RECORDER = Path(__file__).parent / "recorded" / "record.py"
HOST_ID = "id"


def _session(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


@cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text("utf-8"))
    return loaded


def _validate(ref: dict[str, Any], instance: Any, where: str) -> None:
    schema = {**ref, "$defs": _schema()["$defs"]}
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(instance), key=str)
    assert not errors, f"{where}: {[(list(e.absolute_path), e.message) for e in errors]}"


def _validate_host_frame(frame: dict[str, Any], method_of: dict[Any, str], where: str) -> None:
    """An answer against its op's result, an event against its params, an error's data."""
    if "method" in frame:
        if "id" in frame:  # a request to the shim
            return
        event = _schema()["x-events"].get(frame["method"])
        assert event is not None, f"{where}: unknown event {frame['method']}"
        _validate(event["params"], frame.get("params"), f"{where} {frame['method']}")
    elif "result" in frame:
        method = method_of[frame["id"]]
        _validate(_schema()["x-ops"][method]["result"], frame["result"], f"{where} {method}")
    else:
        _validate({"$ref": "#/$defs/ErrorObject"}, frame["error"], f"{where} error")


def _requests(frames: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Each client request with the host's answer to it."""
    answers = {
        f["frame"]["id"]: f["frame"]
        for f in frames
        if f["dir"] == "host" and "method" not in f["frame"]
    }
    for f in frames:
        if f["dir"] == "client" and "method" in f["frame"]:
            yield f["frame"], answers[f["frame"]["id"]]


def _map_ids(recorded: Any, replayed: Any, ids: dict[str, str]) -> None:
    """Learn which host-issued ids of the replay stand for the recorded ones."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key, value in recorded.items():
            other = replayed.get(key)
            if (key == HOST_ID or key.endswith("Id")) and isinstance(value, str):
                if isinstance(other, str):
                    ids.setdefault(value, other)
            else:
                _map_ids(value, other, ids)
    elif isinstance(recorded, list) and isinstance(replayed, list):
        for a, b in zip(recorded, replayed, strict=False):
            _map_ids(a, b, ids)


def _substitute(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, dict):
        return {k: _substitute(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, ids) for v in value]
    return value


def _turns_done_before(frames: list[dict[str, Any]]) -> dict[Any, int]:
    """For each client request, how many turns had completed when it was sent."""
    done, before = 0, {}
    for f in frames:
        frame = f["frame"]
        if f["dir"] == "host" and frame.get("method") == "turn.complete":
            done += 1
        elif f["dir"] == "client" and "method" in frame:
            before[frame["id"]] = done
    return before


class _Replay:
    """The current host, driven by an older panel's recorded requests."""

    def __init__(self, host: HostProcess, frames: list[dict[str, Any]]) -> None:
        self.host = host
        self.turns_done = 0
        self.shim_answers = {
            request["method"]: answer for request, answer in self._shim_requests(frames)
        }

    @staticmethod
    def _shim_requests(frames: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Any]]:
        asked = {
            f["frame"]["id"]: f["frame"]
            for f in frames
            if f["dir"] == "host" and "method" in f["frame"] and "id" in f["frame"]
        }
        for f in frames:
            frame = f["frame"]
            if f["dir"] == "client" and "method" not in frame and frame["id"] in asked:
                yield asked[frame["id"]], frame

    def next_frame(self) -> dict[str, Any]:
        frame = self.host.next_message(timeout=20)
        if "method" in frame and "id" in frame:  # the host asks the shim: answer as recorded
            answer = self.shim_answers.get(frame["method"])
            reply = {k: v for k, v in (answer or {}).items() if k in ("result", "error")}
            if not reply:
                reply = {"error": {"code": -32601, "message": "not recorded"}}
            self.host.send_frame(
                json.dumps({"jsonrpc": "2.0", "id": frame["id"], **reply}).encode()
            )
        if frame.get("method") == "turn.complete":
            self.turns_done += 1
        return frame

    def call(self, method: str, params: Any, turns_before: int) -> dict[str, Any]:
        while self.turns_done < turns_before:  # the recorded panel waited for the turn
            self._check(self.next_frame())
        request_id = self.host.send(method, params)
        while True:
            frame = self.next_frame()
            if frame.get("id") == request_id and "method" not in frame:
                return frame
            self._check(frame)

    def _check(self, frame: dict[str, Any]) -> None:
        if "method" in frame and "id" not in frame:
            _validate_host_frame(frame, {}, "current host")


@pytest.mark.slow
@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_an_older_panels_session_succeeds_against_this_host(tmp_path: Path, path: Path) -> None:
    frames = _session(path)
    host = HostProcess(tmp_path / "home", env={"PANELOT_PROVIDER": "scripted"})
    replay, ids = _Replay(host, frames), {}
    turns_before = _turns_done_before(frames)
    try:
        for request, recorded in _requests(frames):
            if recorded.get("error", {}).get("code") == -32601:
                continue  # an op the older panel did not have (recorded for the record)
            method = request["method"]
            answer = replay.call(
                method, _substitute(request["params"], ids), turns_before[request["id"]]
            )
            assert "result" in answer, f"{method}: {answer}"
            _validate(
                _schema()["x-ops"][method]["result"], answer["result"], f"{path.stem} {method}"
            )
            _map_ids(recorded.get("result"), answer["result"], ids)
    finally:
        host.kill()


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.stem)
def test_an_older_hosts_frames_satisfy_the_current_schema(path: Path) -> None:
    frames = _session(path)
    method_of = {
        f["frame"]["id"]: f["frame"]["method"]
        for f in frames
        if f["dir"] == "client" and "method" in f["frame"]
    }
    for n, f in enumerate(frames, 2):
        if f["dir"] == "host":
            _validate_host_frame(f["frame"], method_of, f"{path.name}:{n}")


def test_sessions_of_several_older_releases_are_recorded() -> None:
    commits = {p.stem.rsplit("-", 1)[1] for p in RECORDED}
    assert len(commits) >= 3, commits
    for path in RECORDED:
        frames = _session(path)
        methods = {f["frame"].get("method") for f in frames}
        assert {"initialize", "turn.submit", "turn.complete", "thread.open"} <= methods


@pytest.mark.slow
def test_the_recorder_records_this_host_and_its_session_replays(tmp_path: Path) -> None:
    """record.py keeps working, so a release can always be recorded."""
    spec = importlib.util.spec_from_file_location("record", RECORDER)
    assert spec is not None and spec.loader is not None
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    path = record.record(None, "0000000", tmp_path)
    assert path.name == f"{panelot_host.__version__}-0000000.jsonl"
    test_an_older_hosts_frames_satisfy_the_current_schema(path)
    test_an_older_panels_session_succeeds_against_this_host(tmp_path, path)
