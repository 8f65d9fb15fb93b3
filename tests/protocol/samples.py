"""One representative instance of every op's params and result and of every event,
with optional fields filled so round trips exercise them."""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.protocol import events as ev
from panelot_host.protocol import ops
from panelot_host.protocol.common import (
    ImageBlock,
    ProtocolVersions,
    Target,
    TextBlock,
    ToolInfo,
    ToolResult,
    TurnError,
    Usage,
)
from panelot_host.protocol.entities import (
    ApprovalRequest,
    Grant,
    InteractionRequest,
    QueueEntry,
    Run,
    Thread,
    ThreadSnapshot,
    ThreadStats,
    Turn,
)
from panelot_host.protocol.frames import (
    CapturedFrame,
    Frame,
    FrameInfo,
    FrameMark,
    FrameViewport,
)
from panelot_host.protocol.items import (
    AssistantItem,
    ImageAttachment,
    NoticeItem,
    SteeringItem,
    ToolCallItem,
    UserItem,
)
from panelot_host.protocol.tabs import SharedTab, ThreadTab, ThreadTabs
from panelot_host.protocol.thread_export import (
    ExportApproval,
    ExportFrame,
    ExportHost,
    ExportTurn,
    ModelCall,
    ThreadExportDocument,
)
from panelot_host.protocol.workflows import (
    DailySchedule,
    EverySchedule,
    ExpectValue,
    SemanticTarget,
    Workflow,
    WorkflowDefinition,
    WorkflowDocument,
    WorkflowParameter,
    WorkflowSchedule,
    WorkflowSource,
    WorkflowStep,
)

T0 = "2025-01-31T12:34:56.789Z"
IMAGE = ImageAttachment(media_type="image/png", data="iVBORw0KGgo=", name="shot.png")

THREAD_TABS = ThreadTabs(
    thread_id="th_1",
    title="Compare prices",
    color="blue",
    group_id=4,
    tabs=[ThreadTab(tab_id=7, url="https://a.b/x", title="A", source="opened", grouped=True)],
)
THREAD = Thread(
    id="th_1",
    title="Find flights",
    title_source="model",
    created_at=T0,
    updated_at=T0,
    stats=ThreadStats(turns=2, input_tokens=10, output_tokens=5, cost_usd=0.01),
    parent_thread_id="th_0",
    forked_from_item_id="it_9",
)
USER = UserItem(id="it_1", turn_id="tu_1", created_at=T0, text="hi", attachments=[IMAGE])
STEER = SteeringItem(id="it_2", turn_id="tu_1", created_at=T0, text="faster", parent_id="it_1")
ASSISTANT = AssistantItem(
    id="it_3", turn_id="tu_1", created_at=T0, text="ok", thinking="hmm", interrupted=True
)
FRAME_MARK = FrameMark(kind="point", x=120.5, y=48)
FRAME_INFO = FrameInfo(
    id="fr_1",
    phase="after",
    width=640,
    height=400,
    url="https://shop.example/cart",
    captured_at=T0,
    mark=FRAME_MARK,
    typed="••••••••",
)
CAPTURED = CapturedFrame(
    phase="before",
    mime="image/jpeg",
    data="/9j/2wBD",
    width=640,
    height=400,
    url="https://shop.example/cart",
    captured_at=T0,
    title="Cart",
    viewport=FrameViewport(x=0, y=300, width=1280, height=800),
    mark=FrameMark(kind="box", x=10, y=20, width=100, height=30),
    typed="socks",
    blurred=1,
)
TOOL_CALL = ToolCallItem(
    id="it_4",
    turn_id="tu_1",
    created_at=T0,
    call_id="toolu_1",
    name="browser_click",
    args={"ref": "e12"},
    status="succeeded",
    result=ToolResult(
        content=[TextBlock("clicked"), ImageBlock("image/png", "AAAA")],
        is_error=False,
        details={"x": 1},
    ),
    label="Click",
    level="L1",
    effects=["write"],
    target=Target(origin="https://shop.example", tab_id=3, title="Cart", element='button "Pay"'),
    frames=[FRAME_INFO],
    frame_skipped="background",
)
NOTICE = NoticeItem(
    id="it_5",
    turn_id="tu_1",
    created_at=T0,
    code="change_approach",
    text="The last 3 tool calls failed. Do not repeat them.",
    user_text="3 actions in a row failed.",
)
ITEMS = [USER, STEER, ASSISTANT, TOOL_CALL, NOTICE]

TURN = Turn(
    id="tu_1",
    status="failed",
    user_item_id="it_1",
    started_at=T0,
    cost_usd=None,
    usage=Usage(input_tokens=1, output_tokens=2, cache_read_tokens=3, cache_write_tokens=4),
    stop_reason="max_tokens",
    error=TurnError(kind="provider", message="boom"),
    ended_at=T0,
)
RUN = Run(id="ru_1", turn_id="tu_1", state="awaiting_approval")
QUEUE = [QueueEntry(id="qe_1", position=0, text="next", created_at=T0)]
APPROVAL = ApprovalRequest(
    request_id="ap_1",
    tool_call_id="it_4",
    tool=ToolInfo(name="browser_click", label="Click", level="L1", effects=["write"]),
    args={"ref": "e12"},
    target=Target(origin="https://example.com", tab_id=7),
)
INTERACTION = InteractionRequest(
    interaction_id="in_1", prompt="Log in, then continue", schema={"type": "object"}
)
GRANT = Grant(
    id="gr_1",
    scope="origin",
    tool="browser_*",
    decision="allow",
    created_at=T0,
    origin="https://a.b",
)
SNAPSHOT = ThreadSnapshot(
    thread=THREAD,
    items=ITEMS,
    turn=TURN,
    run=RUN,
    pending_approvals=[APPROVAL],
    pending_interactions=[INTERACTION],
    queue=QUEUE,
    pending_steering=[STEER],
    last_seq=42,
)
EXPORT_DOCUMENT = ThreadExportDocument(
    format="panelot.thread-export",
    version=1,
    exported_at=T0,
    host=ExportHost(version="0.1.0"),
    thread=THREAD,
    head_item_id="it_5",
    turns=[
        ExportTurn(
            **msgspec.structs.asdict(TURN),
            run_state="failed",
            model_calls=[ModelCall(model="m", input_tokens=1, output_tokens=2, created_at=T0)],
        )
    ],
    items=ITEMS,
    approvals=[
        ExportApproval(
            tool_call_id="it_4",
            turn_id="tu_1",
            decision="allow",
            scope="once",
            decided_by="user",
            request=APPROVAL,
            decided_at=T0,
        ),
        ExportApproval(tool_call_id="it_4", turn_id="tu_1", decision="deny", decided_by="policy"),
    ],
    frames=[
        ExportFrame(
            id="fr_1",
            phase="after",
            width=640,
            height=400,
            url="https://shop.example/cart",
            captured_at=T0,
            mark=FRAME_MARK,
            item_id="it_4",
            turn_id="tu_1",
            mime="image/jpeg",
            title="Cart",
        )
    ],
)

SETTINGS = ops.Settings(
    provider="openai",
    model="gpt-4o",
    model_capabilities=ops.ModelCapabilities(tool_use=True, vision=False),
    task_model=None,
    default_token_budget=100_000,
    policy_rules=[{"tool": "browser_navigate", "decision": "ask"}],
    mcp_servers={
        "fs": ops.McpServer(command="npx", args=["-y", "server-fs"], env={"A": "b"}),
        "web": ops.McpServer(
            url="https://mcp.example/",
            headers={"Authorization": ops.CredentialRef(credential_ref="k")},
        ),
    },
    base_url="http://localhost:11434/v1",
)

WF_STEP = WorkflowStep(
    tool="browser_type",
    arguments={"text": "{{search}}"},
    target=SemanticTarget(
        role="searchbox", name="Search", origin="https://a.b", url_pattern="https://a.b/*",
        landmark="main", heading='heading "Shop"', nth=0, count=1,
    ),
    expect=ExpectValue(value="{{search}}"),
    title="Type '{{search}}' into searchbox \"Search\"",
)  # fmt: skip
WF_DEFINITION = WorkflowDefinition(
    name="Buy socks",
    goal="Add socks to the cart",
    parameters=[WorkflowParameter(name="search", label="Search", default="socks")],
    steps=[WF_STEP],
    source=WorkflowSource(thread_id="th_1", turn_id="tu_1"),
)
WF_SCHEDULE = WorkflowSchedule(
    workflow_id="wf_1", schedule=DailySchedule(at="09:30"), utc_offset_minutes=60,
    next_run_at=T0, thread_id="th_1",
)  # fmt: skip
WORKFLOW = Workflow(
    id="wf_1", created_at=T0, updated_at=T0, schedule=WF_SCHEDULE,
    **msgspec.structs.asdict(WF_DEFINITION),
)  # fmt: skip

PARAMS: dict[str, msgspec.Struct] = {
    "initialize": ops.InitializeParams(
        protocol_version=1,
        min_protocol_version=1,
        client=ops.ClientInfo(name="panel", version="1.0", profile_id="p-1"),
        capabilities=ops.ClientCapabilities(browser_tools=["browser_click"]),
    ),
    "thread.create": ops.ThreadCreateParams(command_id="c1", title="T"),
    "thread.list": ops.ThreadListParams(limit=10, cursor="abc", query="fl"),
    "thread.open": ops.ThreadOpenParams(thread_id="th_1"),
    "thread.delete": ops.ThreadDeleteParams(command_id="c2", thread_id="th_1"),
    "thread.fork": ops.ThreadForkParams(command_id="c3", thread_id="th_1", at_item_id="it_3"),
    "thread.selectBranch": ops.ThreadSelectBranchParams(
        command_id="c4", thread_id="th_1", item_id="it_3"
    ),
    "thread.rename": ops.ThreadRenameParams(command_id="c5", thread_id="th_1", title="New"),
    "thread.shareTab": ops.ThreadShareTabParams(
        command_id="c5s", thread_id="th_1", tab=SharedTab(tab_id=7, url="https://a.b/x", title="A")
    ),
    "turn.submit": ops.TurnSubmitParams(
        command_id="c6",
        thread_id="th_1",
        text="Book it",
        attachments=[IMAGE],
        model="claude-sonnet-4",
        token_budget=5000,
    ),
    "turn.steer": ops.TurnSteerParams(
        command_id="c7", thread_id="th_1", expected_turn_id="tu_1", text="also"
    ),
    "turn.enqueue": ops.TurnEnqueueParams(command_id="c8", thread_id="th_1", text="later"),
    "queue.update": ops.QueueUpdateParams(
        command_id="c9", thread_id="th_1", entry_id="qe_1", text="edit", position=0
    ),
    "queue.remove": ops.QueueRemoveParams(command_id="c10", thread_id="th_1", entry_id="qe_1"),
    "turn.interrupt": ops.TurnInterruptParams(thread_id="th_1", turn_id="tu_1"),
    "approval.response": ops.ApprovalResponseParams(
        command_id="c11", request_id="ap_1", decision="allow", scope="origin", message="sure"
    ),
    "interaction.response": ops.InteractionResponseParams(
        command_id="c12", interaction_id="in_1", values={"done": True}
    ),
    "run.resume": ops.RunResumeParams(
        command_id="c13", thread_id="th_1", run_id="ru_1", token_budget=10
    ),
    "recovery.resolve": ops.RecoveryResolveParams(
        command_id="c14", tool_call_id="it_4", outcome="retry"
    ),
    "settings.get": ops.SettingsGetParams(),
    "settings.update": ops.SettingsUpdateParams(
        command_id="c15",
        model="gpt-4o",
        task_model=None,
        mcp_servers=SETTINGS.mcp_servers,
        model_capabilities=ops.ModelCapabilities(vision=True),
    ),
    "credentials.set": ops.CredentialsSetParams(command_id="c16", ref="openai", secret="sk-x"),
    "credentials.delete": ops.CredentialsDeleteParams(command_id="c17", ref="openai"),
    "permissions.list": ops.PermissionsListParams(thread_id="th_1"),
    "permissions.revoke": ops.PermissionsRevokeParams(command_id="c18", grant_id="gr_1"),
    "provider.status": ops.ProviderStatusParams(),
    "provider.discover": ops.ProviderDiscoverParams(),
    "provider.test": ops.ProviderTestParams(),
    # host -> shim
    "browser.resolveTarget": ops.BrowserResolveTargetParams(
        tool="browser_click", args={"ref": "e"}, thread_tabs=THREAD_TABS
    ),
    "browser.invoke": ops.BrowserInvokeParams(
        call_id="toolu_1",
        tool="browser_click",
        args={"ref": "e"},
        target=ops.BrowserTarget(tab_id=7, url="https://a.b/x", origin="https://a.b", title="A"),
        capture=True,
    ),
    "workflow.propose": ops.WorkflowProposeParams(thread_id="th_1", turn_id="tu_1"),
    "workflow.save": ops.WorkflowSaveParams(command_id="w1", workflow=WF_DEFINITION),
    "workflow.list": ops.WorkflowListParams(),
    "workflow.get": ops.WorkflowGetParams(workflow_id="wf_1"),
    "workflow.update": ops.WorkflowUpdateParams(
        command_id="w2", workflow_id="wf_1", name="Socks", remove_steps=[1]
    ),
    "workflow.delete": ops.WorkflowDeleteParams(command_id="w3", workflow_id="wf_1"),
    "workflow.export": ops.WorkflowExportParams(workflow_id="wf_1"),
    "workflow.import": ops.WorkflowImportParams(
        command_id="w4", document={"format": "panelot.workflow", "version": 1, "workflow": {}}
    ),
    "workflow.run": ops.WorkflowRunParams(
        command_id="w5", workflow_id="wf_1", parameters={"search": "wool"}, trigger="schedule"
    ),
    "workflow.schedule.set": ops.WorkflowScheduleSetParams(
        command_id="w6",
        workflow_id="wf_1",
        schedule=EverySchedule(hours=4),
        paused=False,
        utc_offset_minutes=60,
    ),
    "workflow.schedule.list": ops.WorkflowScheduleListParams(),
    "workflow.due": ops.WorkflowDueParams(command_id="w7", now=1_700_000_000_000),
    "frame.get": ops.FrameGetParams(frame_id="fr_1"),
    "thread.export": ops.ThreadExportParams(thread_id="th_1", turn_id="tu_1", format="html"),
    "thread.import": ops.ThreadImportParams(
        command_id="ti_1", document=msgspec.to_builtins(EXPORT_DOCUMENT)
    ),
    "browser.threadTabs": ops.BrowserThreadTabsParams(thread_tabs=THREAD_TABS),
    "$/cancelRequest": ops.CancelRequestParams(id=17),
}

RESULTS: dict[str, Any] = {
    "initialize": ops.InitializeResult(
        protocol_version=1,
        engine=ops.EngineInfo(name="panelot-host", version="0.1.0"),
        capabilities=ops.HostCapabilities(browser_tools=["browser_click"]),
        protocol_versions=ProtocolVersions(oldest=1, newest=1),
    ),
    "thread.create": ops.ThreadResult(thread=THREAD),
    "thread.list": ops.ThreadListResult(threads=[THREAD], next_cursor=None),
    "thread.open": SNAPSHOT,
    "thread.delete": ops.EmptyResult(),
    "thread.fork": ops.ThreadResult(thread=THREAD),
    "thread.selectBranch": SNAPSHOT,
    "thread.rename": ops.ThreadResult(thread=THREAD),
    "thread.shareTab": ops.ThreadResult(thread=THREAD),
    "turn.submit": ops.TurnSubmitResult(turn_id="tu_2"),
    "turn.steer": ops.TurnSteerResult(item_id="it_6"),
    "turn.enqueue": ops.TurnEnqueueResult(entry_id="qe_2", position=1),
    "queue.update": ops.QueueResult(queue=QUEUE),
    "queue.remove": ops.QueueResult(queue=[]),
    "turn.interrupt": ops.EmptyResult(),
    "approval.response": ops.EmptyResult(),
    "interaction.response": ops.EmptyResult(),
    "run.resume": ops.EmptyResult(),
    "recovery.resolve": ops.EmptyResult(),
    "settings.get": ops.SettingsResult(settings=SETTINGS),
    "settings.update": ops.SettingsResult(settings=SETTINGS),
    "credentials.set": ops.CredentialsSetResult(ref="openai", fingerprint="sha256:ab12"),
    "credentials.delete": ops.CredentialsDeleteResult(ref="openai", fingerprint=None),
    "permissions.list": ops.GrantsResult(grants=[GRANT]),
    "permissions.revoke": ops.GrantsResult(grants=[]),
    "provider.status": ops.ProviderStatusResult(
        ready=False,
        provider=None,
        model=None,
        base_url=None,
        source=None,
        reason="No model is set up yet.",
    ),
    "provider.discover": ops.ProviderDiscoverResult(
        servers=[
            ops.LocalModelServer(
                base_url="http://127.0.0.1:11434/v1",
                port=11434,
                name="Ollama",
                models=["llama3.1"],
            )
        ]
    ),
    "provider.test": ops.ProviderTestResult(
        ok=False,
        provider="openai",
        model="llama3.1",
        url="http://127.0.0.1:11434/v1/models",
        latency_ms=12,
        cause="bad_key",
        message="The server refused this key.",
        detail="Incorrect API key provided",
        models=[],
    ),
    "browser.resolveTarget": ops.BrowserTarget(
        tab_id=7, url="https://a.b/x", origin="https://a.b", title="A"
    ),
    "browser.invoke": ops.BrowserInvokeResult(
        content=[TextBlock("done"), ImageBlock("image/jpeg", "BBBB")],
        is_error=False,
        details={"diff": []},
        thread_tabs=THREAD_TABS,
        frames=[CAPTURED],
        frame_skipped="private",
    ),
    "workflow.propose": ops.WorkflowProposeResult(draft=WF_DEFINITION, skipped=3),
    "workflow.save": ops.WorkflowResult(workflow=WORKFLOW),
    "workflow.list": ops.WorkflowListResult(workflows=[WORKFLOW]),
    "workflow.get": ops.WorkflowResult(workflow=WORKFLOW),
    "workflow.update": ops.WorkflowResult(workflow=WORKFLOW),
    "workflow.delete": ops.WorkflowDeleteResult(),
    "workflow.export": ops.WorkflowExportResult(
        document=WorkflowDocument(
            format="panelot.workflow", version=1, workflow=WF_DEFINITION, exported_at=T0
        )
    ),
    "workflow.import": ops.WorkflowResult(workflow=WORKFLOW),
    "workflow.run": ops.WorkflowRunResult(thread_id="th_1", turn_id="tu_3"),
    "workflow.schedule.set": ops.WorkflowScheduleSetResult(schedule=WF_SCHEDULE),
    "workflow.schedule.list": ops.WorkflowScheduleListResult(
        schedules=[WF_SCHEDULE], next_due_at=T0
    ),
    "workflow.due": ops.WorkflowDueResult(
        due=[ops.DueRun(workflow_id="wf_1", name="Buy socks", thread_id="th_1", due_at=T0)],
        missed=[
            ops.MissedRun(workflow_id="wf_1", name="Buy socks", count=2, first_at=T0, last_at=T0)
        ],
        next_due_at=T0,
    ),
    "browser.threadTabs": THREAD_TABS,
    "frame.get": ops.FrameGetResult(
        frame=Frame(
            **msgspec.structs.asdict(FRAME_INFO),
            thread_id="th_1",
            turn_id="tu_1",
            item_id="it_4",
            mime="image/jpeg",
            data="/9j/2wBD",
            title="Cart",
            viewport=FrameViewport(x=0, y=0, width=1280, height=800),
            blurred=2,
        )
    ),
    "thread.export": ops.ThreadExportResult(
        file_name="lisbon-trip.html", mime="text/html", text="<!doctype html>"
    ),
    "thread.import": ops.ThreadImportResult(thread=THREAD),
}

_TS = {"thread_id": "th_1", "seq": 7}
_APPROVAL_FIELDS = msgspec.structs.asdict(APPROVAL)
_INTERACTION_FIELDS = msgspec.structs.asdict(INTERACTION)

EVENTS: dict[str, msgspec.Struct] = {
    "thread.updated": ev.ThreadUpdatedEvent(**_TS, thread=THREAD),
    "turn.started": ev.TurnStartedEvent(**_TS, turn_id="tu_1", run_id="ru_1", user_item_id="it_1"),
    "item.started": ev.ItemStartedEvent(**_TS, turn_id="tu_1", item=ASSISTANT),
    "item.completed": ev.ItemCompletedEvent(**_TS, turn_id="tu_1", item=TOOL_CALL),
    "item.updated": ev.ItemUpdatedEvent(**_TS, turn_id="tu_1", item=TOOL_CALL),
    "item.delta": ev.ItemDeltaEvent(
        **_TS, turn_id="tu_1", item_id="it_3", delta=ev.ItemDelta(text="Hel")
    ),
    "approval.request": ev.ApprovalRequestEvent(**_TS, **_APPROVAL_FIELDS),
    "approval.resolved": ev.ApprovalResolvedEvent(
        **_TS, **_APPROVAL_FIELDS, decision="deny", scope="once"
    ),
    "interaction.request": ev.InteractionRequestEvent(**_TS, **_INTERACTION_FIELDS),
    "interaction.resolved": ev.InteractionResolvedEvent(
        **_TS, **_INTERACTION_FIELDS, action="decline"
    ),
    "queue.updated": ev.QueueUpdatedEvent(**_TS, queue=QUEUE),
    "run.updated": ev.RunUpdatedEvent(**_TS, run_id="ru_1", state="budget_paused"),
    "turn.paused": ev.TurnPausedEvent(**_TS, turn_id="tu_1", reason="budget", run_id="ru_1"),
    "turn.complete": ev.TurnCompleteEvent(
        **_TS,
        turn_id="tu_1",
        status="completed",
        usage=Usage(input_tokens=3),
        cost_usd=None,
        stop_reason="end_turn",
    ),
    "authority.widened": ev.AuthorityWidenedEvent(
        command_id="c_1",
        changes=[ev.AuthorityChange("mcp_command", "MCP server 'fs' runs as you: npx fs")],
    ),
    "$/chunk": ev.ChunkEvent(chunk_id="ch_1", index=0, count=2, data='{"jsonrpc"'),
    "$/error": ev.ErrorEvent(code=-32700, message="Parse error", kind="truncated_frame"),
}
