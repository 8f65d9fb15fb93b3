"""Serving one Chrome Port over stdin/stdout."""

from __future__ import annotations

import logging

import anyio

from panelot_host.server.connection import Connection
from panelot_host.server.host import Host, HostConfig
from panelot_host.server.outgoing import FramedMessages
from panelot_host.wire.stdio import StdioChannel

log = logging.getLogger(__name__)

SETTLE_DEADLINE_S = 1.5
"""Chrome sends SIGKILL 2 s after closing the pipes; settling must finish before that."""


async def serve(config: HostConfig, channel: StdioChannel) -> int:
    """Serve frames until stdin EOF, then settle, commit and return the exit status (0)."""
    async with Host(config) as host, anyio.create_task_group() as tasks:
        connection = Connection(host, channel.write_buffers, FramedMessages())
        tasks.start_soon(connection.run)
        async for frame in channel:
            await connection.handle_frame(frame)
        log.info("stdin closed: settling")
        with anyio.move_on_after(SETTLE_DEADLINE_S) as scope:
            await host.aclose()
        if scope.cancelled_caught:
            log.warning("settling took over %.1f s; recovery will finish it", SETTLE_DEADLINE_S)
        connection.close()
    return 0
