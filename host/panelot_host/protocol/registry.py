"""The method tables: every op, event, host -> shim request and control notification.

Built once at import; the mappings are read-only.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

import msgspec

from panelot_host.protocol import events as ev
from panelot_host.protocol import ops


class OpSpec(msgspec.Struct, frozen=True):
    """What the server needs to know about a method.

    ``command``: the op changes stored state and carries ``commandId`` (receipts).
    ``before_initialize``: allowed before ``initialize`` (only ``initialize`` itself).
    ``names_thread``: the params have ``threadId`` (the op subscribes the connection).
    """

    method: str
    params: type[msgspec.Struct]
    result: type[msgspec.Struct]
    command: bool = False
    before_initialize: bool = False
    names_thread: bool = False


def _op(
    method: str,
    params: type[msgspec.Struct],
    result: type[msgspec.Struct],
    *,
    before_initialize: bool = False,
) -> tuple[str, OpSpec]:
    fields = params.__struct_fields__
    spec = OpSpec(
        method=method,
        params=params,
        result=result,
        command="command_id" in fields,
        before_initialize=before_initialize,
        names_thread="thread_id" in fields,
    )
    return method, spec


OPS: Final = MappingProxyType(
    dict(
        [
            _op("initialize", ops.InitializeParams, ops.InitializeResult, before_initialize=True),
            _op("thread.create", ops.ThreadCreateParams, ops.ThreadCreateResult),
            _op("thread.list", ops.ThreadListParams, ops.ThreadListResult),
            _op("thread.open", ops.ThreadOpenParams, ops.ThreadOpenResult),
            _op("thread.delete", ops.ThreadDeleteParams, ops.ThreadDeleteResult),
            _op("thread.fork", ops.ThreadForkParams, ops.ThreadForkResult),
            _op("thread.selectBranch", ops.ThreadSelectBranchParams, ops.ThreadSelectBranchResult),
            _op("thread.rename", ops.ThreadRenameParams, ops.ThreadRenameResult),
            _op("turn.submit", ops.TurnSubmitParams, ops.TurnSubmitResult),
            _op("turn.steer", ops.TurnSteerParams, ops.TurnSteerResult),
            _op("turn.enqueue", ops.TurnEnqueueParams, ops.TurnEnqueueResult),
            _op("queue.update", ops.QueueUpdateParams, ops.QueueUpdateResult),
            _op("queue.remove", ops.QueueRemoveParams, ops.QueueRemoveResult),
            _op("turn.interrupt", ops.TurnInterruptParams, ops.TurnInterruptResult),
            _op("approval.response", ops.ApprovalResponseParams, ops.ApprovalResponseResult),
            _op(
                "interaction.response",
                ops.InteractionResponseParams,
                ops.InteractionResponseResult,
            ),
            _op("run.resume", ops.RunResumeParams, ops.RunResumeResult),
            _op("recovery.resolve", ops.RecoveryResolveParams, ops.RecoveryResolveResult),
            _op("settings.get", ops.SettingsGetParams, ops.SettingsGetResult),
            _op("settings.update", ops.SettingsUpdateParams, ops.SettingsUpdateResult),
            _op("credentials.set", ops.CredentialsSetParams, ops.CredentialsSetResult),
            _op("credentials.delete", ops.CredentialsDeleteParams, ops.CredentialsDeleteResult),
            _op("permissions.list", ops.PermissionsListParams, ops.PermissionsListResult),
            _op("permissions.revoke", ops.PermissionsRevokeParams, ops.PermissionsRevokeResult),
        ]
    )
)
"""Client -> host requests."""

SHIM_REQUESTS: Final = MappingProxyType(
    dict(
        [
            _op(
                "browser.resolveTarget",
                ops.BrowserResolveTargetParams,
                ops.BrowserResolveTargetResult,
            ),
            _op("browser.invoke", ops.BrowserInvokeParams, ops.BrowserInvokeResult),
        ]
    )
)
"""Host -> shim requests (the shim answers with a response)."""

CANCEL_REQUEST: Final = "$/cancelRequest"
CHUNK: Final = "$/chunk"
ERROR: Final = "$/error"

CONTROL_NOTIFICATIONS: Final[MappingProxyType[str, type[msgspec.Struct]]] = MappingProxyType(
    {CANCEL_REQUEST: ops.CancelRequestParams}
)
"""Notifications either side may send that are not events."""

EVENTS: Final[MappingProxyType[str, type[msgspec.Struct]]] = MappingProxyType(
    {
        "thread.updated": ev.ThreadUpdatedEvent,
        "turn.started": ev.TurnStartedEvent,
        "item.started": ev.ItemStartedEvent,
        "item.completed": ev.ItemCompletedEvent,
        "item.delta": ev.ItemDeltaEvent,
        "approval.request": ev.ApprovalRequestEvent,
        "approval.resolved": ev.ApprovalResolvedEvent,
        "interaction.request": ev.InteractionRequestEvent,
        "interaction.resolved": ev.InteractionResolvedEvent,
        "queue.updated": ev.QueueUpdatedEvent,
        "run.updated": ev.RunUpdatedEvent,
        "turn.paused": ev.TurnPausedEvent,
        "turn.complete": ev.TurnCompleteEvent,
        "authority.widened": ev.AuthorityWidenedEvent,
        CHUNK: ev.ChunkEvent,
        ERROR: ev.ErrorEvent,
    }
)
"""Host -> client notifications: method -> params type."""

EVENT_METHODS: Final = MappingProxyType({cls: method for method, cls in EVENTS.items()})
"""Params type -> method, so ``encode_event(params)`` needs no method name."""
