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
from panelot_host.store.receipts import command_context

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


Handler = Callable[[Session, Any], Awaitable[Any]]


class Route(msgspec.Struct, frozen=True):
    handler: Handler
    needs_initialize: bool = True


async def initialize(session: Session, params: session_ops.InitializeParams) -> Any:
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


async def thread_create(session: Session, params: thread_ops.ThreadCreateParams) -> Any:
    ctx = command_context(params.command_id, "thread.create", params)
    response = session.profile.threads.create(params, ctx)
    session.subscribe(_thread_id_of(response).thread.id)
    return msgspec.Raw(response)


async def thread_list(session: Session, params: thread_ops.ThreadListParams) -> Any:
    return session.profile.threads.list(params)


async def thread_open(session: Session, params: thread_ops.ThreadOpenParams) -> Any:
    snapshot = session.profile.threads.open(params.thread_id)
    session.subscribe(params.thread_id)  # no await since the snapshot: seq > lastSeq holds
    return snapshot


async def thread_rename(session: Session, params: thread_ops.ThreadRenameParams) -> Any:
    session.subscribe(params.thread_id)
    ctx = command_context(params.command_id, "thread.rename", params)
    return msgspec.Raw(session.profile.threads.rename(params, ctx))


async def thread_delete(session: Session, params: thread_ops.ThreadDeleteParams) -> Any:
    ctx = command_context(params.command_id, "thread.delete", params)
    return msgspec.Raw(session.profile.threads.delete(params, ctx))


async def thread_fork(session: Session, params: thread_ops.ThreadForkParams) -> Any:
    ctx = command_context(params.command_id, "thread.fork", params)
    response = session.profile.threads.fork(params, ctx)
    session.subscribe(_thread_id_of(response).thread.id)
    return msgspec.Raw(response)


async def thread_select_branch(
    session: Session, params: thread_ops.ThreadSelectBranchParams
) -> Any:
    session.subscribe(params.thread_id)
    ctx = command_context(params.command_id, "thread.selectBranch", params)
    return msgspec.Raw(session.profile.threads.select_branch(params, ctx))


def _command(method: str, params: Any) -> Any:
    return command_context(params.command_id, method, params)


async def turn_submit(session: Session, params: turn_ops.TurnSubmitParams) -> Any:
    session.subscribe(params.thread_id)
    return msgspec.Raw(session.profile.engine.turns.submit(params, _command("turn.submit", params)))


async def turn_steer(session: Session, params: turn_ops.TurnSteerParams) -> Any:
    session.subscribe(params.thread_id)
    return msgspec.Raw(session.profile.engine.turns.steer(params, _command("turn.steer", params)))


async def turn_enqueue(session: Session, params: turn_ops.TurnEnqueueParams) -> Any:
    session.subscribe(params.thread_id)
    ctx = _command("turn.enqueue", params)
    return msgspec.Raw(session.profile.engine.turns.enqueue(params, ctx))


async def queue_update(session: Session, params: turn_ops.QueueUpdateParams) -> Any:
    session.subscribe(params.thread_id)
    ctx = _command("queue.update", params)
    return msgspec.Raw(session.profile.engine.turns.update_queue(params, ctx))


async def queue_remove(session: Session, params: turn_ops.QueueRemoveParams) -> Any:
    session.subscribe(params.thread_id)
    ctx = _command("queue.remove", params)
    return msgspec.Raw(session.profile.engine.turns.remove_from_queue(params, ctx))


async def turn_interrupt(session: Session, params: turn_ops.TurnInterruptParams) -> Any:
    session.subscribe(params.thread_id)
    return await session.profile.engine.turns.interrupt(params)


async def approval_response(session: Session, params: turn_ops.ApprovalResponseParams) -> Any:
    ctx = _command("approval.response", params)
    return msgspec.Raw(session.profile.engine.turns.approval_response(params, ctx))


async def interaction_response(session: Session, params: turn_ops.InteractionResponseParams) -> Any:
    ctx = _command("interaction.response", params)
    return msgspec.Raw(session.profile.engine.turns.interaction_response(params, ctx))


async def run_resume(session: Session, params: turn_ops.RunResumeParams) -> Any:
    session.subscribe(params.thread_id)
    return msgspec.Raw(session.profile.engine.turns.resume(params, _command("run.resume", params)))


async def recovery_resolve(session: Session, params: turn_ops.RecoveryResolveParams) -> Any:
    ctx = _command("recovery.resolve", params)
    return msgspec.Raw(session.profile.engine.turns.resolve(params, ctx))


async def settings_get(session: Session, params: config_ops.SettingsGetParams) -> Any:
    return session.profile.engine.config.get()


async def settings_update(session: Session, params: config_ops.SettingsUpdateParams) -> Any:
    ctx = _command("settings.update", params)
    response = session.profile.engine.config.update(params, ctx)
    if params.mcp_servers is not msgspec.UNSET:
        await session.host.reload_mcp()
    return msgspec.Raw(response)


async def credentials_set(session: Session, params: config_ops.CredentialsSetParams) -> Any:
    ctx = command_context(params.command_id, "credentials.set", _without_secret(params))
    return msgspec.Raw(session.profile.engine.config.set_credential(params, ctx))


async def credentials_delete(session: Session, params: config_ops.CredentialsDeleteParams) -> Any:
    ctx = command_context(params.command_id, "credentials.delete", _without_secret(params))
    return msgspec.Raw(session.profile.engine.config.delete_credential(params, ctx))


async def permissions_list(session: Session, params: config_ops.PermissionsListParams) -> Any:
    return session.profile.engine.config.list_grants(params)


async def permissions_revoke(session: Session, params: config_ops.PermissionsRevokeParams) -> Any:
    ctx = _command("permissions.revoke", params)
    return msgspec.Raw(session.profile.engine.config.revoke(params, ctx))


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


ROUTES: Mapping[str, Route] = MappingProxyType(
    {
        "initialize": Route(initialize, needs_initialize=False),
        "thread.create": Route(thread_create),
        "thread.list": Route(thread_list),
        "thread.open": Route(thread_open),
        "thread.rename": Route(thread_rename),
        "thread.delete": Route(thread_delete),
        "thread.fork": Route(thread_fork),
        "thread.selectBranch": Route(thread_select_branch),
        "turn.submit": Route(turn_submit),
        "turn.steer": Route(turn_steer),
        "turn.enqueue": Route(turn_enqueue),
        "queue.update": Route(queue_update),
        "queue.remove": Route(queue_remove),
        "turn.interrupt": Route(turn_interrupt),
        "approval.response": Route(approval_response),
        "interaction.response": Route(interaction_response),
        "run.resume": Route(run_resume),
        "recovery.resolve": Route(recovery_resolve),
        "settings.get": Route(settings_get),
        "settings.update": Route(settings_update),
        "credentials.set": Route(credentials_set),
        "credentials.delete": Route(credentials_delete),
        "permissions.list": Route(permissions_list),
        "permissions.revoke": Route(permissions_revoke),
    }
)
