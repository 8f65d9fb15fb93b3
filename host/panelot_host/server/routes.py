"""Which handler serves which op: the server's half of each op's one declaration.

The protocol declares every op once (method, params, result, command or not: see
``protocol.registry.OPS``); here each is bound to exactly one handler with
``@routes.handles(method)``, and ``ROUTES`` is built at import only when every declared op
has its handler (``RouteTable.complete``). Handlers translate params to engine calls and
hold no domain state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import msgspec

import panelot_host
from panelot_host.errors import InvalidParams, InvalidState
from panelot_host.protocol.common import PROTOCOL_VERSION
from panelot_host.protocol.ops import config as config_ops
from panelot_host.protocol.ops import session as session_ops
from panelot_host.protocol.ops import threads as thread_ops
from panelot_host.protocol.ops import turns as turn_ops
from panelot_host.protocol.ops._base import EmptyResult
from panelot_host.protocol.registry import OPS, OpSpec
from panelot_host.server.host import Host, OpenProfile
from panelot_host.store.receipts import CommandContext

if TYPE_CHECKING:
    from panelot_host.tools.context import BrowserBridge

_thread_id_of = msgspec.json.Decoder(thread_ops.ThreadResult).decode


class Session(Protocol):
    """What a handler may use of its connection."""

    host: Host
    browser_tools: tuple[str, ...]

    @property
    def profile(self) -> OpenProfile: ...

    def mark_initialized(self, profile: OpenProfile, browser_tools: tuple[str, ...]) -> None: ...

    def subscribe(self, thread_id: str) -> None: ...

    def browser_bridge(self) -> BrowserBridge: ...


Handler = Callable[[Session, Any, Any], Awaitable[Any]]
"""``(session, params, receipt identity)``: the connection decodes the params, subscribes
the session to a named thread and builds the receipt identity (``CommandContext``) of a
command, None for an op that is not one, before calling it."""
H = TypeVar("H", bound=Handler)


class Route(msgspec.Struct, frozen=True):
    spec: OpSpec
    handler: Handler
    digest: Callable[[Any], object] | None = None
    """What the receipt digest covers, when not the params themselves."""


class RouteTable:
    """Collects exactly one handler per op of ``ops`` (``@table.handles(method)``)."""

    def __init__(self, ops: Mapping[str, OpSpec]) -> None:
        self._ops = ops
        self._routes: dict[str, Route] = {}

    def handles(
        self, method: str, *, digest: Callable[[Any], object] | None = None
    ) -> Callable[[H], H]:
        """Bind the decorated handler to ``method``.

        Raises:
            LookupError: ``method`` is not a declared op, or already has a handler.
        """
        spec = self._ops.get(method)
        if spec is None:
            raise LookupError(f"{method!r} is not an op declared in protocol.registry.OPS")

        def bind(handler: H) -> H:
            if method in self._routes:
                raise LookupError(f"{method!r} has two handlers")
            self._routes[method] = Route(spec, handler, digest)
            return handler

        return bind

    def complete(self) -> Mapping[str, Route]:
        """The read-only routes, in declaration order.

        Raises:
            LookupError: a declared op has no handler.
        """
        missing = [method for method in self._ops if method not in self._routes]
        if missing:
            raise LookupError(f"ops without a handler: {', '.join(missing)}")
        return MappingProxyType({method: self._routes[method] for method in self._ops})


routes = RouteTable(OPS)


def _without_secret(params: Any) -> dict[str, Any]:
    """The receipt digest of a credentials op: the secret enters only as its fingerprint,
    so not even a hash of the full secret reaches the database."""
    # lazy: the credentials package imports its store, which start-up does not need
    from panelot_host.credentials.secret import fingerprint

    secret = getattr(params, "secret", None)
    return {
        "ref": params.ref,
        "commandId": params.command_id,
        "secret": fingerprint(secret) if secret else None,
    }


# ---------------------------------------------------------------- session


@routes.handles("initialize")
async def initialize(
    session: Session, params: session_ops.InitializeParams, cmd: None
) -> session_ops.InitializeResult:
    if params.protocol_version != PROTOCOL_VERSION:
        raise InvalidParams(
            "unsupported protocol version",
            [
                {
                    "path": "$.params.protocolVersion",
                    "message": f"this host speaks protocol version {PROTOCOL_VERSION}",
                }
            ],
        )
    try:
        session.profile  # noqa: B018 - raises NotInitialized while not yet initialized
    except Exception:
        profile = await session.host.open_profile(params.client.profile_id)
    else:
        raise InvalidState("this connection is already initialized")
    tools = tuple(params.capabilities.browser_tools)
    session.mark_initialized(profile, tools)
    if tools:
        profile.attach_browser(session.browser_bridge(), frozenset(tools))
    session.host.warm_up()
    return session_ops.InitializeResult(
        protocol_version=PROTOCOL_VERSION,
        engine=session_ops.EngineInfo(name="panelot-host", version=panelot_host.__version__),
        capabilities=session_ops.HostCapabilities(browser_tools=list(tools)),
    )


# ---------------------------------------------------------------- threads


@routes.handles("thread.create")
async def thread_create(
    session: Session, params: thread_ops.ThreadCreateParams, cmd: CommandContext
) -> Any:
    response = session.profile.threads.create(params, cmd)
    session.subscribe(_thread_id_of(response).thread.id)  # the new thread's events
    return msgspec.Raw(response)


@routes.handles("thread.list")
async def thread_list(
    session: Session, params: thread_ops.ThreadListParams, cmd: None
) -> thread_ops.ThreadListResult:
    return session.profile.threads.list(params)


@routes.handles("thread.open")
async def thread_open(
    session: Session, params: thread_ops.ThreadOpenParams, cmd: None
) -> thread_ops.ThreadOpenResult:
    return session.profile.threads.open(params.thread_id)


@routes.handles("thread.delete")
async def thread_delete(
    session: Session, params: thread_ops.ThreadDeleteParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.threads.delete(params, cmd))


@routes.handles("thread.fork")
async def thread_fork(
    session: Session, params: thread_ops.ThreadForkParams, cmd: CommandContext
) -> Any:
    response = session.profile.threads.fork(params, cmd)
    session.subscribe(_thread_id_of(response).thread.id)  # the new thread's events
    return msgspec.Raw(response)


@routes.handles("thread.selectBranch")
async def thread_select_branch(
    session: Session, params: thread_ops.ThreadSelectBranchParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.threads.select_branch(params, cmd))


@routes.handles("thread.rename")
async def thread_rename(
    session: Session, params: thread_ops.ThreadRenameParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.threads.rename(params, cmd))


# ---------------------------------------------------------------- turns


@routes.handles("turn.submit")
async def turn_submit(
    session: Session, params: turn_ops.TurnSubmitParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.submit(params, cmd))


@routes.handles("turn.steer")
async def turn_steer(
    session: Session, params: turn_ops.TurnSteerParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.steer(params, cmd))


@routes.handles("turn.enqueue")
async def turn_enqueue(
    session: Session, params: turn_ops.TurnEnqueueParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.enqueue(params, cmd))


@routes.handles("queue.update")
async def queue_update(
    session: Session, params: turn_ops.QueueUpdateParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.update_queue(params, cmd))


@routes.handles("queue.remove")
async def queue_remove(
    session: Session, params: turn_ops.QueueRemoveParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.remove_from_queue(params, cmd))


@routes.handles("turn.interrupt")
async def turn_interrupt(
    session: Session, params: turn_ops.TurnInterruptParams, cmd: None
) -> EmptyResult:
    """Not a command (always allowed, idempotent); answered once the Turn has ended."""
    return await session.profile.ensure_engine().turns.interrupt(params)


@routes.handles("approval.response")
async def approval_response(
    session: Session, params: turn_ops.ApprovalResponseParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.approval_response(params, cmd))


@routes.handles("interaction.response")
async def interaction_response(
    session: Session, params: turn_ops.InteractionResponseParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.interaction_response(params, cmd))


@routes.handles("run.resume")
async def run_resume(
    session: Session, params: turn_ops.RunResumeParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.resume(params, cmd))


@routes.handles("recovery.resolve")
async def recovery_resolve(
    session: Session, params: turn_ops.RecoveryResolveParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().turns.resolve(params, cmd))


# ---------------------------------------------------------------- configuration


@routes.handles("settings.get")
async def settings_get(
    session: Session, params: config_ops.SettingsGetParams, cmd: None
) -> config_ops.SettingsResult:
    return session.profile.ensure_engine().config.get()


@routes.handles("settings.update")
async def settings_update(
    session: Session, params: config_ops.SettingsUpdateParams, cmd: CommandContext
) -> Any:
    response = session.profile.ensure_engine().config.update(params, cmd)
    if params.mcp_servers is not msgspec.UNSET:
        await session.host.reload_mcp()
    return msgspec.Raw(response)


@routes.handles("credentials.set", digest=_without_secret)
async def credentials_set(
    session: Session, params: config_ops.CredentialsSetParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().config.set_credential(params, cmd))


@routes.handles("credentials.delete", digest=_without_secret)
async def credentials_delete(
    session: Session, params: config_ops.CredentialsDeleteParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().config.delete_credential(params, cmd))


@routes.handles("permissions.list")
async def permissions_list(
    session: Session, params: config_ops.PermissionsListParams, cmd: None
) -> config_ops.GrantsResult:
    return session.profile.ensure_engine().config.list_grants(params)


@routes.handles("permissions.revoke")
async def permissions_revoke(
    session: Session, params: config_ops.PermissionsRevokeParams, cmd: CommandContext
) -> Any:
    return msgspec.Raw(session.profile.ensure_engine().config.revoke(params, cmd))


ROUTES: Mapping[str, Route] = routes.complete()
"""Method -> route, for every op of ``protocol.registry.OPS`` (checked at import)."""
