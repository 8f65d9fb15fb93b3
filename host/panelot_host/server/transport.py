"""``EngineTransport`` (seed section 7) and ``DirectTransport``, its in-process implementation.

``DirectTransport`` runs a real ``Connection`` of a real ``Host`` in the same event loop:
ops are encoded to JSON-RPC bytes and go through the same decoding, validation, routing,
receipts and event fan-out as frames from Chrome; only the framing is skipped. Tests and
the terminal client use it; it can also play the shim by answering host requests.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import anyio
import msgspec
from anyio.abc import TaskGroup

from panelot_host.server.connection import Connection
from panelot_host.server.host import Host

EventCallback = Callable[[str, dict[str, Any]], None]
ShimHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]
"""Answers a host request (``browser.invoke``...): returns the result or raises
``RemoteError`` to answer with an error."""

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


class RemoteError(Exception):
    """An error response: ``code``, ``message``, ``data`` and the engine's ``kind``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.data = data

    @property
    def kind(self) -> str | None:
        return self.data.get("kind") if isinstance(self.data, dict) else None


class EngineTransport(Protocol):
    """The client's view of the engine: send an op, receive events."""

    async def send(self, method: str, params: Any = None) -> Any:
        """Send an op and return its result; raises ``RemoteError`` on an error response."""
        ...

    def on_event(self, callback: EventCallback) -> Callable[[], None]:
        """Call ``callback(method, params)`` for every event; returns an unsubscribe."""
        ...


class DirectTransport:
    """An in-process client connection to ``host``; use ``DirectTransport.connect``."""

    def __init__(self, host: Host, task_group: TaskGroup, shim: ShimHandler | None) -> None:
        self._connection = Connection(host, self._receive_frames, tasks=task_group)
        self._tasks = task_group
        self._shim = shim
        self._ids = itertools.count(1)
        self._waiting: dict[int, tuple[anyio.Event, list[Any]]] = {}
        self._callbacks: dict[int, EventCallback] = {}
        self._callback_ids = itertools.count(1)

    @classmethod
    @asynccontextmanager
    async def connect(
        cls, host: Host, *, shim: ShimHandler | None = None
    ) -> AsyncIterator[DirectTransport]:
        async with anyio.create_task_group() as tasks:
            transport = cls(host, tasks, shim)
            tasks.start_soon(transport._connection.run)
            try:
                yield transport
            finally:
                transport._connection.close()

    @property
    def connection(self) -> Connection:
        return self._connection

    async def send(self, method: str, params: Any = None) -> Any:
        request_id = next(self._ids)
        done = anyio.Event()
        box: list[Any] = []
        self._waiting[request_id] = (done, box)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await self._connection.handle_frame(_encode(message))
        await done.wait()
        reply = box[0]
        if "error" in reply:
            error = reply["error"]
            raise RemoteError(error["code"], error["message"], error.get("data"))
        return reply["result"]

    def on_event(self, callback: EventCallback) -> Callable[[], None]:
        key = next(self._callback_ids)
        self._callbacks[key] = callback

        def unsubscribe() -> None:
            self._callbacks.pop(key, None)

        return unsubscribe

    async def _receive_frames(self, payloads: list[bytes]) -> None:
        for payload in payloads:
            message = _decode(payload)
            if "method" not in message:
                self._settle(message)
            elif "id" in message:
                self._tasks.start_soon(self._answer_host_request, message)
            else:
                for callback in list(self._callbacks.values()):
                    callback(message["method"], message.get("params", {}))

    def _settle(self, message: dict[str, Any]) -> None:
        waiting = self._waiting.pop(message.get("id"), None)  # type: ignore[arg-type]
        if waiting is None:
            # an error without a request id (bad input): surface it as an event
            for callback in list(self._callbacks.values()):
                callback("$/response", message)
            return
        done, box = waiting
        box.append(message)
        done.set()

    async def _answer_host_request(self, message: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            if self._shim is None:
                raise RemoteError(-32601, f"this client does not handle {message['method']}")
            reply["result"] = await self._shim(message["method"], message.get("params", {}))
        except RemoteError as exc:
            reply["error"] = {"code": exc.code, "message": exc.message, "data": exc.data}
        await self._connection.handle_frame(_encode(reply))
