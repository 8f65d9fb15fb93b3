"""One MCP server: its session lives in one long-lived task, reconnecting with backoff.

``McpConnection.run`` is the task (the manager spawns it in the host's task group). Each
session lists the tools and publishes them as one registry generation; a
``tools/list_changed`` notification re-lists (a new generation); a lost connection
unpublishes them, waits (bounded, jittered backoff) and starts a new session.

A published tool's ``execute`` is bound to the session that listed it (its *epoch*)
and to what the server said about it: once the session is replaced, or the tool was
changed by a re-listing, a call of the old descriptor is refused with a clear error
result instead of running on a tool the run never saw.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as mt
import msgspec
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError

from panelot_host.credentials import CredentialStore
from panelot_host.errors import InvalidToolDescriptor
from panelot_host.secret_mask import SecretMask
from panelot_host.tools.checks import normalise
from panelot_host.tools.context import ToolContext
from panelot_host.tools.descriptor import AgentTool
from panelot_host.tools.mcp.calls import CallDeadline, InFlight
from panelot_host.tools.mcp.config import McpServerConfig
from panelot_host.tools.mcp.masking import OutputMask
from panelot_host.tools.mcp.status import ServerState, ServerStatus, Timing
from panelot_host.tools.mcp.tools import build_tool, map_result, tool_fingerprint
from panelot_host.tools.mcp.transport import (
    ConfigProblem,
    WatchedReadStream,
    open_transport,
    resolve_secrets,
    server_logger,
)
from panelot_host.tools.result import ToolResult, error_result

log = logging.getLogger(__name__)

Publish = Callable[["McpConnection", list[AgentTool]], None]
Sampler = Callable[[str, mt.CreateMessageRequestParams], Awaitable[mt.CreateMessageResult]]
CLIENT_INFO = mt.Implementation(name="panelot", version="0.1.0")
_LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO}


class Ticket(msgspec.Struct, frozen=True):
    """What a published tool's ``execute`` is bound to: the session and the listing."""

    epoch: int
    remote: str
    fingerprint: str


class McpConnection:
    """The session with one server (see the module docstring).

    ``publish(connection, tools)`` replaces the server's tools in the registry (the
    manager ignores a connection it has replaced). ``sampler`` answers sampling
    requests of a server with ``allowSampling``; without one they are declined.
    ``secrets`` is the host's ``SecretMask``: it learns the server's secrets, and every
    string the server sends on (results, errors, progress, questions, descriptors, the
    status) is masked with it (``masking``).
    """

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        *,
        publish: Publish,
        credentials: CredentialStore | None,
        secrets: SecretMask,
        timing: Timing,
        sampler: Sampler | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self._publish = publish
        self._credentials = credentials
        self._mask = OutputMask(secrets)
        self._timing = timing
        self._sampler = sampler
        self._log = server_logger(name)
        self._rng = random.Random()
        self._scope = anyio.CancelScope()
        self._done = anyio.Event()
        self._settled = anyio.Event()  # the first connection succeeded, or it gave up
        self._session: ClientSession | None = None
        self._epoch = 0
        self._fingerprints: dict[str, str] = {}
        self._inflight: list[InFlight] = []
        self._lost = anyio.Event()
        self._relist_wanted = anyio.Event()
        self._state: ServerState = "connecting"
        self._reason: str | None = None
        self._tool_count = 0
        self._skipped: tuple[str, ...] = ()
        self._restarts = 0
        self._server_info: mt.Implementation | None = None

    @property
    def finished(self) -> bool:
        """Whether the task has ended (stopped, or gave up: ``failed``)."""
        return self._done.is_set()

    @property
    def settled(self) -> bool:
        """Whether the first connection is over: connected once, gave up or stopped."""
        return self._settled.is_set()

    async def wait_settled(self) -> None:
        await self._settled.wait()

    def status(self) -> ServerStatus:
        """The server's state as the client sees it (masked)."""
        info = self._server_info
        status = ServerStatus(
            name=self.name,
            transport=self.config.transport,
            state=self._state,
            tool_count=self._tool_count,
            reason=self._reason,
            restarts=self._restarts,
            server_name=info.name if info else None,
            server_version=info.version if info else None,
            skipped_tools=self._skipped,
        )
        return self._mask.status(status)

    # ---------------------------------------------------------------- lifecycle

    async def run(self) -> None:
        """The connection's task: sessions until stopped. Never raises but cancellation."""
        with self._scope:
            try:
                await self._supervise()
            finally:
                self._session = None
                self._publish(self, [])
                self._done.set()
                self._settled.set()

    async def stop(self, wait_s: float = 10.0) -> None:
        """Cancel the task and wait (bounded) until its session is closed."""
        self._scope.cancel()
        with anyio.move_on_after(wait_s, shield=True):
            await self._done.wait()

    async def _supervise(self) -> None:
        attempts = 0
        while True:
            started = anyio.current_time()
            try:
                await self._session_once()
                reason = "the server closed the connection"
            except ConfigProblem as exc:
                self._set_state("failed", str(exc))
                return
            except Exception as exc:
                reason = describe(exc)
            self._drop_session()
            if anyio.current_time() - started > self._timing.backoff.max_s:
                attempts = 0  # it was up for a while: start the backoff afresh
            attempts += 1
            if attempts > self._timing.backoff.max_attempts:
                self._set_state("failed", f"gave up after {attempts - 1} attempts: {reason}")
                return
            delay = self._timing.backoff.delay(attempts, self._rng)
            self._set_state("reconnecting", reason)
            self._log.warning("MCP server %s: %s; reconnecting in %.1f s", self.name, reason, delay)
            await anyio.sleep(delay)
            self._restarts += 1

    async def _session_once(self) -> None:
        lost = self._lost = anyio.Event()
        secrets = resolve_secrets(self.config.secrets, self._credentials)
        self._mask.learn(self.config, secrets)  # before the server can say anything
        async with open_transport(self.name, self.config, secrets) as (read, write):
            watched = WatchedReadStream(read, lost.set)
            async with self._client(watched, write) as session:
                with anyio.fail_after(self._timing.connect_s):
                    init = await session.initialize()
                self._epoch += 1
                self._session = session
                self._server_info = init.server_info
                await self._relist(session)
                self._set_state("connected", None)
                self._log.info("MCP server %s connected (%d tools)", self.name, self._tool_count)
                await self._serve(session, lost)

    def _client(self, read: WatchedReadStream, write: Any) -> ClientSession:
        return ClientSession(
            read,
            write,
            sampling_callback=self._on_sampling if self.config.allow_sampling else None,
            elicitation_callback=self._on_elicitation,
            logging_callback=self._on_log,
            message_handler=self._on_message,
            client_info=CLIENT_INFO,
        )

    async def _serve(self, session: ClientSession, lost: anyio.Event) -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._keepalive, session, lost)
            tg.start_soon(self._relister, session, lost)
            await lost.wait()
            tg.cancel_scope.cancel()

    async def _keepalive(self, session: ClientSession, lost: anyio.Event) -> None:
        while True:
            await anyio.sleep(self._timing.keepalive_s)
            try:
                with anyio.fail_after(self._timing.ping_timeout_s):
                    await session.send_ping()
            except Exception as exc:
                self._log.warning("MCP server %s: ping failed (%s)", self.name, describe(exc))
                lost.set()
                return

    async def _relister(self, session: ClientSession, lost: anyio.Event) -> None:
        while True:
            await self._relist_wanted.wait()
            self._relist_wanted = anyio.Event()
            try:
                await self._relist(session)
            except Exception as exc:
                self._log.warning("MCP server %s: re-listing failed (%s)", self.name, describe(exc))
                lost.set()
                return

    def _drop_session(self) -> None:
        self._session = None
        self._fingerprints = {}
        self._tool_count = 0
        self._publish(self, [])

    def _set_state(self, state: ServerState, reason: str | None) -> None:
        self._state = state
        self._reason = reason
        if state in ("connected", "failed"):
            self._settled.set()

    # ---------------------------------------------------------------- listing

    async def _relist(self, session: ClientSession) -> None:
        listed = await self._list_all(session)
        tools: list[AgentTool] = []
        skipped: list[str] = []
        fingerprints: dict[str, str] = {}
        for tool in listed:
            ticket = Ticket(self._epoch, tool.name, tool_fingerprint(tool))
            built = build_tool(self.name, self.config, tool, self._executor(ticket))
            descriptor = self._mask.tool(built)
            try:
                normalise(descriptor)
            except InvalidToolDescriptor as exc:
                skipped.append(f"{tool.name}: {exc.message}")
                continue
            tools.append(descriptor)
            fingerprints[tool.name] = ticket.fingerprint
        self._fingerprints = fingerprints
        self._tool_count = len(tools)
        self._skipped = tuple(skipped)
        for problem in skipped:
            self._log.warning("MCP server %s: tool skipped (%s)", self.name, problem)
        self._publish(self, tools)

    async def _list_all(self, session: ClientSession) -> list[mt.Tool]:
        tools: list[mt.Tool] = []
        cursor: str | None = None
        with anyio.fail_after(self._timing.connect_s):
            while True:
                params = mt.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    return tools

    # ---------------------------------------------------------------- calls

    def _executor(
        self, ticket: Ticket
    ) -> Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]:
        async def execute(args: dict[str, Any], context: ToolContext) -> ToolResult:
            return await self.call(ticket, args, context)

        return execute

    async def call(self, ticket: Ticket, args: dict[str, Any], context: ToolContext) -> ToolResult:
        """Run the tool ``ticket`` names, unless its session or listing was replaced.

        Never raises but cancellation: every failure is an error result for the model.
        The result, error or not, is masked (``masking``).
        """
        return self._mask.result(await self._call(ticket, args, context))

    async def _call(self, ticket: Ticket, args: dict[str, Any], context: ToolContext) -> ToolResult:
        session = self._session
        if session is None or ticket.epoch != self._epoch:
            return self._stale_result(ticket)
        if self._fingerprints.get(ticket.remote) != ticket.fingerprint:
            return self._failure(
                ticket.remote,
                f"The MCP server `{self.name}` changed the tool `{ticket.remote}` since it was "
                "listed, so the call was not sent. The new version is offered from the next "
                "turn on.",
                stale=True,
            )
        deadline = CallDeadline(self.config.timeout, self.config.max_timeout)
        flight = InFlight(self.name, context, deadline, self._mask)
        self._inflight.append(flight)
        try:
            return await self._send(session, ticket.remote, args, flight)
        finally:
            self._inflight.remove(flight)
            flight.finish()

    async def _send(
        self, session: ClientSession, remote: str, args: dict[str, Any], flight: InFlight
    ) -> ToolResult:
        result: mt.CallToolResult | None = None
        try:
            with flight.deadline.scope:
                result = await session.call_tool(remote, args, progress_callback=flight.on_progress)
        except MCPError as exc:
            return self._mcp_error(remote, exc)
        except Exception as exc:
            return self._failure(
                remote,
                f"The MCP server `{self.name}` gave an answer to `{remote}` that cannot be "
                f"used ({describe(exc)}).",
            )
        if result is None or flight.deadline.expired:
            return self._failure(
                remote,
                f"The MCP tool `{remote}` of `{self.name}` did not answer in time "
                f"({self.config.timeout:g} s without progress, at most "
                f"{self.config.max_timeout:g} s); it was cancelled.",
                timeout=True,
            )
        return map_result(self.name, remote, result)

    def _mcp_error(self, remote: str, exc: MCPError) -> ToolResult:
        if exc.code == mt.CONNECTION_CLOSED:
            self._lost.set()
            return self._failure(
                remote,
                f"The connection to the MCP server `{self.name}` was lost during the call of "
                f"`{remote}`; its outcome is unknown. Panelot is reconnecting; repeat the call "
                "in a later turn only if that is safe.",
                code=exc.code,
            )
        return self._failure(
            remote,
            f"The MCP server `{self.name}` refused the call of `{remote}`: {exc.message}",
            code=exc.code,
        )

    def _stale_result(self, ticket: Ticket) -> ToolResult:
        return self._failure(
            ticket.remote,
            f"The MCP server `{self.name}` restarted since the tool `{ticket.remote}` was "
            "listed, so the call was not sent to the new session. Call it again: the "
            "reconnected server's tools are offered from the next turn on.",
            stale=True,
        )

    def _failure(self, remote: str, message: str, **mcp: Any) -> ToolResult:
        """An error result whose ``details.mcp`` names this server and ``remote`` (and ``mcp``)."""
        return error_result(message, details={"mcp": {"server": self.name, "tool": remote, **mcp}})

    # ---------------------------------------------------------------- server requests

    async def _on_elicitation(
        self, context: ClientRequestContext, params: mt.ElicitRequestParams
    ) -> mt.ElicitResult | mt.ErrorData:
        if isinstance(params, mt.ElicitRequestURLParams):
            self._log.info("MCP server %s: URL elicitation declined", self.name)
            return mt.ElicitResult(action="decline")
        flights = list(self._inflight)
        if len(flights) != 1:
            why = "no tool call is running" if not flights else "several tool calls are running"
            self._log.warning("MCP server %s: elicitation refused: %s", self.name, why)
            return mt.ErrorData(
                code=mt.INVALID_REQUEST,
                message=f"Panelot cannot tell which call this question belongs to ({why})",
            )
        return await flights[0].elicit(params)

    async def _on_sampling(
        self, context: ClientRequestContext, params: mt.CreateMessageRequestParams
    ) -> mt.CreateMessageResult | mt.ErrorData:
        if self._sampler is None:
            return mt.ErrorData(
                code=mt.INVALID_REQUEST,
                message="Panelot declined the sampling request: sampling is allowed for this "
                "server, but the host gives MCP servers no model access yet",
            )
        return await self._sampler(self.name, params)

    async def _on_log(self, params: mt.LoggingMessageNotificationParams) -> None:
        level = _LOG_LEVELS.get(params.level, logging.WARNING)
        self._log.log(level, "%s: %s", params.logger or "server", params.data)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification):
            self._relist_wanted.set()
        elif isinstance(message, Exception):
            self._log.warning("MCP server %s: transport error (%s)", self.name, describe(message))


def describe(exc: BaseException) -> str:
    """A one-line reason for the status and the log (single-exception groups unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
