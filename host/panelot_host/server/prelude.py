"""The host's first answers, given before the event loop exists.

Chrome starts a host process each time a panel reconnects, and the panel waits for the
answers to ``initialize`` and to its first ``thread.list``. Loading the event loop and the
server (anyio, asyncio, the connection) costs about as much as everything else the host
loads, so those two are answered here, synchronously: frames are read with blocking reads
(``wire.blocking``), ``initialize`` opens the profile's store (``profile_store``) and is
answered by ``handshake`` as the server's handler answers it, ``thread.list`` by the same
query the server's ``ThreadService`` runs (``engine.thread_list``).

Anything else ends the prelude and stays unanswered here: another op, a notification or
response, a bad frame or params, an error of any kind, a profile with unfinished runs
(recovery needs the engine), a lease another process holds (the server waits for it), a
failure to write, or no next request within ``NEXT_REQUEST_WAIT_S``. The ``Handover``
gives the async server (``native.serve``) what was read and not answered, the store that
was opened and the session that was initialized; the server goes on from there as if it
had read everything itself, so the wire is the same either way. End of input, or a stop
signal while waiting, closes the store and ends the process as the server would.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import msgspec
from msgspec import UnsetType

from panelot_host.engine.thread_list import list_threads
from panelot_host.protocol import codec, ops
from panelot_host.protocol.messages import OpCall, decode_message
from panelot_host.server import handshake
from panelot_host.server.config import HostConfig
from panelot_host.server.outgoing import FramedMessages
from panelot_host.server.profile_store import OpenedStore, open_store
from panelot_host.store import turns
from panelot_host.wire.blocking import BlockingFrames, EndOfFrames, ReadAhead, pollable
from panelot_host.wire.errors import FrameError

log = logging.getLogger(__name__)

NEXT_REQUEST_WAIT_S = 0.05
"""How long the prelude waits after an answer for a next request it can answer, before it
hands over (the server's warm-up waits as long after ``initialize``)."""
_STOP_SIGNALS = () if sys.platform == "win32" else (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)

_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
WriteBuffers = Callable[[list[bytes]], None]
"""Writes a message's buffers to the client, whole, blocking until written."""


class Initialized(msgspec.Struct, frozen=True):
    """A session whose ``initialize`` the prelude answered."""

    profile_id: str | None
    browser_tools: tuple[str, ...]


class Handover(msgspec.Struct, frozen=True):
    """What the prelude leaves the async server."""

    read_ahead: ReadAhead  # read and not answered (the frame that ended the prelude first)
    messages: FramedMessages  # the connection's message framing ($/chunk ids go on)
    store: OpenedStore | None  # the profile store initialize opened: Host(adopt=...)
    session: Initialized | None  # initialize answered: the server resumes this session
    stop_signals: StopSignals  # notes stop signals until the server watches for them


def can_answer(config: HostConfig, reader: int) -> bool:
    """Whether the prelude can serve this process: a pollable stdin (not on Windows), and
    no ``unexpected_exception`` failpoint (its SIGUSR1 is the server's to handle)."""
    return pollable(reader) and not config.injects_crashes


def answer_first_requests(
    config: HostConfig, frames: BlockingFrames, write: WriteBuffers
) -> Handover | int:
    """Answer ``initialize`` and ``thread.list`` requests as they come (see the module
    docstring); the ``Handover`` for the server, or the exit status when the process
    should end now: 0 at end of input or on a stop signal, 1 when reading failed (what the
    prelude opened is closed either way)."""
    prelude = _Prelude(config, write)
    stop = StopSignals()
    stop.install()
    ended: int | None = 1  # until it is known otherwise
    try:
        ended = _answer_until_handover(prelude, frames, stop)
    finally:
        if ended is not None:  # ending (or an unexpected exception): settle here
            stop.uninstall()
            prelude.close()
    if ended is not None:
        return ended
    return Handover(frames.read_ahead(), prelude.messages, prelude.store, prelude.session, stop)


def _answer_until_handover(
    prelude: _Prelude, frames: BlockingFrames, stop: StopSignals
) -> int | None:
    """None when the server is to go on; the exit status when the process is to end."""
    wait_s: float | None = None  # the first request: as long as it takes (as the server)
    while True:
        try:
            frame = stop.interruptible(frames.next, wait_s)
        except _Stop:
            log.info("stop signal: settling")
            return 0
        except EndOfFrames:
            log.info("stdin closed: settling")
            return 0
        except OSError:
            log.exception("reading stdin failed; settling")
            return 1
        if frame is None:
            return None
        try:
            answered = prelude.answer(frame)
        except OSError as exc:  # the browser closed the Port: the server finds it so too
            log.info("cannot write to the client (%s); handing over", exc)
            return None
        if not answered:
            frames.put_back(frame)
            return None
        wait_s = NEXT_REQUEST_WAIT_S


class _Prelude:
    def __init__(self, config: HostConfig, write: WriteBuffers) -> None:
        self._config = config
        self._write = write
        self.messages = FramedMessages()
        self.store: OpenedStore | None = None
        self.session: Initialized | None = None

    def answer(self, frame: bytes | FrameError) -> bool:
        """Answer ``frame`` when it is a request the prelude serves; False (nothing
        written) to leave it to the server.

        Raises:
            OSError: writing the answer failed.
        """
        if isinstance(frame, FrameError):
            return False
        try:
            message = decode_message(frame, build=False)
            if not isinstance(message, OpCall) or isinstance(message.id, UnsetType):
                return False
            result = self._serve(message.params)
        except Exception as exc:  # the server serves it again and answers the error
            log.info("the prelude leaves a request to the server: %s", exc)
            return False
        if result is None:
            return False
        self._write(list(self.messages.payload(codec.encode_result(message.id, result))))
        return True

    def _serve(self, params: object) -> msgspec.Struct | None:
        match params:
            case ops.InitializeParams() if self.store is None:
                return self._initialize(params)
            case ops.ThreadListParams() if self.store is not None and self.session is not None:
                return list_threads(self.store.db, params.limit, params.cursor, params.query)
        return None

    def _initialize(self, params: ops.InitializeParams) -> ops.InitializeResult | None:
        version = handshake.negotiate(params)
        profile_id = params.client.profile_id
        # no waiting for a busy lease here: the server waits, with its signals watched
        store = self.store = open_store(self._config.home, profile_id, lease_wait_s=0.0)
        if turns.has_unfinished_runs(store.db.conn):  # recovery needs the engine
            return None
        tools = handshake.browser_tools(params)
        self.session = Initialized(profile_id, tools)
        return handshake.initialize_result(version, tools)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None


class _Stop(Exception):
    """A stop signal arrived while the prelude waited (or answered)."""


class StopSignals:
    """SIGTERM, SIGHUP and SIGINT from the prelude until the server watches for them.

    A signal that arrives while the prelude waits for input ends the wait at once; one
    that arrives while it answers, or while the server loads, is noted (``received``) and
    taken as soon as it can be.
    """

    def __init__(self) -> None:
        self.received = False
        self._waiting = False
        self._previous: dict[int, _Handler] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signals reach the main thread only (a test may serve from another)
        for number in _STOP_SIGNALS:
            self._previous[number] = signal.signal(number, self._on_signal)

    def uninstall(self) -> None:
        """Put back the handlers there were (the server's own replace these anyway)."""
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()

    def interruptible(
        self, wait: Callable[[float | None], bytes | FrameError | None], wait_s: float | None
    ) -> bytes | FrameError | None:
        """``wait(wait_s)``, ended by a stop signal (or at once if one came already).

        Raises:
            _Stop: a stop signal arrived.
        """
        if self.received:
            raise _Stop
        self._waiting = True
        try:
            return wait(wait_s)
        finally:
            self._waiting = False

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        self.received = True
        if self._waiting:
            raise _Stop
