"""The method tables: every op, event, host -> shim request and control notification.

Built once at import; the mappings are read-only. ``OPS`` is the one declaration of every
op (`docs/protocol.md`, "Adding an op").
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

import msgspec

from panelot_host.protocol import events as ev
from panelot_host.protocol import ops
from panelot_host.protocol.ops._base import OpSpec, command, request

__all__ = [
    "CANCEL_REQUEST",
    "CHUNK",
    "CONTROL_NOTIFICATIONS",
    "ERROR",
    "EVENTS",
    "EVENT_METHODS",
    "OPS",
    "SHIM_REQUESTS",
    "OpSpec",
    "table",
]


def table(*specs: OpSpec) -> MappingProxyType[str, OpSpec]:
    """Method -> spec, read-only, in declaration order.

    Raises:
        ValueError: a method is declared twice.
    """
    found: dict[str, OpSpec] = {}
    for spec in specs:
        if spec.method in found:
            raise ValueError(f"op {spec.method!r} is declared twice")
        found[spec.method] = spec
    return MappingProxyType(found)


OPS: Final = table(
    request("initialize", ops.InitializeParams, ops.InitializeResult, before_initialize=True),
    command("thread.create", ops.ThreadCreateParams, ops.ThreadCreateResult),
    request("thread.list", ops.ThreadListParams, ops.ThreadListResult),
    request("thread.open", ops.ThreadOpenParams, ops.ThreadOpenResult),
    command("thread.delete", ops.ThreadDeleteParams, ops.ThreadDeleteResult),
    command("thread.fork", ops.ThreadForkParams, ops.ThreadForkResult),
    command("thread.selectBranch", ops.ThreadSelectBranchParams, ops.ThreadSelectBranchResult),
    command("thread.rename", ops.ThreadRenameParams, ops.ThreadRenameResult),
    command("thread.shareTab", ops.ThreadShareTabParams, ops.ThreadShareTabResult),
    command("turn.submit", ops.TurnSubmitParams, ops.TurnSubmitResult),
    command("turn.steer", ops.TurnSteerParams, ops.TurnSteerResult),
    command("turn.enqueue", ops.TurnEnqueueParams, ops.TurnEnqueueResult),
    command("queue.update", ops.QueueUpdateParams, ops.QueueUpdateResult),
    command("queue.remove", ops.QueueRemoveParams, ops.QueueRemoveResult),
    request("turn.interrupt", ops.TurnInterruptParams, ops.TurnInterruptResult),
    command("approval.response", ops.ApprovalResponseParams, ops.ApprovalResponseResult),
    command("interaction.response", ops.InteractionResponseParams, ops.InteractionResponseResult),
    command("run.resume", ops.RunResumeParams, ops.RunResumeResult),
    command("recovery.resolve", ops.RecoveryResolveParams, ops.RecoveryResolveResult),
    request("settings.get", ops.SettingsGetParams, ops.SettingsGetResult),
    command("settings.update", ops.SettingsUpdateParams, ops.SettingsUpdateResult),
    command("credentials.set", ops.CredentialsSetParams, ops.CredentialsSetResult),
    command("credentials.delete", ops.CredentialsDeleteParams, ops.CredentialsDeleteResult),
    request("permissions.list", ops.PermissionsListParams, ops.PermissionsListResult),
    command("permissions.revoke", ops.PermissionsRevokeParams, ops.PermissionsRevokeResult),
    request("provider.status", ops.ProviderStatusParams, ops.ProviderStatusResult),
    request("provider.discover", ops.ProviderDiscoverParams, ops.ProviderDiscoverResult),
    request("provider.test", ops.ProviderTestParams, ops.ProviderTestResult),
    request("workflow.propose", ops.WorkflowProposeParams, ops.WorkflowProposeResult),
    command("workflow.save", ops.WorkflowSaveParams, ops.WorkflowSaveResult),
    request("workflow.list", ops.WorkflowListParams, ops.WorkflowListResult),
    request("workflow.get", ops.WorkflowGetParams, ops.WorkflowGetResult),
    command("workflow.update", ops.WorkflowUpdateParams, ops.WorkflowUpdateResult),
    command("workflow.delete", ops.WorkflowDeleteParams, ops.WorkflowDeleteResult),
    request("workflow.export", ops.WorkflowExportParams, ops.WorkflowExportResult),
    command("workflow.import", ops.WorkflowImportParams, ops.WorkflowImportResult),
    command("workflow.run", ops.WorkflowRunParams, ops.WorkflowRunResult),
    command("workflow.schedule.set", ops.WorkflowScheduleSetParams, ops.WorkflowScheduleSetResult),
    request(
        "workflow.schedule.list", ops.WorkflowScheduleListParams, ops.WorkflowScheduleListResult
    ),
    command("workflow.due", ops.WorkflowDueParams, ops.WorkflowDueResult),
    request("frame.get", ops.FrameGetParams, ops.FrameGetResult),
    request("thread.export", ops.ThreadExportParams, ops.ThreadExportResult),
    command("thread.import", ops.ThreadImportParams, ops.ThreadImportResult),
)
"""Client -> host requests: each op declared once (``command``: it changes stored state and
carries ``commandId``; ``request``: it does not). The codec, the schema and the server's
``routes`` are derived from this table."""

SHIM_REQUESTS: Final = table(
    request(
        "browser.resolveTarget",
        ops.BrowserResolveTargetParams,
        ops.BrowserResolveTargetResult,
    ),
    request("browser.invoke", ops.BrowserInvokeParams, ops.BrowserInvokeResult),
    request("browser.threadTabs", ops.BrowserThreadTabsParams, ops.BrowserThreadTabsResult),
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
        "item.updated": ev.ItemUpdatedEvent,
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
