"""Opening one MCP server's transport: stdio (stderr to the log), Streamable HTTP, SSE.

Credential references in ``env``/``headers`` are resolved (``resolve_secrets``) right
before the transport opens; the connection has its mask learn them (``masking``), then
the secret goes straight to the subprocess environment or the HTTP header.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any

import anyio
import anyio.to_thread
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

from panelot_host.credentials import CredentialStore
from panelot_host.tools.mcp.config import CredentialRef, McpServerConfig, SecretValue

Streams = tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]
_STDERR_DRAIN_S = 2.0


class ConfigProblem(Exception):
    """The server cannot be started as configured (a missing credential); retrying
    without a configuration change cannot help."""


def server_logger(name: str) -> logging.Logger:
    """The logger a server's stderr and log notifications go to (one per server)."""
    return logging.getLogger(f"panelot_host.mcp.{name.replace('.', '_')}")


def resolve_secrets(
    values: dict[str, SecretValue], credentials: CredentialStore | None
) -> dict[str, str]:
    """Literal values as they are, ``{"credentialRef"}`` values from the store.

    Raises:
        ConfigProblem: a reference names no stored credential.
    """
    resolved: dict[str, str] = {}
    for key, value in values.items():
        if isinstance(value, CredentialRef):
            secret = credentials.get(value.credential_ref) if credentials else None
            if secret is None:
                raise ConfigProblem(f"credential {value.credential_ref!r} ({key}) is not stored")
            resolved[key] = secret.reveal()
        else:
            resolved[key] = value
    return resolved


@asynccontextmanager
async def open_transport(
    name: str, config: McpServerConfig, secrets: dict[str, str]
) -> AsyncIterator[Streams]:
    """The server's read/write streams for a ``ClientSession``; ``secrets`` are its
    ``env`` (stdio) or ``headers`` (HTTP) as ``resolve_secrets`` gave them.

    Raises:
        OSError: the command cannot be started.
        Exception: whatever the SDK's transport raises when it cannot connect.
    """
    if config.transport == "stdio":
        async with _stdio(name, config, secrets) as streams:
            yield streams
    elif config.transport == "sse":
        async with sse_client(config.url or "", headers=secrets) as (read, write):
            yield read, write
    else:
        client = create_mcp_http_client(headers=secrets)
        async with (
            client,
            streamable_http_client(config.url or "", http_client=client) as (
                read,
                write,
            ),
        ):
            yield read, write


@asynccontextmanager
async def _stdio(name: str, config: McpServerConfig, env: dict[str, str]) -> AsyncIterator[Streams]:
    params = StdioServerParameters(
        command=config.command or "", args=list(config.args), env=env, cwd=config.cwd
    )
    pipe = _StderrPipe(server_logger(name))
    async with anyio.create_task_group() as tg:
        try:
            async with stdio_client(params, errlog=pipe.writer) as streams:
                pipe.close_writer()  # the child holds its own copy now
                tg.start_soon(pipe.pump)
                yield streams
        finally:
            await pipe.aclose()
            tg.cancel_scope.cancel()


class _StderrPipe:
    """A pipe the server writes its stderr to; ``pump`` logs each line until EOF."""

    def __init__(self, log: logging.Logger) -> None:
        read_fd, write_fd = os.pipe()
        self._read_fd = read_fd
        self.writer = os.fdopen(write_fd, "w")
        self._log = log
        self._drained = anyio.Event()
        self._pumping = False
        self._limiter = anyio.CapacityLimiter(1)

    def close_writer(self) -> None:
        if not self.writer.closed:
            self.writer.close()

    async def aclose(self) -> None:
        """Close our end; wait (bounded, shielded) for the pump to log what is left."""
        self.close_writer()
        if not self._pumping:
            os.close(self._read_fd)
            return
        with anyio.move_on_after(_STDERR_DRAIN_S, shield=True):
            await self._drained.wait()

    async def pump(self) -> None:
        self._pumping = True
        try:
            # a blocking read in a worker thread: portable (Windows pipes cannot be polled)
            await anyio.to_thread.run_sync(
                self._read_all, abandon_on_cancel=True, limiter=self._limiter
            )
        finally:
            self._drained.set()

    def _read_all(self) -> None:
        with os.fdopen(self._read_fd, "rb") as stream:
            for raw in stream:
                line = raw.decode("utf-8", "replace").rstrip()
                if line:
                    self._log.info("%s", line)


class WatchedReadStream:
    """A read stream that calls ``on_end`` once the transport's stream ends.

    The SDK's session keeps running after EOF (pending requests fail with
    ``CONNECTION_CLOSED``); this is how the connection learns the server is gone.
    """

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception], on_end: Callable[[], None]
    ) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> WatchedReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> WatchedReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()
