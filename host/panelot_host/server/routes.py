"""Which engine call serves which op: the server's half of each op's one declaration, and
the only place where params become engine arguments.

The protocol declares every op once (method, params, result, command or not:
``protocol.registry.OPS``). Here each is bound, by its params struct, to exactly one
handler; building ``ROUTES`` at import fails when a declared op has no handler or two.
A handler turns the params into plain arguments of an engine service and returns its
result struct; ``Route.call`` builds a command's ``Receipt`` and answers with the response
stored with it (encoded once; a repeated command answers the stored bytes).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import msgspec

from panelot_host.engine.commands import Receipt
from panelot_host.errors import InvalidState
from panelot_host.protocol import ops
from panelot_host.protocol.registry import OPS, OpSpec
from panelot_host.server import handshake
from panelot_host.server.host import Host, OpenProfile
from panelot_host.store.receipts import Replay, command_context

if TYPE_CHECKING:
    from panelot_host.engine.config_ops import ConfigService
    from panelot_host.engine.exports.service import ExportService
    from panelot_host.engine.provider_ops import ProviderService
    from panelot_host.engine.threads import ThreadService
    from panelot_host.engine.turn_ops import TurnService
    from panelot_host.engine.workflows import WorkflowService
    from panelot_host.tools.context import BrowserBridge

P = TypeVar("P", bound=msgspec.Struct)


class Session(Protocol):
    """What a handler may use of its connection."""

    host: Host
    browser_tools: tuple[str, ...]

    @property
    def profile(self) -> OpenProfile: ...

    def mark_initialized(self, profile: OpenProfile, browser_tools: tuple[str, ...]) -> None: ...

    def subscribe(self, thread_id: str) -> None: ...

    def browser_bridge(self) -> BrowserBridge: ...


Handler = Callable[[Session, Any, Any], Any]
"""``(session, params, receipt)`` -> the result struct, or an awaitable of it. ``receipt``
is the command's ``Receipt``, None for an op that is not a command."""


class Route(msgspec.Struct, frozen=True):
    spec: OpSpec
    handler: Handler
    digest: Callable[[Any], object] | None = None
    """What the receipt digest covers, when not the params themselves."""

    async def call(self, session: Session, params: Any) -> Any:
        """Serve ``params``: the result struct, or a command's stored response as
        ``msgspec.Raw``."""
        if not self.spec.command:
            return await self._run(session, params, None)
        digested = self.digest(params) if self.digest is not None else params
        receipt = Receipt(command_context(params.command_id, self.spec.method, digested))
        try:
            await self._run(session, params, receipt)
        except Replay as replay:
            return msgspec.Raw(replay.response)
        if receipt.response is None:  # a service that ran no command_unit: a bug
            raise RuntimeError(f"{self.spec.method} answered without storing its receipt")
        return msgspec.Raw(receipt.response)

    async def _run(self, session: Session, params: Any, receipt: Receipt | None) -> Any:
        result = self.handler(session, params, receipt)
        return await result if isinstance(result, Awaitable) else result


def on(
    params: type[P],
    handler: Callable[[Session, P, Any], object],
    *,
    digest: Callable[[P], object] | None = None,
) -> tuple[type[msgspec.Struct], Handler, Callable[[Any], object] | None]:
    """Bind ``handler`` to the op whose params struct is ``params``."""
    return params, handler, digest


def bind(
    ops_table: Mapping[str, OpSpec],
    *bindings: tuple[type[msgspec.Struct], Handler, Callable[[Any], object] | None],
) -> Mapping[str, Route]:
    """Method -> route, in declaration order.

    Raises:
        LookupError: a handler for params no declared op has, a second handler for an op,
            or an op without a handler.
    """
    by_params = {spec.params: spec for spec in ops_table.values()}
    found: dict[str, Route] = {}
    for params, handler, digest in bindings:
        spec = by_params.get(params)
        if spec is None:
            raise LookupError(f"{params.__name__} is the params of no op in registry.OPS")
        if spec.method in found:
            raise LookupError(f"{spec.method!r} has two handlers")
        found[spec.method] = Route(spec, handler, digest)
    missing = [method for method in ops_table if method not in found]
    if missing:
        raise LookupError(f"ops without a handler: {', '.join(missing)}")
    return MappingProxyType({method: found[method] for method in ops_table})


# ---------------------------------------------------------------- handlers


async def initialize(
    session: Session, params: ops.InitializeParams, receipt: None
) -> ops.InitializeResult:
    version = handshake.negotiate(params)
    try:
        session.profile  # noqa: B018 - raises NotInitialized while not yet initialized
    except Exception:
        profile = await session.host.open_profile(params.client.profile_id)
    else:
        raise InvalidState("this connection is already initialized")
    tools = handshake.browser_tools(params)
    start_session(session, profile, tools)
    return handshake.initialize_result(version, tools)


def start_session(session: Session, profile: OpenProfile, tools: tuple[str, ...]) -> None:
    """What an answered ``initialize`` starts: the session serves ``profile``, the browser
    runs ``tools``, and the engine is warmed up (also for a session the prelude
    initialized: ``native.serve``)."""
    session.mark_initialized(profile, tools)
    if tools:
        profile.attach_browser(session.browser_bridge(), frozenset(tools))
    session.host.warm_up()


def _subscribed(session: Session, result: ops.ThreadResult) -> ops.ThreadResult:
    """A new thread's events go to the session that made it (``thread.create``/``fork``)."""
    session.subscribe(result.thread.id)
    return result


def _submit(session: Session, p: ops.TurnSubmitParams, receipt: Receipt) -> Any:
    attachments = [msgspec.to_builtins(a) for a in p.attachments]
    turns = _turns(session)
    session.profile.ensure_engine().tabs.share_on_submit(p.thread_id, p.share_tab)
    return turns.submit(
        receipt, p.thread_id, p.text, attachments, p.model, p.token_budget, p.cost_budget_usd
    )


async def _settings_update(
    session: Session, p: ops.SettingsUpdateParams, receipt: Receipt
) -> ops.SettingsResult:
    changes = msgspec.to_builtins(p)  # the fields present, as stored (camelCase)
    del changes["commandId"]
    servers = changes.pop("mcpServers", msgspec.UNSET)
    replaced = None if servers is msgspec.UNSET else servers or {}  # null: no servers
    result = _config(session).update(receipt, changes, replaced)
    if p.mcp_servers is not msgspec.UNSET:
        await session.host.reload_mcp()
    return result


def _without_secret(params: ops.CredentialsSetParams | ops.CredentialsDeleteParams) -> object:
    """The receipt digest of a credentials op: the secret enters only as its fingerprint,
    so not even a hash of the full secret reaches the database."""
    # lazy: the credentials package imports its store, which start-up does not need
    from panelot_host.credentials.secret import fingerprint

    return {
        "ref": params.ref,
        "commandId": params.command_id,
        "secret": fingerprint(params.secret) if params.secret else None,
    }


def _workflow_run(session: Session, p: ops.WorkflowRunParams, receipt: Receipt) -> Any:
    result = _workflows(session).run(
        receipt, p.workflow_id, p.thread_id, dict(p.parameters), p.trigger
    )
    session.subscribe(result.thread_id)  # a new thread's events go to the session that ran it
    return result


def _workflows(session: Session) -> WorkflowService:
    return session.profile.ensure_engine().workflows


def _exports(session: Session) -> ExportService:
    return session.profile.ensure_engine().exports


def _threads(session: Session) -> ThreadService:
    return session.profile.threads  # served before the engine is built


def _turns(session: Session) -> TurnService:
    return session.profile.ensure_engine().turns


def _config(session: Session) -> ConfigService:
    return session.profile.ensure_engine().config


def _provider(session: Session) -> ProviderService:
    return session.profile.ensure_engine().provider


ROUTES: Mapping[str, Route] = bind(
    OPS,
    on(ops.InitializeParams, initialize),
    # threads
    on(ops.ThreadCreateParams, lambda s, p, r: _subscribed(s, _threads(s).create(r, p.title))),
    on(ops.ThreadListParams, lambda s, p, _: _threads(s).list(p.limit, p.cursor, p.query)),
    on(ops.ThreadOpenParams, lambda s, p, _: _threads(s).open(p.thread_id)),
    on(ops.ThreadDeleteParams, lambda s, p, r: _threads(s).delete(r, p.thread_id)),
    on(
        ops.ThreadForkParams,
        lambda s, p, r: _subscribed(s, _threads(s).fork(r, p.thread_id, p.at_item_id)),
    ),
    on(
        ops.ThreadSelectBranchParams,
        lambda s, p, r: _threads(s).select_branch(r, p.thread_id, p.item_id),
    ),
    on(ops.ThreadRenameParams, lambda s, p, r: _threads(s).rename(r, p.thread_id, p.title)),
    on(
        ops.ThreadShareTabParams,
        lambda s, p, r: s.profile.ensure_engine().tabs.share(r, p.thread_id, p.tab),
    ),
    # turns
    on(ops.TurnSubmitParams, _submit),
    on(
        ops.TurnSteerParams,
        lambda s, p, r: _turns(s).steer(r, p.thread_id, p.expected_turn_id, p.text),
    ),
    on(ops.TurnEnqueueParams, lambda s, p, r: _turns(s).enqueue(r, p.thread_id, p.text)),
    on(
        ops.QueueUpdateParams,
        lambda s, p, r: _turns(s).update_queue(
            r, p.thread_id, p.entry_id, text=p.text, position=p.position
        ),
    ),
    on(
        ops.QueueRemoveParams,
        lambda s, p, r: _turns(s).remove_from_queue(r, p.thread_id, p.entry_id),
    ),
    # not a command (always allowed, idempotent); answered once the Turn has ended
    on(ops.TurnInterruptParams, lambda s, p, _: _turns(s).interrupt(p.thread_id, p.turn_id)),
    on(
        ops.ApprovalResponseParams,
        lambda s, p, r: _turns(s).approval_response(
            r, p.request_id, p.decision, p.scope, p.message
        ),
    ),
    on(
        ops.InteractionResponseParams,
        lambda s, p, r: _turns(s).interaction_response(r, p.interaction_id, p.action, p.values),
    ),
    on(
        ops.RunResumeParams,
        lambda s, p, r: _turns(s).resume(
            r, p.thread_id, p.run_id, p.token_budget, p.cost_budget_usd
        ),
    ),
    on(
        ops.RecoveryResolveParams,
        lambda s, p, r: _turns(s).resolve(r, p.tool_call_id, p.outcome),
    ),
    # configuration
    on(ops.SettingsGetParams, lambda s, p, _: _config(s).get()),
    on(ops.ProviderStatusParams, lambda s, p, _: _provider(s).status()),
    on(ops.ProviderDiscoverParams, lambda s, p, _: _provider(s).discover()),
    on(ops.ProviderTestParams, lambda s, p, _: _provider(s).test()),
    on(ops.SettingsUpdateParams, _settings_update),
    on(
        ops.CredentialsSetParams,
        lambda s, p, r: _config(s).set_credential(r, p.ref, p.secret, p.origin),
        digest=_without_secret,
    ),
    on(
        ops.CredentialsDeleteParams,
        lambda s, p, r: _config(s).delete_credential(r, p.ref),
        digest=_without_secret,
    ),
    on(ops.PermissionsListParams, lambda s, p, _: _config(s).list_grants(p.thread_id, p.origin)),
    on(ops.PermissionsRevokeParams, lambda s, p, r: _config(s).revoke(r, p.grant_id)),
    # workflows
    on(ops.WorkflowProposeParams, lambda s, p, _: _workflows(s).propose(p.thread_id, p.turn_id)),
    on(ops.WorkflowSaveParams, lambda s, p, r: _workflows(s).save(r, p.workflow)),
    on(ops.WorkflowListParams, lambda s, p, _: _workflows(s).list_all()),
    on(ops.WorkflowGetParams, lambda s, p, _: _workflows(s).get(p.workflow_id)),
    on(
        ops.WorkflowUpdateParams,
        lambda s, p, r: _workflows(s).update(
            r,
            p.workflow_id,
            name=p.name,
            goal=p.goal,
            parameters=p.parameters,
            remove_steps=p.remove_steps,
        ),
    ),
    on(ops.WorkflowDeleteParams, lambda s, p, r: _workflows(s).delete(r, p.workflow_id)),
    on(ops.WorkflowExportParams, lambda s, p, _: _workflows(s).export(p.workflow_id)),
    on(ops.WorkflowImportParams, lambda s, p, r: _workflows(s).import_(r, p.document)),
    on(ops.WorkflowRunParams, _workflow_run),
    on(
        ops.WorkflowScheduleSetParams,
        lambda s, p, r: _workflows(s).set_schedule(
            r, p.workflow_id, p.schedule, p.paused, p.utc_offset_minutes
        ),
    ),
    on(ops.WorkflowScheduleListParams, lambda s, p, _: _workflows(s).list_schedules()),
    on(ops.WorkflowDueParams, lambda s, p, r: _workflows(s).due(r, p.now, p.grace_minutes)),
    # a turn's timeline and a thread's exports (issue 30)
    on(ops.FrameGetParams, lambda s, p, _: _threads(s).frame(p.frame_id)),
    on(
        ops.ThreadExportParams,
        lambda s, p, _: _exports(s).export(p.thread_id, p.turn_id, p.format),
    ),
    on(ops.ThreadImportParams, lambda s, p, r: _exports(s).import_(r, p.document)),
)
"""Method -> route, for every op of ``protocol.registry.OPS`` (checked at import)."""
