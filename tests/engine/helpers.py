"""Driving the engine in tests: wait for events, run a turn to its end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from tests.conftest import EventLog

from panelot_host.server.transport import DirectTransport

INIT = {"protocolVersion": 1, "client": {"name": "pytest", "version": "0"}}


async def wait_for(
    log: EventLog, method: str, count: int = 1, *, within_s: float = 10.0, **match: Any
) -> list[dict[str, Any]]:
    """Wait until ``count`` events of ``method`` (whose params match ``match``) arrived."""
    with anyio.fail_after(within_s):
        while True:
            found = [p for p in log.of(method) if all(p.get(k) == v for k, v in match.items())]
            if len(found) >= count:
                return found
            await anyio.sleep(0.005)


async def new_thread(client: DirectTransport, command_id: str = "create-thread") -> str:
    created = await client.send("thread.create", {"commandId": command_id})
    thread_id: str = created["thread"]["id"]
    return thread_id


async def run_turn(
    client: DirectTransport,
    log: EventLog,
    thread_id: str,
    text: str,
    *,
    within_s: float = 10.0,
    **extra: Any,
) -> dict[str, Any]:
    """Submit a turn and return its ``turn.complete`` params (within ``within_s``)."""
    command_id = extra.pop("commandId", f"submit-{len(log.events)}-{text[:8]}")
    result = await client.send(
        "turn.submit", {"commandId": command_id, "threadId": thread_id, "text": text, **extra}
    )
    done = await wait_for(log, "turn.complete", within_s=within_s, turnId=result["turnId"])
    return done[0]


async def wait_until(condition: Callable[[], bool], *, within_s: float = 10.0) -> None:
    """Poll ``condition`` (state written by other tasks) until it holds."""
    with anyio.fail_after(within_s):
        while not condition():  # noqa: ASYNC110 - the state has no event to wait on
            await anyio.sleep(0.005)


async def answer_approval(
    client: DirectTransport, request: dict[str, Any], decision: str, scope: str
) -> None:
    """Answer the ``approval.request`` params ``request`` as the user would."""
    await client.send(
        "approval.response",
        {
            "commandId": f"answer-{request['requestId']}",
            "requestId": request["requestId"],
            "decision": decision,
            "scope": scope,
        },
    )
