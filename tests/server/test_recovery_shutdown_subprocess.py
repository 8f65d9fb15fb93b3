"""stdin closed while the host waits for the shim's ``browser.resolveTarget`` on a recovered
``paused_uncertain`` run: the host settles and exits 0 (issue 11, item 9; it used to exit 1
with "Cannot operate on a closed database")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from tests.support.wire_client import HostProcess

pytestmark = pytest.mark.slow

ENV = {"PANELOT_PROVIDER": "scripted", "PANELOT_SCRIPTED": "directives"}
TARGET = {
    "tabId": 7,
    "url": "https://shop.example/cart",
    "origin": "https://shop.example",
    "title": "Cart",
}


def _initialize(proc: HostProcess) -> None:
    params = {
        "protocolVersion": 1,
        "client": {"name": "pytest", "version": "0"},
        "capabilities": {"browserTools": ["browser_click"]},
    }
    assert "result" in proc.call("initialize", params)


def _answer(proc: HostProcess, request: dict[str, Any], result: Any) -> None:
    reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
    proc.send_frame(msgspec.json.encode(reply))


def _next_host_request(proc: HostProcess, method: str) -> dict[str, Any]:
    """Read until the host asks ``method``; approve any approval on the way."""
    while True:
        message = proc.next_message(timeout=15)
        if message.get("method") == method and "id" in message:
            return message
        if message.get("method") == "browser.resolveTarget":
            _answer(proc, message, TARGET)
        elif message.get("method") == "approval.request":
            request_id = message["params"]["requestId"]
            proc.send(
                "approval.response",
                {
                    "commandId": f"a-{request_id}",
                    "requestId": request_id,
                    "decision": "allow",
                    "scope": "once",
                },
            )


def test_eof_while_recovery_asks_the_shim_exits_cleanly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = HostProcess(home, env=ENV)
    try:
        _initialize(first)
        thread_id = first.call("thread.create", {"commandId": "t"})["result"]["thread"]["id"]
        text = '[[browser_click {"ref": "e1", "tabId": 7}]] [[text done]]'
        first.send("turn.submit", {"commandId": "s", "threadId": thread_id, "text": text})
        _next_host_request(first, "browser.invoke")  # dispatched, never answered
    finally:
        first.kill()  # kill -9 with the write in flight
    second = HostProcess(home, env=ENV)
    try:
        _initialize(second)
        _next_host_request(second, "browser.resolveTarget")  # recovery's evidence: unanswered
        second.close_stdin()
        assert second.wait(5) == 0, second.stderr_text()
    finally:
        second.kill()
    third = HostProcess(home, env=ENV)
    try:
        third.call("initialize", {"protocolVersion": 1, "client": {"name": "p", "version": "0"}})
        opened = third.call("thread.open", {"threadId": thread_id})["result"]
        call = next(i for i in opened["items"] if i["kind"] == "toolCall")
        assert call["status"] == "uncertain" and opened["run"]["state"] == "paused_uncertain"
    finally:
        third.kill()
