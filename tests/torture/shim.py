"""The extension shim the harness plays: answers ``browser.*`` and records every execution.

Tabs 1 and 2 live on two origins (the harness allows clicks on the second by policy, so
some writes run without an approval). An execution is recorded when ``browser.invoke``
arrives (the side effect may have happened even if the host dies before the answer).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import msgspec
from tests.torture.client import HostClient

BROWSER_TOOLS = ["browser_read", "browser_click", "browser_snapshot"]
WRITE_TOOLS = frozenset({"browser_click"})
ORIGINS = {1: "https://a.example", 2: "https://b.example"}


class Execution(msgspec.Struct, frozen=True):
    call_id: str
    tool: str
    kill_no: int  # the round (process lifetime) it ran in


class Shim:
    """Answers host -> shim requests; ``on_invoke(tool, phase)`` tells the kill planner
    when an invoke arrives (``"invoked"``) and when it was answered (``"answered"``)."""

    def __init__(self, seed: int, on_invoke: Callable[[str, str], None]) -> None:
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._on_invoke = on_invoke
        self.executions: list[Execution] = []
        self.kill_no = 0

    def __call__(self, client: HostClient, request: dict[str, Any]) -> None:
        method, params = request["method"], request.get("params") or {}
        if method == "browser.resolveTarget":
            client.answer(request["id"], _tab(_tab_id(params.get("args"))))
        elif method == "browser.invoke":
            self._invoke(client, request["id"], params)
        else:
            client.answer(request["id"], {})

    def _invoke(self, client: HostClient, request_id: Any, params: dict[str, Any]) -> None:
        tool = str(params.get("tool", ""))
        with self._lock:
            self.executions.append(Execution(str(params.get("callId", "")), tool, self.kill_no))
            slow = tool in WRITE_TOOLS
            delay = self._rng.uniform(0.02, 0.12) if slow else self._rng.uniform(0.0, 0.05)
        self._on_invoke(tool, "invoked")
        result = {
            "content": f"{tool} done on tab {_tab_id(params.get('args'))}",
            "isError": False,
        }
        timer = threading.Timer(delay, self._answer, (client, request_id, result, tool))
        timer.daemon = True
        timer.start()

    def _answer(
        self, client: HostClient, request_id: Any, result: dict[str, Any], tool: str
    ) -> None:
        if client.dead.is_set():
            return
        client.answer(request_id, result)
        self._on_invoke(tool, "answered")

    def write_counts(self) -> dict[str, int]:
        """How many times each write call id was executed."""
        counts: dict[str, int] = {}
        with self._lock:
            for execution in self.executions:
                if execution.tool in WRITE_TOOLS:
                    counts[execution.call_id] = counts.get(execution.call_id, 0) + 1
        return counts


def _tab_id(args: Any) -> int:
    tab = args.get("tabId") if isinstance(args, dict) else None
    return tab if isinstance(tab, int) and tab in ORIGINS else 1


def _tab(tab_id: int) -> dict[str, Any]:
    origin = ORIGINS[tab_id]
    return {"tabId": tab_id, "url": origin + "/page", "origin": origin, "title": f"Tab {tab_id}"}
