"""Serving one Chrome Port over stdin/stdout, and every way that ends.

stdin EOF (Chrome closed the Port), SIGTERM/SIGHUP/SIGINT, and an unexpected exception
anywhere in the host all end the same way: stop reading, settle what runs for recovery
(a write in flight stays without a result, so the next start marks it ``uncertain``),
commit, release the store. An unexpected exception is logged whole (to the log file, not
only stderr) and makes the exit status 1. kill -9 skips all of this; recovery on the next
start covers it the same way.
"""

from __future__ import annotations

import logging
import signal
import sys

import anyio
from anyio.abc import TaskGroup, TaskStatus

from panelot_host.secret_mask import SecretMask
from panelot_host.server.config import HostConfig
from panelot_host.server.connection import Connection
from panelot_host.server.host import Host
from panelot_host.server.outgoing import FramedMessages
from panelot_host.server.prelude import Handover
from panelot_host.wire.stdio import StdioChannel

log = logging.getLogger(__name__)

SETTLE_DEADLINE_S = 1.5
"""Chrome sends SIGKILL 2 s after closing the pipes; settling must finish before that."""
FLUSH_DEADLINE_S = 0.3
"""How long the last answers may take to go out after settling."""
CRASHED = 1
_STOP_SIGNALS = () if sys.platform == "win32" else (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class InjectedCrash(RuntimeError):
    """Raised on SIGUSR1 when the ``unexpected_exception`` failpoint is on (the torture
    harness's fourth way to die)."""


async def serve(
    config: HostConfig,
    channel: StdioChannel,
    secret_mask: SecretMask | None = None,
    handover: Handover | None = None,
) -> int:
    """Serve frames until stdin EOF or a stop signal, then settle, commit and return the
    exit status: 0, or 1 after an unexpected exception. Every secret the host reads is
    added to ``secret_mask`` (the log's). With ``handover``, go on from where the prelude
    stopped (``channel`` reads on from its ``read_ahead``)."""
    try:
        return await _serve(config, channel, secret_mask, handover)
    except BaseException as exc:  # escaped the host's task groups: settled on the way out
        if isinstance(exc, anyio.get_cancelled_exc_class()):
            raise
        log.critical("the host failed unexpectedly and stopped", exc_info=exc)
        return CRASHED


async def _serve(
    config: HostConfig, channel: StdioChannel, mask: SecretMask | None, handover: Handover | None
) -> int:
    status = 0
    adopt = handover.store if handover is not None else None
    messages = handover.messages if handover is not None else FramedMessages()
    async with (
        Host(config, secret_mask=mask, adopt=adopt) as host,
        anyio.create_task_group() as tasks,
    ):
        connection = Connection(host, channel.write_buffers, messages, tasks=tasks)
        tasks.start_soon(connection.run)
        with anyio.CancelScope() as reading:
            await _watch_signals(tasks, reading, config.injects_crashes)
            if handover is not None and handover.stop_signals.received:
                reading.cancel()  # noted while the server loaded
            try:
                if handover is not None and handover.session is not None:
                    session = handover.session
                    await connection.resume(session.profile_id, session.browser_tools)
                async for frame in channel:
                    await connection.handle_frame(frame)
                log.info("stdin closed: settling")
            except Exception:
                log.exception("the host failed unexpectedly; settling for recovery")
                status = CRASHED
        if reading.cancelled_caught:
            log.info("stop signal: settling")
        await _settle(host)
        connection.close()
        with anyio.move_on_after(FLUSH_DEADLINE_S):
            await connection.wait_written()
        tasks.cancel_scope.cancel()  # requests still waiting end here; their work is settled
    return status


async def _settle(host: Host) -> None:
    with anyio.move_on_after(SETTLE_DEADLINE_S) as scope:
        await host.aclose()
    if scope.cancelled_caught:
        log.warning("settling took over %.1f s; recovery will finish it", SETTLE_DEADLINE_S)


async def _watch_signals(tasks: TaskGroup, reading: anyio.CancelScope, crash: bool) -> None:
    """Stop reading on a stop signal; with ``crash``, raise an unexpected exception on
    SIGUSR1. Returns once the signals are watched."""
    if not _STOP_SIGNALS:
        return
    watched = (*_STOP_SIGNALS, signal.SIGUSR1) if crash else _STOP_SIGNALS

    async def watch(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        with anyio.open_signal_receiver(*watched) as signals:
            task_status.started()
            async for received in signals:
                if received == signal.SIGUSR1:
                    raise InjectedCrash("unexpected exception injected by failpoint (SIGUSR1)")
                reading.cancel()

    await tasks.start(watch)
