"""One client connection: frames in, requests routed (concurrently, see ``flow``),
responses and events out.

Nothing a client sends can stop the connection: every frame is answered or, for a
malformed response to the host's own request, logged and dropped. Once the connection
is closed, whatever the host still sends is dropped and requests to the shim fail with
``ConnectionLost`` (which the engine takes as an unknown outcome, never a failure).
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import anyio
import msgspec
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from msgspec import UnsetType

from panelot_host.errors import InvalidResponse, JsonRpcError, MethodNotFound, NotInitialized
from panelot_host.protocol import codec, jsonrpc
from panelot_host.protocol.events import ErrorEvent
from panelot_host.protocol.jsonrpc import ErrorResponse, Notification, Request, Response
from panelot_host.protocol.messages import OpCall, decode_message
from panelot_host.protocol.ops import CancelRequestParams
from panelot_host.protocol.registry import CANCEL_REQUEST, ERROR, OpSpec
from panelot_host.server.errors import ConnectionLost, RpcError, to_rpc_error
from panelot_host.server.flow import Backpressure, Lanes
from panelot_host.server.host import Host, OpenProfile
from panelot_host.server.outgoing import Buffers, MessageEncoder, PlainMessages
from panelot_host.server.routes import ROUTES, Route, Session, start_session
from panelot_host.server.shim import ConnectionBrowser
from panelot_host.wire.errors import FrameError, FrameErrorCode

log = logging.getLogger(__name__)

WriteBuffers = Callable[[list[bytes]], Awaitable[None]]
"""Writes the buffers of queued messages (see ``outgoing``) to the client, in order."""
OUTBOX_BATCH = 256  # messages written together when they queue up
SHIM_REQUEST_TIMEOUT_S = 120.0
_connection_ids = itertools.count(1)
_FRAME_ERROR_CODES: dict[FrameErrorCode, int] = {
    "frame_too_large": jsonrpc.code_for_kind("too_large"),
    "truncated_frame": jsonrpc.PARSE_ERROR,
}
"""The ``$/error`` code of each framing problem (`docs/protocol.md`, "Framing")."""
_CANCELLED = RpcError(
    jsonrpc.REQUEST_CANCELLED, "cancelled by $/cancelRequest", {"kind": "cancelled"}
)
_CONFIG_LANE = "config"
"""Settings, credentials and permissions ops run in order among themselves."""
_INTERNAL = RpcError(
    jsonrpc.INTERNAL_ERROR,
    "internal error while handling a message; see the host log",
    {"kind": "internal"},
)


class Connection(Session):
    """Serves one client; ``run`` must be running (it writes the outbox) while frames arrive.

    Requests are served in ``tasks``; ``handle_frame`` returns once a request is admitted
    (it waits while the client is not reading: see ``flow.Backpressure``).
    """

    def __init__(
        self,
        host: Host,
        write: WriteBuffers,
        messages: MessageEncoder | None = None,
        *,
        tasks: TaskGroup,
    ) -> None:
        self.host = host
        self.id = next(_connection_ids)
        self._write = write
        self._messages = messages or PlainMessages()
        self._initialized = False
        self._profile: OpenProfile | None = None
        self.browser_tools: tuple[str, ...] = ()
        self._browser = ConnectionBrowser(self)
        outbox: tuple[MemoryObjectSendStream[Buffers], MemoryObjectReceiveStream[Buffers]]
        outbox = anyio.create_memory_object_stream[Buffers](math.inf)
        self._outbox_in, self._outbox_out = outbox
        self._pending: dict[int, _PendingRequest] = {}
        self._request_ids = itertools.count(1)
        self._lanes = Lanes(tasks)
        self._served: dict[int | str, _Served] = {}  # client request id -> its cancel scope
        self._flow = Backpressure()
        self._closed = False
        self._written_all = anyio.Event()

    # ------------------------------------------------------------ session surface

    @property
    def profile(self) -> OpenProfile:
        if self._profile is None or not self._initialized:
            raise NotInitialized("send initialize first")
        return self._profile

    def mark_initialized(self, profile: OpenProfile, browser_tools: tuple[str, ...]) -> None:
        self._profile = profile
        self.browser_tools = browser_tools
        self._initialized = True
        profile.bus.attach(self.id, self.notify)

    async def resume(self, profile_id: str | None, browser_tools: tuple[str, ...]) -> None:
        """Serve the session whose ``initialize`` the prelude answered (``server.prelude``),
        as if this connection had answered it."""
        profile = await self.host.open_profile(profile_id)
        start_session(self, profile, browser_tools)

    def browser_bridge(self) -> ConnectionBrowser:
        return self._browser

    def subscribe(self, thread_id: str) -> None:
        self.profile.bus.subscribe(self.id, thread_id, self.notify)

    def notify(self, method: str, params: msgspec.Struct) -> None:
        """Queue an event for this client (never blocks or raises; order is kept)."""
        self._enqueue(self._messages.notification(method, params))

    async def request(
        self, method: str, params: msgspec.Struct, wait_s: float = SHIM_REQUEST_TIMEOUT_S
    ) -> Any:
        """Send a request to the client (the shim) and wait for its result.

        Raises ``RpcError`` with the client's error (``ConnectionLost`` once the connection
        is closed), or ``TimeoutError``. Cancelling the wait sends ``$/cancelRequest`` so
        the shim can abort the action.
        """
        if self._closed:
            raise ConnectionLost(jsonrpc.INTERNAL_ERROR, "the connection closed")
        request_id = next(self._request_ids)
        pending = _PendingRequest()
        self._pending[request_id] = pending
        self._send(codec.encode_request(request_id, method, params))
        try:
            with anyio.fail_after(wait_s):
                await pending.done.wait()
        except BaseException:
            if not pending.done.is_set():
                self.notify_raw(CANCEL_REQUEST, {"id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)
        if pending.error is not None:
            raise pending.error
        return pending.result

    def notify_raw(self, method: str, params: dict[str, Any]) -> None:
        """A notification without a struct (``$/cancelRequest``, ``browser.detach``)."""
        self._enqueue(self._messages.notification(method, params))

    # ------------------------------------------------------------ frames in

    async def handle_frame(self, frame: bytes | FrameError) -> None:
        """Handle one inbound frame; bad input is answered, never raised. Returns once a
        request is admitted (it is served concurrently), waiting while the client does not
        read what the host has queued for it."""
        try:
            await self._handle_frame(frame)
        except Exception:  # a bug: answer it, keep serving, keep the traceback
            log.exception("unexpected error while handling a message")
            self._send_error(None, _INTERNAL)

    async def _handle_frame(self, frame: bytes | FrameError) -> None:
        if isinstance(frame, FrameError):
            code = _FRAME_ERROR_CODES[frame.code]
            self.notify(ERROR, ErrorEvent(code=code, message=frame.message, kind=frame.code))
            return
        try:
            message = decode_message(frame, build=False)  # built by Host.warm_up
        except InvalidResponse as exc:  # the client's own id space: nothing to answer
            log.warning("dropping a malformed response from the client: %s", exc.message)
            return
        except JsonRpcError as exc:
            self._send_error(exc.request_id, RpcError(exc.code, exc.message, {"kind": exc.kind}))
            return
        match message:
            case OpCall(id=UnsetType(), params=CancelRequestParams(id=cancelled)):
                self._cancel(cancelled)
            case OpCall(id=UnsetType()) | Notification():
                log.debug("ignoring client notification %.100s", message.method)
            case OpCall(id=str() | int() as request_id) | Request(id=request_id):
                await self._admit(request_id, message.method, message.params)
            case Response() | ErrorResponse():
                self._settle_pending(message)

    async def _admit(self, request_id: int | str, method: str, raw: Any) -> None:
        """Decode and check a request, then serve it in its lane (``initialize`` at once:
        nothing else is served before it)."""
        route = ROUTES.get(method)
        try:
            if route is None:
                raise MethodNotFound(method, request_id)
            spec = route.spec
            if not spec.before_initialize and not self._initialized:
                raise NotInitialized(f"{method} before initialize")
            params = codec.decode_params(method, raw, request_id)
        except Exception as exc:
            self._send_error(request_id, to_rpc_error(exc))
            return
        if spec.before_initialize:
            await self._serve(request_id, route, params)
            return
        await self._flow.wait_for_room()
        self._flow.started()
        self._lanes.submit(_lane_of(spec, params), self._job(request_id, route, params))

    def _job(
        self, request_id: int | str, route: Route, params: Any
    ) -> Callable[[], Coroutine[Any, Any, None]]:
        served = self._served[request_id] = _Served()

        async def job() -> None:
            try:
                if served.scope.cancel_called:  # cancelled in its lane: answered already
                    return
                served.started = True
                with served.scope:
                    await self._serve(request_id, route, params)
                if served.scope.cancelled_caught:
                    self._send_error(request_id, _CANCELLED)
            finally:
                self._flow.finished()
                if self._served.get(request_id) is served:
                    del self._served[request_id]

        return job

    def _cancel(self, request_id: int | str) -> None:
        """``$/cancelRequest`` from the client. A request still waiting in its lane is
        answered ``cancelled`` at once and never runs; one waiting inside its op
        (``turn.interrupt``...) is answered ``cancelled`` when the wait is abandoned. What an
        op committed before stays committed; a command repeated with its ``commandId``
        answers with the stored response."""
        served = self._served.get(request_id)
        if served is None or served.scope.cancel_called:
            return
        served.scope.cancel()
        if not served.started:
            self._send_error(request_id, _CANCELLED)

    async def _serve(self, request_id: int | str, route: Route, params: Any) -> None:
        spec = route.spec
        try:
            # any op naming a thread subscribes (`docs/protocol.md`, "Semantics clients rely on")
            if spec.names_thread:
                self.subscribe(params.thread_id)
            result = await route.call(self, params)
            payload = codec.encode_result(request_id, result)
        except Exception as exc:
            self._send_error(request_id, to_rpc_error(exc))
            return
        self._send(payload)

    def _send_error(self, request_id: int | str | None, error: RpcError) -> None:
        self._send(codec.encode_error(request_id, error.code, error.message, error.data))

    def _send(self, payload: bytes) -> None:
        self._enqueue(self._messages.payload(payload))

    def _enqueue(self, buffers: Buffers) -> None:
        """Queue one message for ``run``; dropped once the connection is closed (nobody
        reads it), so a sender never fails because the client went away."""
        if self._closed:
            log.debug("connection closed: dropping an outgoing message")
            return
        try:
            self._outbox_in.send_nowait(buffers)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            log.debug("the writer has stopped: dropping an outgoing message")
            return
        self._flow.queued(_size(buffers))

    def _settle_pending(self, message: Response | ErrorResponse) -> None:
        pending = self._pending.get(message.id) if isinstance(message.id, int) else None
        if pending is None:
            log.warning("response to unknown request id %r", message.id)
            return
        if isinstance(message, ErrorResponse):
            pending.error = RpcError(message.error.code, message.error.message, message.error.data)
        else:
            pending.result = message.result
        pending.done.set()

    # ------------------------------------------------------------ frames out

    async def run(self) -> None:
        """Write queued messages in order until ``close``; what queued up while the last
        write ran (up to ``OUTBOX_BATCH`` messages) goes out together."""
        try:
            await self._write_outbox()
        finally:  # cancelled or closed: nothing is written any more
            self._written_all.set()
            self.close()

    async def wait_written(self) -> None:
        """Return once ``run`` has written everything queued before ``close``."""
        await self._written_all.wait()

    async def _write_outbox(self) -> None:
        async with self._outbox_out:
            async for message in self._outbox_out:
                buffers = list(message)
                for _ in range(OUTBOX_BATCH - 1):
                    try:
                        buffers += self._outbox_out.receive_nowait()
                    except (anyio.WouldBlock, anyio.EndOfStream):
                        break
                try:
                    await self._write(buffers)
                except OSError as exc:  # the browser closed the Port: nobody is listening
                    log.info("cannot write to the client (%s); dropping output", exc)
                    self.close()
                finally:
                    self._flow.written(_size(buffers))

    def close(self) -> None:
        """Stop after the queued frames are written; pending shim requests fail."""
        if self._closed:
            return
        self._closed = True
        if self._profile is not None:
            self._profile.bus.unsubscribe_connection(self.id)
            self._profile.detach_browser(self._browser)
        for pending in self._pending.values():
            pending.error = ConnectionLost(jsonrpc.INTERNAL_ERROR, "the connection closed")
            pending.done.set()
        self._outbox_in.close()


def _lane_of(spec: OpSpec, params: Any) -> str | None:
    """Which requests must run in order: a thread's ops, and the configuration ops."""
    if spec.names_thread:
        return f"thread:{params.thread_id}"
    if spec.method.split(".", 1)[0] in ("settings", "credentials", "permissions"):
        return _CONFIG_LANE
    return None


def _size(buffers: Buffers | list[bytes]) -> int:
    return sum(len(part) for part in buffers)


class _Served:
    """A client request admitted to a lane: its cancel scope, and whether it has started."""

    def __init__(self) -> None:
        self.scope = anyio.CancelScope()
        self.started = False


class _PendingRequest:
    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: Any = None
        self.error: RpcError | None = None
