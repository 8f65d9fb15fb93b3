"""Shared by the extension benchmarks: real Chromium with the extension (the end-to-end
tests' harness), an echo host as the same-run baseline, the worker's heap over CDP."""

from __future__ import annotations

import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the e2e harness lives in tests/
os.environ.setdefault("DEBUG", "")

from playwright.sync_api import CDPSession, Page, Playwright  # noqa: E402
from tests.e2e.fake_model import (  # noqa: E402
    FakeAnthropic,
    Reply,
    text_events,
    text_reply,
    tool_use_reply,
)
from tests.e2e.harness import Browser, Profile, chromium_version  # noqa: E402
from tests.e2e.miniwob_kit import EPISODE_MS, reward, serve_miniwob, start_episode  # noqa: E402
from tests.e2e.miniwob_policies import POLICIES, Policy, Stuck, task_text  # noqa: E402
from tests.e2e.panel_kit import rpc  # noqa: E402
from tests.e2e.tool_driver import last_snapshot, ref_of, tool_results  # noqa: E402
from tests.providers.sse_server import Delay  # noqa: E402
from tests.support.web import serve_html  # noqa: E402
from tests.support.wire_client import HostProcess, initialize_params  # noqa: E402

__all__ = [
    "EPISODE_MS",
    "POLICIES",
    "REPO",
    "Browser",
    "Delay",
    "FakeAnthropic",
    "HostProcess",
    "PacedScript",
    "Policy",
    "Reply",
    "Step",
    "Stuck",
    "WorkerHeap",
    "act_on",
    "connected_panel",
    "delayed",
    "initialize_params",
    "last_snapshot",
    "launched",
    "median",
    "percentile",
    "plain",
    "ref_of",
    "reward",
    "rpc",
    "serve_html",
    "serve_miniwob",
    "start_episode",
    "task_text",
    "text_events",
    "text_reply",
    "timed_turn",
    "tool_results",
    "tool_use_reply",
    "wait_turn",
]


Step = Callable[[list[str]], Reply]
"""One answer of a scripted model: made from the tool results it has seen so far."""


class PacedScript:
    """A model answering each request with the next of ``steps(call_id)`` (by how many
    answers the conversation holds), each after ``latency_s``; then ``final``."""

    final = "Done."

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self._ids = itertools.count()

    def steps(self, call: str) -> list[Step]:
        raise NotImplementedError

    def reply(self, body: dict[str, Any]) -> Reply:
        step = sum(1 for m in body["messages"] if m["role"] == "assistant")
        steps = self.steps(f"toolu_{next(self._ids)}")
        answer = steps[step](tool_results(body)) if step < len(steps) else text_reply([self.final])
        return delayed(answer, self.latency_s)


def act_on(call: str, tool: str, role: str, name: str, **more: Any) -> Step:
    """``tool`` on the element ``role`` "``name``" of the latest snapshot the model saw."""
    return lambda r: tool_use_reply(
        call, tool, {"ref": ref_of(last_snapshot(r), role, name), **more}
    )


def plain(call: str, tool: str, **args: Any) -> Step:
    """``tool`` with ``args`` as they are."""
    return lambda _r: tool_use_reply(call, tool, args)


def wait_turn(panel: Page, thread_id: str, turn_id: str) -> dict[str, Any]:
    """``thread.open`` of ``thread_id`` once its Turn ``turn_id`` has ended."""
    while True:
        opened: dict[str, Any] = rpc(panel, "thread.open", {"threadId": thread_id})
        turn = opened["turn"]
        if turn["id"] == turn_id and turn["status"] in ("completed", "failed", "interrupted"):
            return opened
        time.sleep(0.02)


def timed_turn(
    panel: Page, model: FakeAnthropic, script: PacedScript, text: str
) -> tuple[float, dict[str, Any]]:
    """A Turn of ``text`` in a new thread, ``model`` answering from ``script``: its wall time
    (from ``turn.submit`` to its end) and the thread as it ended. The Turn must complete."""
    made = rpc(panel, "thread.create", {"commandId": f"timed-turn-{next(_command_ids)}"})
    thread = made["thread"]["id"]
    model.plan(*([script.reply] * 64))
    started = time.perf_counter()
    submit = {"commandId": f"timed-turn-{next(_command_ids)}", "threadId": thread, "text": text}
    turn = rpc(panel, "turn.submit", submit)["turnId"]
    opened = wait_turn(panel, thread, turn)
    elapsed = time.perf_counter() - started
    assert opened["turn"]["status"] == "completed", opened["turn"]
    with model._lock:
        model.plans.clear()
    return elapsed, opened


_command_ids = itertools.count()


def delayed(reply: Reply, latency_s: float) -> Reply:
    """``reply``, streamed after ``latency_s`` (a real model's time to its first token)."""
    return Reply(body=[Delay(latency_s), *reply.body])


@contextmanager
def launched(
    playwright: Playwright,
    model: FakeAnthropic,
    *,
    echo_host: bool = False,
    extra_args: Sequence[str] = (),
) -> Iterator[Browser]:
    """A fresh profile with the real host (or the echo host), the extension loaded."""
    with tempfile.TemporaryDirectory(prefix="panelot-bench-") as root:
        host = None
        if echo_host:
            host = Path(root) / "echo-host"
            echo = REPO / "bench" / "_echo_host.py"
            host.write_text(f'#!/bin/sh\nexec {sys.executable} -I {echo} "$@"\n', "utf-8")
            host.chmod(0o755)
        profile = Profile(
            root=Path(root), model_url=model.url, host_executable=host, extra_args=list(extra_args)
        )
        print(f"browser: {chromium_version()}")  # each figure names the Chromium it is of
        browser = profile.launch(playwright)
        try:
            yield browser
        finally:
            browser.close()


def connected_panel(browser: Browser) -> Page:
    panel = browser.open_panel()
    panel.get_by_text("Connected").wait_for(timeout=30_000)
    return panel


class WorkerHeap:
    """The service worker's V8 heap through CDP (the worker is a target of the browser;
    a page session reaches it with Target.sendMessageToTarget)."""

    def __init__(self, browser: Browser, page: Page) -> None:
        self._page = page
        self._session: CDPSession = browser.context.new_cdp_session(page)
        self._replies: dict[int, Any] = {}
        self._session.on("Target.receivedMessageFromTarget", self._receive)
        targets = self._session.send("Target.getTargets")["targetInfos"]
        worker = next(
            t
            for t in targets
            if t["type"] == "service_worker"
            and t["url"].startswith(f"chrome-extension://{browser.ext_id}/")
        )
        attached = self._session.send(
            "Target.attachToTarget", {"targetId": worker["targetId"], "flatten": False}
        )
        self._target_session = attached["sessionId"]
        self._next = 0

    def _receive(self, event: dict[str, Any]) -> None:
        message = json.loads(event["message"])
        if "id" in message:
            self._replies[message["id"]] = message.get("result")

    def _call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self._next += 1
        request = {"id": self._next, "method": method, "params": params or {}}
        self._session.send(
            "Target.sendMessageToTarget",
            {"sessionId": self._target_session, "message": json.dumps(request)},
        )
        deadline = time.monotonic() + 30
        while self._next not in self._replies:
            if time.monotonic() > deadline:
                raise TimeoutError(method)
            self._page.wait_for_timeout(10)  # lets Playwright deliver the session's events
        return self._replies.pop(self._next)

    def used_after_gc(self) -> int:
        """Bytes of the worker's JS heap in use after a full garbage collection."""
        self._call("HeapProfiler.collectGarbage")
        self._call("HeapProfiler.collectGarbage")
        used: int = self._call("Runtime.getHeapUsage")["usedSize"]
        return used


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)
