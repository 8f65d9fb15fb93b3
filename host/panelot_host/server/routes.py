"""Which handler serves which op. Handlers translate params to engine calls; no domain state."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

import panelot_host
from panelot_host.errors import InvalidParams, InvalidState
from panelot_host.protocol.common import PROTOCOL_VERSION
from panelot_host.protocol.ops import config as config_ops
from panelot_host.protocol.ops import session as session_ops
from panelot_host.protocol.ops import threads as thread_ops
from panelot_host.protocol.ops import turns as turn_ops
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


Handler = Callable[[Session, Any, CommandContext | None], Awaitable[Any]]
"""``(session, params, receipt identity)``: the connection decodes the params, subscribes
the session to a named thread and builds the receipt identity of a command (see
``protocol.registry.OPS``) before calling it."""


class Route(msgspec.Struct, frozen=True):
    handler: Handler
    digest: Callable[[Any], object] | None = None
    """What the receipt digest covers, when not the params themselves."""


Service = Callable[[OpenProfile], Callable[..., Any]]


def command(service: Service) -> Route:
    """A command whose service stores its receipt and returns the encoded response."""

    async def handle(session: Session, params: Any, ctx: CommandContext | None) -> Any:
        return msgspec.Raw(service(session.profile)(params, ctx))

    return Route(handle)


def query(service: Service) -> Route:
    """A read: the service's result is the response."""

    async def handle(session: Session, params: Any, ctx: CommandContext | None) -> Any:
        return service(session.profile)(params)

    return Route(handle)


async def interrupt(
    session: Session, params: turn_ops.TurnInterruptParams, ctx: CommandContext | None
) -> Any:
    """Not a command (always allowed, idempotent); answered once the Turn has ended."""
    return await session.profile.ensure_engine().turns.interrupt(params)


async def initialize(
    session: Session, params: session_ops.InitializeParams, ctx: CommandContext | None
) -> Any:
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


async def creates_thread(session: Session, params: Any, ctx: CommandContext | None) -> Any:
    """``thread.create`` and ``thread.fork``: the new thread's events go to this session."""
    assert ctx is not None  # a command: the connection built its receipt identity
    threads = session.profile.threads
    create = threads.create if isinstance(params, thread_ops.ThreadCreateParams) else threads.fork
    response = create(params, ctx)
    session.subscribe(_thread_id_of(response).thread.id)
    return msgspec.Raw(response)


async def settings_update(
    session: Session, params: config_ops.SettingsUpdateParams, ctx: CommandContext | None
) -> Any:
    assert ctx is not None
    response = session.profile.ensure_engine().config.update(params, ctx)
    if params.mcp_servers is not msgspec.UNSET:
        await session.host.reload_mcp()
    return msgspec.Raw(response)


def _without_secret(params: Any) -> dict[str, Any]:
    """The receipt digest of a credentials op: the secret enters only as its fingerprint,
    so not even a hash of the full secret reaches the database."""
    from panelot_host.credentials.secret import fingerprint

    secret = getattr(params, "secret", None)
    return {
        "ref": params.ref,
        "commandId": params.command_id,
        "secret": fingerprint(secret) if secret else None,
    }


def _open(profile: OpenProfile) -> Callable[..., Any]:
    return lambda params: profile.threads.open(params.thread_id)


ROUTES: Mapping[str, Route] = MappingProxyType(
    {
        "initialize": Route(initialize),
        "thread.create": Route(creates_thread),
        "thread.list": query(lambda p: p.threads.list),
        "thread.open": query(_open),
        "thread.rename": command(lambda p: p.threads.rename),
        "thread.delete": command(lambda p: p.threads.delete),
        "thread.fork": Route(creates_thread),
        "thread.selectBranch": command(lambda p: p.threads.select_branch),
        "turn.submit": command(lambda p: p.ensure_engine().turns.submit),
        "turn.steer": command(lambda p: p.ensure_engine().turns.steer),
        "turn.enqueue": command(lambda p: p.ensure_engine().turns.enqueue),
        "queue.update": command(lambda p: p.ensure_engine().turns.update_queue),
        "queue.remove": command(lambda p: p.ensure_engine().turns.remove_from_queue),
        "turn.interrupt": Route(interrupt),
        "approval.response": command(lambda p: p.ensure_engine().turns.approval_response),
        "interaction.response": command(lambda p: p.ensure_engine().turns.interaction_response),
        "run.resume": command(lambda p: p.ensure_engine().turns.resume),
        "recovery.resolve": command(lambda p: p.ensure_engine().turns.resolve),
        "settings.get": query(lambda p: lambda params: p.ensure_engine().config.get()),
        "settings.update": Route(settings_update),
        "credentials.set": Route(
            command(lambda p: p.ensure_engine().config.set_credential).handler, _without_secret
        ),
        "credentials.delete": Route(
            command(lambda p: p.ensure_engine().config.delete_credential).handler, _without_secret
        ),
        "permissions.list": query(lambda p: p.ensure_engine().config.list_grants),
        "permissions.revoke": command(lambda p: p.ensure_engine().config.revoke),
    }
)
