// Generated from schema/protocol.schema.json by extension-shim/scripts/gen-protocol-types.mjs.
// Do not edit: run `npm run gen:types` in extension-shim/ after the schema changes.

/**
 * An entry of ``mcpServers``: ``{command, args?, env?}`` (stdio) or ``{url, headers?}``
 * (HTTP), as in the ``mcp.json`` other MCP clients keep. ``type`` is an extension.
 */
export type McpServer1 = {
  [k: string]: unknown;
} & {
  command?: string | null;
  args?: string[];
  env?: {
    [k: string]: string | CredentialRef;
  };
  url?: string | null;
  headers?: {
    [k: string]: string | CredentialRef;
  };
  type?: ("http" | "sse" | "stdio" | "streamable-http") | null;
  cwd?: string | null;
  disabled?: boolean;
  allowSampling?: boolean;
  timeout?: number | null;
  maxTimeout?: number | null;
};

export interface ProtocolDefinitions {
  ApprovalRequest?: ApprovalRequest;
  ApprovalRequestEvent?: ApprovalRequestEvent;
  ApprovalResolvedEvent?: ApprovalResolvedEvent;
  ApprovalResponseParams?: ApprovalResponseParams;
  AssistantItem?: AssistantItem;
  AuthorityChange?: AuthorityChange;
  AuthorityWidenedEvent?: AuthorityWidenedEvent;
  BranchChoice?: BranchChoice;
  BranchPoint?: BranchPoint;
  BrowserInvokeParams?: BrowserInvokeParams;
  BrowserInvokeResult?: BrowserInvokeResult;
  BrowserResolveTargetParams?: BrowserResolveTargetParams;
  BrowserTarget?: BrowserTarget;
  BrowserThreadTabsParams?: BrowserThreadTabsParams;
  CancelRequestParams?: CancelRequestParams;
  CapturedFrame?: CapturedFrame;
  ChunkEvent?: ChunkEvent;
  ClientCapabilities?: ClientCapabilities;
  ClientInfo?: ClientInfo;
  CompactionItem?: CompactionItem;
  CredentialRef?: CredentialRef;
  CredentialsDeleteParams?: CredentialsDeleteParams;
  CredentialsDeleteResult?: CredentialsDeleteResult;
  CredentialsSetParams?: CredentialsSetParams;
  CredentialsSetResult?: CredentialsSetResult;
  DailySchedule?: DailySchedule;
  DecidedApproval?: DecidedApproval;
  DueRun?: DueRun;
  EmptyResult?: EmptyResult;
  EngineInfo?: EngineInfo;
  ErrorData?: ErrorData;
  ErrorEvent?: ErrorEvent;
  ErrorObject?: ErrorObject;
  EverySchedule?: EverySchedule;
  ExpectAppears?: ExpectAppears;
  ExpectNavigation?: ExpectNavigation;
  ExpectValue?: ExpectValue;
  Frame?: Frame;
  FrameGetParams?: FrameGetParams;
  FrameGetResult?: FrameGetResult;
  FrameInfo?: FrameInfo;
  FrameMark?: FrameMark;
  FrameViewport?: FrameViewport;
  Grant?: Grant;
  GrantsResult?: GrantsResult;
  HostCapabilities?: HostCapabilities;
  ImageAttachment?: ImageAttachment;
  ImageBlock?: ImageBlock;
  InitializeParams?: InitializeParams;
  InitializeResult?: InitializeResult;
  InteractionRequest?: InteractionRequest;
  InteractionRequestEvent?: InteractionRequestEvent;
  InteractionResolvedEvent?: InteractionResolvedEvent;
  InteractionResponseParams?: InteractionResponseParams;
  ItemCompletedEvent?: ItemCompletedEvent;
  ItemDelta?: ItemDelta;
  ItemDeltaEvent?: ItemDeltaEvent;
  ItemStartedEvent?: ItemStartedEvent;
  ItemUpdatedEvent?: ItemUpdatedEvent;
  LocalModelServer?: LocalModelServer;
  MatchSpan?: MatchSpan;
  McpServer?: McpServer;
  MissedRun?: MissedRun;
  ModelCapabilities?: ModelCapabilities;
  ModelLimit?: ModelLimit;
  ModelOptions?: ModelOptions;
  NoticeItem?: NoticeItem;
  PermissionsListParams?: PermissionsListParams;
  PermissionsRevokeParams?: PermissionsRevokeParams;
  ProtocolVersions?: ProtocolVersions;
  ProviderDiscoverParams?: ProviderDiscoverParams;
  ProviderDiscoverResult?: ProviderDiscoverResult;
  ProviderStatusParams?: ProviderStatusParams;
  ProviderStatusResult?: ProviderStatusResult;
  ProviderTestParams?: ProviderTestParams;
  ProviderTestResult?: ProviderTestResult;
  QueueEntry?: QueueEntry;
  QueueRemoveParams?: QueueRemoveParams;
  QueueResult?: QueueResult;
  QueueUpdateParams?: QueueUpdateParams;
  QueueUpdatedEvent?: QueueUpdatedEvent;
  RecoveryResolveParams?: RecoveryResolveParams;
  Run?: Run;
  RunResumeParams?: RunResumeParams;
  RunUpdatedEvent?: RunUpdatedEvent;
  SemanticTarget?: SemanticTarget;
  Settings?: Settings;
  SettingsGetParams?: SettingsGetParams;
  SettingsResult?: SettingsResult;
  SettingsUpdateParams?: SettingsUpdateParams;
  SharedTab?: SharedTab;
  SteeringItem?: SteeringItem;
  Target?: Target3;
  TextBlock?: TextBlock;
  Thread?: Thread;
  ThreadCreateParams?: ThreadCreateParams;
  ThreadDeleteParams?: ThreadDeleteParams;
  ThreadExportParams?: ThreadExportParams;
  ThreadExportResult?: ThreadExportResult;
  ThreadForkParams?: ThreadForkParams;
  ThreadImportParams?: ThreadImportParams;
  ThreadImportResult?: ThreadImportResult;
  ThreadListParams?: ThreadListParams;
  ThreadListResult?: ThreadListResult;
  ThreadMatch?: ThreadMatch;
  ThreadOpenParams?: ThreadOpenParams;
  ThreadRenameParams?: ThreadRenameParams;
  ThreadResult?: ThreadResult;
  ThreadSelectBranchParams?: ThreadSelectBranchParams;
  ThreadShareTabParams?: ThreadShareTabParams;
  ThreadSnapshot?: ThreadSnapshot;
  ThreadStats?: ThreadStats;
  ThreadTab?: ThreadTab;
  ThreadTabs?: ThreadTabs;
  ThreadUpdatedEvent?: ThreadUpdatedEvent;
  ToolCallItem?: ToolCallItem;
  ToolInfo?: ToolInfo;
  ToolResult?: ToolResult;
  Turn?: Turn;
  TurnCompleteEvent?: TurnCompleteEvent;
  TurnEnqueueParams?: TurnEnqueueParams;
  TurnEnqueueResult?: TurnEnqueueResult;
  TurnError?: TurnError;
  TurnInterruptParams?: TurnInterruptParams;
  TurnPausedEvent?: TurnPausedEvent;
  TurnStartedEvent?: TurnStartedEvent;
  TurnSteerParams?: TurnSteerParams;
  TurnSteerResult?: TurnSteerResult;
  TurnSubmitParams?: TurnSubmitParams;
  TurnSubmitResult?: TurnSubmitResult;
  Usage?: Usage1;
  UserItem?: UserItem;
  Violation?: Violation;
  Workflow?: Workflow;
  WorkflowDefinition?: WorkflowDefinition;
  WorkflowDeleteParams?: WorkflowDeleteParams;
  WorkflowDeleteResult?: WorkflowDeleteResult;
  WorkflowDocument?: WorkflowDocument;
  WorkflowDueParams?: WorkflowDueParams;
  WorkflowDueResult?: WorkflowDueResult;
  WorkflowExportParams?: WorkflowExportParams;
  WorkflowExportResult?: WorkflowExportResult;
  WorkflowGetParams?: WorkflowGetParams;
  WorkflowImportParams?: WorkflowImportParams;
  WorkflowListParams?: WorkflowListParams;
  WorkflowListResult?: WorkflowListResult;
  WorkflowParameter?: WorkflowParameter;
  WorkflowProposeParams?: WorkflowProposeParams;
  WorkflowProposeResult?: WorkflowProposeResult;
  WorkflowResult?: WorkflowResult;
  WorkflowRunParams?: WorkflowRunParams;
  WorkflowRunRecord?: WorkflowRunRecord;
  WorkflowRunResult?: WorkflowRunResult;
  WorkflowSaveParams?: WorkflowSaveParams;
  WorkflowSchedule?: WorkflowSchedule;
  WorkflowScheduleListParams?: WorkflowScheduleListParams;
  WorkflowScheduleListResult?: WorkflowScheduleListResult;
  WorkflowScheduleSetParams?: WorkflowScheduleSetParams;
  WorkflowScheduleSetResult?: WorkflowScheduleSetResult;
  WorkflowSource?: WorkflowSource;
  WorkflowStep?: WorkflowStep;
  WorkflowUpdateParams?: WorkflowUpdateParams;
}
/**
 * A tool call waiting for the user's decision (also a ``thread.open`` pending entry).
 */
export interface ApprovalRequest {
  requestId: string;
  toolCallId: string;
  tool: ToolInfo;
  args: {};
  target?: Target;
  turnId?: string | null;
  createdAt?: string | null;
  carried?: string[];
  readFrom?: string[];
  delivers?: string | null;
  reason?: string | null;
  userSupplies?: "files" | null;
  callId?: string | null;
  tabOwner?: string | null;
  sharesTab?: boolean;
}
/**
 * The descriptor facts an approval dialog shows.
 */
export interface ToolInfo {
  name: string;
  label: string;
  level: "L0" | "L1" | "L2";
  effects?: ("external" | "navigate" | "network" | "read" | "write")[];
}
/**
 * What a tool call acts on (approval requests): a tab and its origin, when known.
 *
 * For a call that loads a URL (``browser_navigate``, ``browser_tab_new`` with a URL),
 * ``origin`` is the destination's, the one the decision is about.
 */
export interface Target {
  origin?: string | null;
  tabId?: number | null;
  url?: string | null;
  currentUrl?: string | null;
  currentOrigin?: string | null;
  title?: string | null;
  element?: string | null;
}
/**
 * ``approval.request``: a tool call waits for ``approval.response``.
 */
export interface ApprovalRequestEvent {
  requestId: string;
  toolCallId: string;
  tool: ToolInfo;
  args: {};
  target?: Target1;
  turnId?: string | null;
  createdAt?: string | null;
  carried?: string[];
  readFrom?: string[];
  delivers?: string | null;
  reason?: string | null;
  userSupplies?: "files" | null;
  callId?: string | null;
  tabOwner?: string | null;
  sharesTab?: boolean;
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
}
/**
 * What a tool call acts on (approval requests): a tab and its origin, when known.
 *
 * For a call that loads a URL (``browser_navigate``, ``browser_tab_new`` with a URL),
 * ``origin`` is the destination's, the one the decision is about.
 */
export interface Target1 {
  origin?: string | null;
  tabId?: number | null;
  url?: string | null;
  currentUrl?: string | null;
  currentOrigin?: string | null;
  title?: string | null;
  element?: string | null;
}
/**
 * ``approval.resolved``: the request's fields plus the decision (by any client).
 */
export interface ApprovalResolvedEvent {
  requestId: string;
  toolCallId: string;
  tool: ToolInfo;
  args: {};
  target?: Target2;
  turnId?: string | null;
  createdAt?: string | null;
  carried?: string[];
  readFrom?: string[];
  delivers?: string | null;
  reason?: string | null;
  userSupplies?: "files" | null;
  callId?: string | null;
  tabOwner?: string | null;
  sharesTab?: boolean;
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  decision: "allow" | "deny";
  scope: "once" | "origin" | "thread";
  cancelled?: boolean;
}
/**
 * What a tool call acts on (approval requests): a tab and its origin, when known.
 *
 * For a call that loads a URL (``browser_navigate``, ``browser_tab_new`` with a URL),
 * ``origin`` is the destination's, the one the decision is about.
 */
export interface Target2 {
  origin?: string | null;
  tabId?: number | null;
  url?: string | null;
  currentUrl?: string | null;
  currentOrigin?: string | null;
  title?: string | null;
  element?: string | null;
}
export interface ApprovalResponseParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  requestId: string;
  decision: "allow" | "deny";
  scope: "once" | "origin" | "thread";
  message?: string | null;
}
/**
 * One model response's text; ``interrupted`` when the stream was cut off.
 */
export interface AssistantItem {
  kind: "assistant";
  id: string;
  turnId: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  parentId?: string | null;
  text?: string;
  thinking?: string | null;
  interrupted?: boolean;
}
/**
 * One change that lets something happen with less asking or reach further.
 */
export interface AuthorityChange {
  kind:
    | "base_url"
    | "credential_origin"
    | "mcp_command"
    | "mcp_url"
    | "policy_allow"
    | "policy_loosened";
  summary: string;
}
/**
 * ``authority.widened`` (extension, connection-level, to every connection): a
 * ``settings.update`` or ``credentials.set`` just widened what the agent may do without
 * asking or where a key goes (model requests to a new origin, a command MCP server that
 * runs as the user or its new environment variables and directory, a policy rule that
 * allows without approval, a rule that denied or asked removed or loosened, a key bound
 * to a new origin). The panel shows it, so a bug or a confused click cannot widen
 * authority silently.
 */
export interface AuthorityWidenedEvent {
  commandId: string;
  changes: AuthorityChange[];
}
/**
 * One of the sibling items at a branch point and the branch ``thread.selectBranch``
 * selects for it: ``headItemId``, the newest item stored below it (or itself).
 */
export interface BranchChoice {
  itemId: string;
  headItemId: string;
}
/**
 * An item of the selected branch that has siblings (a message sent again from the same
 * place): ``choices`` holds it and its siblings, oldest first.
 */
export interface BranchPoint {
  itemId: string;
  choices: BranchChoice[];
}
/**
 * Run a browser tool. ``callId`` is the toolCall item's ``callId``; ``target`` is the
 * tab the gatekeeper approved, when resolved. **extension** ``threadTabs`` as for
 * ``browser.resolveTarget``; a tab the call opens joins them. **extension**
 * ``threadId``/``turnId``: the Turn the call runs in, so that ``browser.detach`` of that
 * Turn releases only what its calls hold (threads run Turns in parallel, each on its own
 * tabs).
 */
export interface BrowserInvokeParams {
  callId: string;
  tool: string;
  args: {};
  target?: BrowserTarget | null;
  threadTabs?: ThreadTabs | null;
  threadId?: string | null;
  turnId?: string | null;
  capture?: boolean;
}
/**
 * A tab as the shim reports it. **extension** ``tabId`` is absent for a call that acts
 * on no tab (``browser_downloads`` reading a file: ``url``/``origin`` are where it came
 * from); ``frameId`` names the frame of the tab a ref lies in when it is not the top one
 * (``origin`` is then that frame's own); ``element`` is the element a call's ref names,
 * as the tab's latest snapshot showed it (``textbox "Email"``), for the approval card;
 * ``active`` says the tab is the active tab of its window (the one the user sees), so a
 * card can say "your active tab".
 */
export interface BrowserTarget {
  tabId?: number | null;
  url: string;
  origin: string;
  title?: string;
  frameId?: number | null;
  element?: string | null;
  active?: boolean | null;
}
/**
 * Extension: the tabs a thread owns and the Chrome tab group that shows them.
 *
 * ``tabs[0]`` is the tab the thread acts on when a call names none (the one it used
 * last). ``groupId`` is the group's id in the running browser (null until the group
 * exists); ``title`` and ``color`` are what the group was last given: the thread's title
 * and a colour fixed per thread.
 */
export interface ThreadTabs {
  threadId: string;
  title: string;
  color: "blue" | "cyan" | "green" | "grey" | "orange" | "pink" | "purple" | "red" | "yellow";
  groupId?: number | null;
  tabs?: ThreadTab[];
}
/**
 * Extension: one tab a thread owns, as last seen (its URL and title find it again
 * after a browser restart).
 */
export interface ThreadTab {
  tabId: number;
  url: string;
  title?: string;
  source?: "opened" | "shared";
  grouped?: boolean;
}
/**
 * The tool's outcome; ``target`` reports the tab after the action. **extension**
 * ``threadTabs``: the calling thread's tabs after the call (with a tab it opened, without
 * one that was closed or taken out of the thread's group), for the host to keep.
 */
export interface BrowserInvokeResult {
  content: string | (TextBlock | ImageBlock)[];
  isError?: boolean;
  details?: unknown;
  target?: BrowserTarget | null;
  threadTabs?: ThreadTabs | null;
  frames?: CapturedFrame[] | null;
  frameSkipped?:
    ("background" | "disabled" | "failed" | "incognito" | "not_allowed" | "private") | null;
}
/**
 * A text block of a tool result.
 */
export interface TextBlock {
  type: "text";
  text: string;
}
/**
 * An image block of a tool result; ``data`` is base64 without a data: prefix.
 */
export interface ImageBlock {
  type: "image";
  mediaType: string;
  data: string;
}
/**
 * A frame as the extension captured it (``browser.invoke``'s ``frames``). ``typed``:
 * the text the action typed (a password field's as ``"••••••••"``); ``blurred``: how many
 * password fields were blurred before the capture.
 */
export interface CapturedFrame {
  phase: "after" | "before";
  mime: "image/jpeg" | "image/webp";
  data: string;
  width: number;
  height: number;
  url: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  capturedAt: string;
  title?: string;
  viewport?: FrameViewport | null;
  mark?: FrameMark | null;
  typed?: string | null;
  blurred?: number;
}
/**
 * The part of the document the image shows, in CSS pixels.
 */
export interface FrameViewport {
  x: number;
  y: number;
  width: number;
  height: number;
}
/**
 * What the action did, to be drawn on the frame, in the image's pixels: the point it
 * clicked (``point``: ``x``, ``y``), or the element it acted on (``box``: ``x``, ``y``
 * its top left corner, ``width``, ``height``).
 */
export interface FrameMark {
  kind: "box" | "point";
  x: number;
  y: number;
  width?: number | null;
  height?: number | null;
}
/**
 * Which tab would ``tool`` act on with ``args``? Asked before the gatekeeper decides
 * and again right before dispatch. **extension** ``threadTabs`` are the calling thread's
 * tabs: a call that names no tab acts on ``threadTabs.tabs[0]`` (else the active tab).
 */
export interface BrowserResolveTargetParams {
  tool: string;
  args: {};
  threadTabs?: ThreadTabs | null;
}
/**
 * **extension** ``browser.threadTabs``: find the thread's tabs in the browser (after a
 * restart, by the group's title and colour and the tabs' URLs), put them in the thread's
 * tab group (made or renamed as needed) and answer what was found. The host asks once
 * per connection before a thread's first browser call, and when the user shares a tab.
 */
export interface BrowserThreadTabsParams {
  threadTabs: ThreadTabs;
}
/**
 * ``$/cancelRequest``: abort the request with this id (either direction).
 */
export interface CancelRequestParams {
  id: number | string;
}
/**
 * ``$/chunk``: slice ``index`` of ``count`` of a too-large message's JSON text.
 */
export interface ChunkEvent {
  chunkId: string;
  index: number;
  count: number;
  data: string;
}
export interface ClientCapabilities {
  browserTools?: string[];
}
export interface ClientInfo {
  name: string;
  version: string;
  profileId?: string | null;
}
/**
 * A summary of the oldest part of the branch, written by the engine when the context
 * neared the model's window: later model calls send ``summary`` instead of the items
 * up to and including ``throughItemId``. Those items stay stored and shown; the panel
 * shows this item as a divider that expands to the summary.
 */
export interface CompactionItem {
  kind: "compaction";
  id: string;
  turnId: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  parentId?: string | null;
  summary: string;
  throughItemId: string;
  coveredItems?: number;
  tokensBefore?: number;
  tokensAfter?: number;
  model?: string;
}
/**
 * ``{"credentialRef": name}``: stands for the secret stored under that name.
 */
export interface CredentialRef {
  /**
   * A credential reference: the name a secret is stored under
   */
  credentialRef: string;
}
/**
 * Delete the secret under ``ref``. ``secret`` is accepted (protocol.md lists it for
 * both ops) and ignored; ``repr`` masks it.
 */
export interface CredentialsDeleteParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  /**
   * A credential reference: the name a secret is stored under
   */
  ref: string;
  secret?: string | null;
}
/**
 * ``fingerprint`` of the deleted secret; null when nothing was stored under ``ref``.
 */
export interface CredentialsDeleteResult {
  ref: string;
  fingerprint: string | null;
}
/**
 * Store a secret under ``ref``. The secret never comes back, and ``repr`` masks it.
 */
export interface CredentialsSetParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  /**
   * A credential reference: the name a secret is stored under
   */
  ref: string;
  secret: string;
  origin?: string | null;
}
export interface CredentialsSetResult {
  ref: string;
  fingerprint: string;
}
/**
 * Every day at ``at`` (``HH:MM``, the browser's local time).
 */
export interface DailySchedule {
  kind: "daily";
  at: string;
}
/**
 * How the user answered the approval request of a tool call (``toolCallId``: the
 * toolCall item, as in ``ApprovalRequest``).
 */
export interface DecidedApproval {
  toolCallId: string;
  decision: "allow" | "deny";
  scope?: ("once" | "origin" | "thread") | null;
}
/**
 * A run to start now (``workflow.run`` with ``trigger: "schedule"`` in ``threadId``).
 */
export interface DueRun {
  workflowId: string;
  name: string;
  threadId?: string | null;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  dueAt: string;
}
/**
 * ``{}``: the op's effect is its acknowledgement.
 */
export interface EmptyResult {}
export interface EngineInfo {
  name: string;
  version: string;
}
/**
 * ``error.data`` of every host error response; ``errors`` only for -32602.
 */
export interface ErrorData {
  kind: string;
  errors?: Violation[] | null;
  protocolVersions?: ProtocolVersions | null;
  hostVersion?: string | null;
  update?: ("extension" | "host") | null;
  hostUpdateCommand?: string | null;
}
/**
 * One entry of ``data.errors`` of an invalid-params error.
 */
export interface Violation {
  path: string;
  message: string;
}
/**
 * A range of protocol versions a peer speaks, both ends included.
 */
export interface ProtocolVersions {
  oldest: number;
  newest: number;
}
/**
 * ``$/error``: a framing-level problem (the frame had no readable id).
 *
 * ``code`` is a JSON-RPC code (see ``jsonrpc``); ``kind`` (extension) names the problem
 * for machines: ``parse_error``, ``invalid_request``, ``frame_too_large``,
 * ``truncated_frame``.
 */
export interface ErrorEvent {
  code: number;
  message: string;
  kind?: string | null;
}
/**
 * ``{code, message, data?}``; the host always sends ``data.kind``.
 */
export interface ErrorObject {
  code: number;
  message: string;
  data?: {
    [k: string]: unknown;
  };
}
/**
 * Every ``hours`` hours, counted from when the schedule was set.
 */
export interface EverySchedule {
  kind: "every";
  hours: number;
}
/**
 * An element with this role and name is on the page afterwards.
 */
export interface ExpectAppears {
  kind: "appears";
  role: string;
  name?: string;
}
/**
 * The tab reaches a URL matching ``urlPattern`` (``*`` matches any text).
 */
export interface ExpectNavigation {
  kind: "navigation";
  urlPattern: string;
}
/**
 * The target element shows ``value`` (placeholders filled).
 */
export interface ExpectValue {
  kind: "value";
  value: string;
}
/**
 * A stored frame with its image (``frame.get``).
 */
export interface Frame {
  id: string;
  phase: "after" | "before";
  width: number;
  height: number;
  url: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  capturedAt: string;
  mark?: FrameMark | null;
  typed?: string | null;
  threadId: string;
  turnId: string;
  itemId: string;
  mime: "image/jpeg" | "image/webp";
  data: string;
  title?: string;
  viewport?: FrameViewport | null;
  blurred?: number;
}
export interface FrameGetParams {
  frameId: string;
}
/**
 * ``{frame}``: its image in ``data`` (base64 of ``mime``). ``not_found`` when there is
 * no such frame (retention removed it, or its thread was deleted).
 */
export interface FrameGetResult {
  frame: Frame;
}
/**
 * A stored frame as a toolCall item lists it (``frames``), without its image.
 */
export interface FrameInfo {
  id: string;
  phase: "after" | "before";
  width: number;
  height: number;
  url: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  capturedAt: string;
  mark?: FrameMark | null;
  typed?: string | null;
}
/**
 * A standing permission the user gave (or a standing denial).
 */
export interface Grant {
  id: string;
  scope: "global" | "origin" | "thread";
  tool: string;
  decision: "allow" | "deny";
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  origin?: string | null;
  threadId?: string | null;
}
/**
 * ``{grants}``: the grants after the op.
 */
export interface GrantsResult {
  grants: Grant[];
}
export interface HostCapabilities {
  browserTools?: string[];
}
/**
 * An image sent with a user message; ``data`` is base64 (no data: prefix).
 */
export interface ImageAttachment {
  type: "image";
  mediaType: "image/gif" | "image/jpeg" | "image/png" | "image/webp";
  data: string;
  name?: string | null;
}
export interface InitializeParams {
  protocolVersion: number;
  minProtocolVersion?: number | null;
  client: ClientInfo;
  capabilities?: ClientCapabilities;
}
export interface InitializeResult {
  protocolVersion: number;
  engine: EngineInfo;
  capabilities?: HostCapabilities;
  protocolVersions?: ProtocolVersions;
}
/**
 * A question to the user (``ask_user``, MCP elicitation); ``schema`` describes
 * the ``values`` that ``interaction.response`` must carry (a JSON Schema object).
 */
export interface InteractionRequest {
  interactionId: string;
  prompt: string;
  schema: {};
  toolCallId?: string | null;
  createdAt?: string | null;
}
/**
 * ``interaction.request``: a question waits for ``interaction.response``.
 */
export interface InteractionRequestEvent {
  interactionId: string;
  prompt: string;
  schema: {};
  toolCallId?: string | null;
  createdAt?: string | null;
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
}
/**
 * ``interaction.resolved``: the request's fields; ``action`` is an extension.
 * The answered values are not repeated.
 */
export interface InteractionResolvedEvent {
  interactionId: string;
  prompt: string;
  schema: {};
  toolCallId?: string | null;
  createdAt?: string | null;
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  action?: "accept" | "cancel" | "decline";
}
/**
 * Answer an interaction. ``action`` (extension, as MCP elicitation): ``accept`` with
 * ``values`` matching the request's schema, or ``decline``/``cancel``.
 */
export interface InteractionResponseParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  interactionId: string;
  values?: {};
  action?: "accept" | "cancel" | "decline";
}
/**
 * ``item.completed``: the item's final state.
 */
export interface ItemCompletedEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  turnId: string;
  item: UserItem | SteeringItem | AssistantItem | ToolCallItem | NoticeItem | CompactionItem;
}
/**
 * The user's message that started a Turn.
 */
export interface UserItem {
  kind: "user";
  id: string;
  turnId: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  parentId?: string | null;
  text: string;
  attachments?: ImageAttachment[];
}
/**
 * Input sent during a running Turn, admitted at the next model call.
 */
export interface SteeringItem {
  kind: "steering";
  id: string;
  turnId: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  parentId?: string | null;
  text: string;
}
/**
 * A tool call and, once settled, its result.
 */
export interface ToolCallItem {
  kind: "toolCall";
  id: string;
  turnId: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  parentId?: string | null;
  callId: string;
  name: string;
  args: {};
  status:
    | "awaiting_approval"
    | "denied"
    | "failed"
    | "interrupted"
    | "pending"
    | "running"
    | "succeeded"
    | "uncertain";
  result?: ToolResult | null;
  label?: string | null;
  level?: ("L0" | "L1" | "L2") | null;
  effects?: ("external" | "navigate" | "network" | "read" | "write")[];
  evidence?: {} | null;
  target?: Target3 | null;
  startedAt?: string | null;
  endedAt?: string | null;
  decidedBy?: ("model" | "workflow") | null;
  frames?: FrameInfo[];
  frameSkipped?:
    ("background" | "disabled" | "failed" | "incognito" | "not_allowed" | "private") | null;
  allowedBy?: ("grant" | "policy") | null;
  allowedBecause?: string | null;
}
/**
 * A settled tool call's result. ``details`` is UI-only data (screenshots, diffs...).
 */
export interface ToolResult {
  content: string | (TextBlock | ImageBlock)[];
  isError: boolean;
  details?: unknown;
}
/**
 * What a tool call acts on (approval requests): a tab and its origin, when known.
 *
 * For a call that loads a URL (``browser_navigate``, ``browser_tab_new`` with a URL),
 * ``origin`` is the destination's, the one the decision is about.
 */
export interface Target3 {
  origin?: string | null;
  tabId?: number | null;
  url?: string | null;
  currentUrl?: string | null;
  currentOrigin?: string | null;
  title?: string | null;
  element?: string | null;
}
/**
 * A message from the engine (failure-streak nudge, budget pause, provider retry...).
 */
export interface NoticeItem {
  kind: "notice";
  id: string;
  turnId: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  parentId?: string | null;
  code: string;
  text: string;
  userText?: string | null;
}
/**
 * Exactly one of: ``text`` / ``thinking`` (appended to the assistant item's field) or
 * ``progress`` (a tool's progress report, replacing the previous one).
 */
export interface ItemDelta {
  text?: string | null;
  thinking?: string | null;
  progress?: string | {} | null;
}
/**
 * ``item.delta``: incremental content of a started item.
 */
export interface ItemDeltaEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  turnId: string;
  itemId: string;
  delta: ItemDelta;
}
/**
 * ``item.started``: an item appeared (possibly still growing by ``item.delta``).
 */
export interface ItemStartedEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  turnId: string;
  item: UserItem | SteeringItem | AssistantItem | ToolCallItem | NoticeItem | CompactionItem;
}
/**
 * ``item.updated`` (extension): an item changed before completing. Sent when a tool
 * call starts running: ``status`` ``running``, ``startedAt`` and ``target`` set, so a
 * client can say what is being done, and where, while it runs.
 */
export interface ItemUpdatedEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  turnId: string;
  item: UserItem | SteeringItem | AssistantItem | ToolCallItem | NoticeItem | CompactionItem;
}
/**
 * A server on this computer that answers an OpenAI model list.
 */
export interface LocalModelServer {
  baseUrl: string;
  port: number;
  name: string | null;
  models: string[];
}
/**
 * A highlighted part of a snippet: ``text[start:end]`` (UTF-16 code units, as in JS).
 */
export interface MatchSpan {
  start: number;
  end: number;
}
/**
 * An entry of ``mcpServers``: ``{command, args?, env?}`` (stdio) or ``{url, headers?}``
 * (HTTP), as in the ``mcp.json`` other MCP clients keep. ``type`` is an extension.
 */
export interface McpServer {
  command?: string | null;
  args?: string[];
  env?: {
    [k: string]: string | CredentialRef;
  };
  url?: string | null;
  headers?: {
    [k: string]: string | CredentialRef;
  };
  type?: ("http" | "sse" | "stdio" | "streamable-http") | null;
  cwd?: string | null;
  disabled?: boolean;
  allowSampling?: boolean;
  timeout?: number | null;
  maxTimeout?: number | null;
}
/**
 * Runs that fell due while nothing called ``workflow.due`` (the browser was closed):
 * reported, never run. ``count`` of them, the first and the last.
 */
export interface MissedRun {
  workflowId: string;
  name: string;
  count: number;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  firstAt: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  lastAt: string;
}
/**
 * Override of the known-models data; an absent field keeps the data file's value.
 */
export interface ModelCapabilities {
  toolUse?: boolean | null;
  vision?: boolean | null;
}
/**
 * Extension: a model's limits, overriding the known-models data (an absent field keeps
 * the data file's value; unknown models default to a 32,000-token window).
 */
export interface ModelLimit {
  contextWindow?: number | null;
  maxOutputTokens?: number | null;
}
/**
 * Extension: how one model is asked (an absent field: the default).
 */
export interface ModelOptions {
  api?: ("chat" | "responses") | null;
  reasoningEffort?: ("high" | "low" | "medium") | null;
  thinkingBudget?: number | null;
}
/**
 * Extension filters: only grants for this thread / origin.
 */
export interface PermissionsListParams {
  threadId?: string | null;
  origin?: string | null;
}
export interface PermissionsRevokeParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  grantId: string;
}
export interface ProviderDiscoverParams {}
export interface ProviderDiscoverResult {
  servers: LocalModelServer[];
}
export interface ProviderStatusParams {}
/**
 * Whether a turn could start now (no request is made): the configuration loads and
 * the key it needs resolves. ``reason``: why not, in a sentence for a person.
 */
export interface ProviderStatusResult {
  ready: boolean;
  provider: ("anthropic" | "openai" | "scripted") | null;
  model: string | null;
  baseUrl: string | null;
  source: ("environment" | "settings") | null;
  reason: string | null;
}
export interface ProviderTestParams {}
/**
 * The saved configuration tried with real requests. ``message``: one sentence for a
 * person; ``detail``: the provider's own words (never a secret); ``cause`` when not ok.
 */
export interface ProviderTestResult {
  ok: boolean;
  provider: string | null;
  model: string | null;
  url: string | null;
  latencyMs: number | null;
  cause:
    | (
        | "bad_key"
        | "http_error"
        | "key_missing"
        | "key_not_sent"
        | "no_tools"
        | "not_configured"
        | "not_running"
        | "unknown_model"
        | "wrong_url"
      )
    | null;
  message: string;
  detail: string | null;
  models: string[];
}
/**
 * A message waiting to start a Turn after the current one (at most 8 per thread).
 */
export interface QueueEntry {
  id: string;
  position: number;
  text: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
}
/**
 * Remove a queued entry. ``text`` is accepted for symmetry with ``queue.update``
 * (protocol.md lists it for both) and ignored.
 */
export interface QueueRemoveParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  entryId: string;
  text?: string | null;
}
/**
 * ``{queue}``: the thread's queue after the change, in order.
 */
export interface QueueResult {
  queue: QueueEntry[];
}
/**
 * Edit a queued entry's text and/or (extension) move it to ``position``.
 */
export interface QueueUpdateParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  entryId: string;
  text?: string | null;
  position?: number | null;
}
/**
 * ``queue.updated``: the whole queue after any change.
 */
export interface QueueUpdatedEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  queue: QueueEntry[];
}
export interface RecoveryResolveParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  toolCallId: string;
  outcome: "failed" | "retry" | "succeeded";
}
/**
 * The execution of a Turn; ``state`` follows architecture.md's run state machine.
 */
export interface Run {
  id: string;
  turnId: string;
  state:
    | "awaiting_approval"
    | "awaiting_interaction"
    | "budget_paused"
    | "completed"
    | "executing_tool"
    | "failed"
    | "interrupted"
    | "paused_uncertain"
    | "queued"
    | "streaming";
  waitReason?: string | null;
}
export interface RunResumeParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  runId: string;
  tokenBudget?: number | null;
  costBudgetUsd?: number | null;
}
/**
 * ``run.updated``: the run changed state.
 */
export interface RunUpdatedEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  runId: string;
  state:
    | "awaiting_approval"
    | "awaiting_interaction"
    | "budget_paused"
    | "completed"
    | "executing_tool"
    | "failed"
    | "interrupted"
    | "paused_uncertain"
    | "queued"
    | "streaming";
  turnId?: string | null;
  waitReason?: string | null;
}
/**
 * The element a step acts on, as a person would describe it, never by ref: its role
 * and accessible name, the page it is on (``origin``, ``urlPattern``: ``*`` matches any
 * text), the landmark it is in and the heading above it (each as ``role "name"`` or
 * ``role``), and its position among the page's elements of the same role and name
 * (``nth``, 0-based, of ``count``).
 */
export interface SemanticTarget {
  role: string;
  name?: string;
  origin?: string | null;
  urlPattern?: string | null;
  landmark?: string | null;
  heading?: string | null;
  nth?: number;
  count?: number;
}
/**
 * Effective settings. Never contains a secret: MCP ``env``/``headers`` literal values
 * come back masked as ``"********"`` (credential references come back as they are).
 */
export interface Settings {
  provider: ("anthropic" | "openai") | null;
  model: string | null;
  modelCapabilities: ModelCapabilities | null;
  taskModel: string | null;
  defaultTokenBudget: number | null;
  policyRules: {}[];
  mcpServers: {
    [k: string]: McpServer;
  };
  baseUrl?: string | null;
  apiKeyRef?: string | null;
  modelLimits?: {
    [k: string]: ModelLimit;
  };
  mcpStatus?: {}[];
  defaultCostBudgetUsd?: number | null;
  shareActiveTab?: boolean;
  actOnUnownedTabs?: boolean;
  maxParallelTurns?: number;
  modelOptions?: {
    [k: string]: ModelOptions;
  };
  captureFrames?: boolean;
  frameBudgetMb?: number;
}
export interface SettingsGetParams {}
/**
 * ``{settings}``.
 */
export interface SettingsResult {
  settings: Settings;
}
/**
 * Change settings: an absent field stays as it is; ``null`` resets it to the
 * environment's default. ``mcpServers`` replaces the whole map (and ``mcp.json``); a
 * masked ``"********"`` value keeps the stored literal.
 */
export interface SettingsUpdateParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  provider?: ("anthropic" | "openai") | null;
  model?: string | null;
  modelCapabilities?: ModelCapabilities | null;
  taskModel?: string | null;
  defaultTokenBudget?: number | null;
  policyRules?: {}[] | null;
  mcpServers?: {
    [k: string]: McpServer1;
  } | null;
  baseUrl?: string | null;
  apiKeyRef?: string | null;
  modelLimits?: {
    [k: string]: ModelLimit;
  } | null;
  defaultCostBudgetUsd?: number | null;
  shareActiveTab?: boolean | null;
  actOnUnownedTabs?: boolean | null;
  maxParallelTurns?: number | null;
  modelOptions?: {
    [k: string]: ModelOptions;
  } | null;
  captureFrames?: boolean | null;
  frameBudgetMb?: number | null;
}
/**
 * The tab the user hands to a thread (``thread.shareTab``, ``turn.start``'s
 * ``shareTab``): the panel reads it from the browser.
 */
export interface SharedTab {
  tabId: number;
  url: string;
  title?: string;
}
/**
 * A conversation. ``parentThreadId``/``forkedFromItemId`` are null unless forked.
 */
export interface Thread {
  id: string;
  title: string;
  titleSource: "fallback" | "model" | "user";
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  updatedAt: string;
  stats?: ThreadStats;
  parentThreadId?: string | null;
  forkedFromItemId?: string | null;
  status?:
    | "awaiting_answer"
    | "awaiting_approval"
    | "budget_paused"
    | "failed"
    | "idle"
    | "interrupted"
    | "paused_uncertain"
    | "running"
    | "waiting";
  tabGroup?: ThreadTabs | null;
}
/**
 * Running totals over a thread's Turns. ``costUsd`` is null once any model call of the
 * thread had no known price (never a made-up 0), like a Turn's ``costUsd``.
 */
export interface ThreadStats {
  turns?: number;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  costUsd?: number | null;
  reasoningTokens?: number;
}
export interface ThreadCreateParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  title?: string | null;
}
export interface ThreadDeleteParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
}
/**
 * Export ``threadId`` (with ``turnId``: that Turn alone) as ``format``: ``json`` (the
 * complete, versioned export ``thread.import`` takes; ``schema/thread-export.schema.json``),
 * ``md`` (a readable transcript), ``html`` (one self-contained report: the conversation,
 * each action with its frame, approvals and who decided them, costs and durations; no
 * network), ``gif`` (an animated GIF, one frame per captured action). Secrets never
 * appear in any of them.
 */
export interface ThreadExportParams {
  threadId: string;
  turnId?: string | null;
  format?: "gif" | "html" | "json" | "md";
}
/**
 * The file: its suggested ``fileName`` and ``mime``; ``text`` for the text formats,
 * ``data`` (base64) for ``gif``. ``invalid_params`` for a ``gif`` of a thread with no
 * frames.
 */
export interface ThreadExportResult {
  fileName: string;
  mime: string;
  text?: string | null;
  data?: string | null;
}
export interface ThreadForkParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  atItemId?: string | null;
}
/**
 * A ``thread.export`` JSON document back as a new thread (new ids; its items, Turns,
 * approvals, tool calls and usage as exported). A document that is not a valid export
 * gets ``invalid_params`` with ``data.errors`` and nothing is stored.
 */
export interface ThreadImportParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  /**
   * A thread export (format json)
   */
  document: {};
}
/**
 * ``{thread}``: the new thread.
 */
export interface ThreadImportResult {
  thread: Thread;
}
export interface ThreadListParams {
  limit?: number;
  cursor?: string | null;
  query?: string | null;
}
/**
 * Most recently updated first; ``nextCursor`` is null on the last page.
 *
 * With a ``query``, ``matches`` (extension) holds one snippet per listed thread.
 */
export interface ThreadListResult {
  threads: Thread[];
  nextCursor: string | null;
  matches?: ThreadMatch[] | null;
}
/**
 * Why a thread matched a search: its best-ranked text, cut around the hits.
 *
 * ``source`` is ``title`` or ``message`` (then ``itemId`` names the message); ``text`` is a
 * plain-text excerpt (``…`` marks a cut) and ``highlights`` the matched terms in it.
 */
export interface ThreadMatch {
  threadId: string;
  source: "message" | "title";
  text: string;
  highlights: MatchSpan[];
  itemId?: string | null;
}
export interface ThreadOpenParams {
  threadId: string;
}
export interface ThreadRenameParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  title: string;
}
/**
 * ``{thread}``.
 */
export interface ThreadResult {
  thread: Thread;
}
export interface ThreadSelectBranchParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  itemId: string;
}
/**
 * **extension** Hand the tab ``tab`` over to the thread: it joins the thread's tabs
 * and its tab group; the thread's calls then act on it as on a tab it opened.
 */
export interface ThreadShareTabParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  tab: SharedTab;
}
/**
 * The ``thread.open`` (and ``thread.selectBranch``) result: everything a client needs
 * to render a thread and continue from it. Events that follow have ``seq > lastSeq``.
 */
export interface ThreadSnapshot {
  thread: Thread;
  items: (UserItem | SteeringItem | AssistantItem | ToolCallItem | NoticeItem | CompactionItem)[];
  turn: Turn | null;
  run: Run | null;
  pendingApprovals: ApprovalRequest[];
  pendingInteractions: InteractionRequest[];
  queue: QueueEntry[];
  pendingSteering: SteeringItem[];
  lastSeq: number;
  turns?: Turn[];
  branches?: BranchPoint[];
  decidedApprovals?: DecidedApproval[];
}
/**
 * One user message and everything the engine did for it.
 *
 * ``costUsd`` is always present and null when the price is unknown.
 */
export interface Turn {
  id: string;
  status: "completed" | "failed" | "interrupted" | "paused" | "running";
  userItemId: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  startedAt: string;
  costUsd: number | null;
  usage?: Usage;
  stopReason?: ("content_filter" | "end_turn" | "max_tokens" | "stop_sequence") | null;
  error?: TurnError | null;
  endedAt?: string | null;
  model?: string | null;
  tokenBudget?: number | null;
  costBudgetUsd?: number | null;
  budgetReached?: ("cost" | "tokens") | null;
  pauseReason?: ("budget" | "needs_model" | "uncertain") | null;
  workflow?: WorkflowRunRecord | null;
}
/**
 * Token counts; ``input_tokens`` excludes cache reads and writes (Anthropic's convention).
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}
/**
 * Why a Turn failed.
 */
export interface TurnError {
  kind:
    | "capability"
    | "conflict"
    | "context_overflow"
    | "drift"
    | "internal"
    | "invalid_state"
    | "not_found"
    | "not_initialized"
    | "provider"
    | "queue_full"
    | "stale_turn"
    | "storage"
    | "thread_busy"
    | "too_large"
    | "tool"
    | "turn_active";
  message: string;
}
/**
 * A workflow run's record on its Turn (``turn.workflow``): which steps were replayed
 * (0-based indexes, in order) and, when it diverged, at which step and why; from there on
 * the model decided (``handedOver``), or the run paused for want of a model. ``deniedAt``:
 * the step whose call was denied (a rule, a standing decision or the user); the run ended
 * there.
 */
export interface WorkflowRunRecord {
  workflowId: string;
  name?: string;
  trigger?: "schedule" | "user";
  replayedSteps?: number[];
  divergedAt?: number | null;
  divergence?: string | null;
  handedOver?: boolean;
  deniedAt?: number | null;
}
/**
 * ``thread.updated``: title or stats changed.
 */
export interface ThreadUpdatedEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  thread: Thread;
}
/**
 * ``turn.complete``: sent after every write of the Turn committed; the thread is idle.
 * ``costUsd`` is always present (null when the price is unknown). ``workflow``: a
 * workflow run's record, as ``Turn.workflow`` (absent for any other Turn).
 */
export interface TurnCompleteEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  turnId: string;
  status: "completed" | "failed" | "interrupted";
  usage: Usage1;
  costUsd: number | null;
  stopReason?: ("content_filter" | "end_turn" | "max_tokens" | "stop_sequence") | null;
  error?: TurnError | null;
  workflow?: WorkflowRunRecord | null;
}
/**
 * Token counts; ``input_tokens`` excludes cache reads and writes (Anthropic's convention).
 */
export interface Usage1 {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}
export interface TurnEnqueueParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  text: string;
}
export interface TurnEnqueueResult {
  entryId: string;
  position: number;
}
export interface TurnInterruptParams {
  threadId: string;
  turnId?: string | null;
}
/**
 * ``turn.paused``: a budget reached, or a tool outcome is uncertain.
 */
export interface TurnPausedEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  turnId: string;
  reason: "budget" | "needs_model" | "uncertain";
  runId?: string | null;
  budgetReached?: ("cost" | "tokens") | null;
  costBudgetUsd?: number | null;
  costUsd?: number | null;
}
/**
 * ``turn.started``: the first event of a Turn.
 */
export interface TurnStartedEvent {
  threadId: string;
  /**
   * Per-thread event sequence number, strictly increasing
   */
  seq: number;
  turnId: string;
  runId: string;
  userItemId: string;
}
export interface TurnSteerParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  expectedTurnId: string;
  text: string;
}
export interface TurnSteerResult {
  itemId: string;
}
/**
 * Start a Turn. ``text`` may be empty only when ``attachments`` is not.
 */
export interface TurnSubmitParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  threadId: string;
  text: string;
  /**
   * @maxItems 20
   */
  attachments?:
    | []
    | [ImageAttachment]
    | [ImageAttachment, ImageAttachment]
    | [ImageAttachment, ImageAttachment, ImageAttachment]
    | [ImageAttachment, ImageAttachment, ImageAttachment, ImageAttachment]
    | [ImageAttachment, ImageAttachment, ImageAttachment, ImageAttachment, ImageAttachment]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ]
    | [
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment,
        ImageAttachment
      ];
  model?: string | null;
  tokenBudget?: number | null;
  costBudgetUsd?: number | null;
  shareTab?: SharedTab | null;
}
export interface TurnSubmitResult {
  turnId: string;
}
/**
 * A saved workflow of the profile.
 */
export interface Workflow {
  name: string;
  goal?: string;
  parameters?: WorkflowParameter[];
  steps?: WorkflowStep[];
  source?: WorkflowSource | null;
  id: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  createdAt: string;
  /**
   * ISO-8601 instant in UTC with milliseconds and a Z suffix, e.g. 2025-01-31T12:34:56.789Z
   */
  updatedAt: string;
  schedule?: WorkflowSchedule | null;
}
/**
 * A value a run fills in; ``default``: the value the recorded Turn used.
 */
export interface WorkflowParameter {
  /**
   * A parameter's name, written `{{name}}` where its value goes in a step
   */
  name: string;
  label?: string;
  default?: string;
  kind?: "option" | "text";
}
/**
 * One browser tool call: ``arguments`` as recorded, without ``ref``/``tabId`` (the
 * run resolves ``target`` on a fresh snapshot and acts in the thread's tab), with
 * ``{{name}}`` where a parameter's value was; ``expect``: its effect (null: none checked).
 */
export interface WorkflowStep {
  tool: string;
  arguments?: {};
  target?: SemanticTarget | null;
  expect?: (ExpectNavigation | ExpectValue | ExpectAppears) | null;
  title?: string;
}
/**
 * The Turn a workflow was saved from.
 */
export interface WorkflowSource {
  threadId: string;
  turnId: string;
}
/**
 * A workflow's schedule and its bookkeeping (``workflow.schedule.*``, ``workflow.due``).
 *
 * ``nextRunAt``: when it is next due (null while paused); ``lastRunAt``: the last time
 * ``workflow.due`` handed it out to run; ``threadId``: the thread its runs go to (made
 * at its first run).
 */
export interface WorkflowSchedule {
  workflowId: string;
  schedule: DailySchedule | EverySchedule;
  paused?: boolean;
  utcOffsetMinutes?: number;
  nextRunAt?: string | null;
  lastRunAt?: string | null;
  threadId?: string | null;
}
/**
 * What a workflow is, without its identity: what is exported and imported.
 */
export interface WorkflowDefinition {
  name: string;
  goal?: string;
  parameters?: WorkflowParameter[];
  steps?: WorkflowStep[];
  source?: WorkflowSource | null;
}
export interface WorkflowDeleteParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  workflowId: string;
}
export interface WorkflowDeleteResult {}
/**
 * The export document: ``format`` ``panelot.workflow``, ``version`` 1.
 */
export interface WorkflowDocument {
  format: "panelot.workflow";
  version: 1;
  workflow: WorkflowDefinition;
  exportedAt?: string | null;
}
/**
 * What is due at ``now`` (ms since the epoch; default: the host's clock). The
 * occurrences since the last check are recorded as handled: asking again gives nothing
 * twice. ``graceMinutes``: how late an occurrence may still be run.
 */
export interface WorkflowDueParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  now?: number | null;
  graceMinutes?: number;
}
/**
 * ``due``: start each once; ``missed``: tell the user; ``nextDueAt``: set the alarm.
 */
export interface WorkflowDueResult {
  due: DueRun[];
  missed: MissedRun[];
  nextDueAt?: string | null;
}
export interface WorkflowExportParams {
  workflowId: string;
}
/**
 * ``document``: valid against ``schema/workflow.schema.json``.
 */
export interface WorkflowExportResult {
  document: WorkflowDocument;
}
export interface WorkflowGetParams {
  workflowId: string;
}
/**
 * ``document``: an export document; checked against its schema before anything is
 * stored (``invalid_params`` with ``data.errors`` otherwise). A new workflow is made
 * (a new id), even when one of the same name exists.
 */
export interface WorkflowImportParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  document: {};
}
export interface WorkflowListParams {}
/**
 * The profile's workflows, the most recently updated first.
 */
export interface WorkflowListResult {
  workflows: Workflow[];
}
/**
 * A draft from the finished Turn ``turnId`` of ``threadId``; nothing is stored.
 */
export interface WorkflowProposeParams {
  threadId: string;
  turnId: string;
}
/**
 * ``draft``: what ``workflow.save`` takes, for the user to rename and fix first;
 * ``skipped``: how many of the Turn's tool calls were left out (reads, snapshots, failed
 * calls, tools that are not the browser's).
 */
export interface WorkflowProposeResult {
  draft: WorkflowDefinition;
  skipped?: number;
}
/**
 * ``{workflow}``.
 */
export interface WorkflowResult {
  workflow: Workflow;
}
/**
 * Run a workflow in ``threadId`` (none: a new thread named after the workflow).
 * ``parameters``: values by name (a missing one takes its default).
 */
export interface WorkflowRunParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  workflowId: string;
  threadId?: string | null;
  parameters?: {
    [k: string]: string;
  };
  trigger?: "schedule" | "user";
}
/**
 * The thread the run is in and its Turn (streamed as any Turn).
 */
export interface WorkflowRunResult {
  threadId: string;
  turnId: string;
}
export interface WorkflowSaveParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  workflow: WorkflowDefinition;
}
export interface WorkflowScheduleListParams {}
/**
 * Every schedule, with ``nextRunAt``; ``nextDueAt``: the earliest of them (null:
 * nothing is scheduled), when the worker's alarm should fire next.
 */
export interface WorkflowScheduleListResult {
  schedules: WorkflowSchedule[];
  nextDueAt?: string | null;
}
/**
 * Set (or, with ``schedule`` null, remove) a workflow's schedule.
 */
export interface WorkflowScheduleSetParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  workflowId: string;
  schedule: (DailySchedule | EverySchedule) | null;
  paused?: boolean;
  /**
   * Minutes east of UTC of the browser's local time (JavaScript: -new Date().getTimezoneOffset())
   */
  utcOffsetMinutes?: number;
}
/**
 * The schedule as stored (null when removed).
 */
export interface WorkflowScheduleSetResult {
  schedule: WorkflowSchedule | null;
}
/**
 * Change what is given: ``name``, ``goal``, ``parameters`` (the whole list),
 * ``removeSteps`` (0-based indexes of the current steps).
 */
export interface WorkflowUpdateParams {
  /**
   * Client-chosen unique id of a state-changing command (receipts)
   */
  commandId: string;
  workflowId: string;
  name?: string | null;
  goal?: string | null;
  parameters?: WorkflowParameter[] | null;
  removeSteps?: number[];
}

export type ProtocolVersion = 1;

export interface Ops {
  "initialize": { params: InitializeParams; result: InitializeResult };
  "thread.create": { params: ThreadCreateParams; result: ThreadResult };
  "thread.list": { params: ThreadListParams; result: ThreadListResult };
  "thread.open": { params: ThreadOpenParams; result: ThreadSnapshot };
  "thread.delete": { params: ThreadDeleteParams; result: EmptyResult };
  "thread.fork": { params: ThreadForkParams; result: ThreadResult };
  "thread.selectBranch": { params: ThreadSelectBranchParams; result: ThreadSnapshot };
  "thread.rename": { params: ThreadRenameParams; result: ThreadResult };
  "thread.shareTab": { params: ThreadShareTabParams; result: ThreadResult };
  "turn.submit": { params: TurnSubmitParams; result: TurnSubmitResult };
  "turn.steer": { params: TurnSteerParams; result: TurnSteerResult };
  "turn.enqueue": { params: TurnEnqueueParams; result: TurnEnqueueResult };
  "queue.update": { params: QueueUpdateParams; result: QueueResult };
  "queue.remove": { params: QueueRemoveParams; result: QueueResult };
  "turn.interrupt": { params: TurnInterruptParams; result: EmptyResult };
  "approval.response": { params: ApprovalResponseParams; result: EmptyResult };
  "interaction.response": { params: InteractionResponseParams; result: EmptyResult };
  "run.resume": { params: RunResumeParams; result: EmptyResult };
  "recovery.resolve": { params: RecoveryResolveParams; result: EmptyResult };
  "settings.get": { params: SettingsGetParams; result: SettingsResult };
  "settings.update": { params: SettingsUpdateParams; result: SettingsResult };
  "credentials.set": { params: CredentialsSetParams; result: CredentialsSetResult };
  "credentials.delete": { params: CredentialsDeleteParams; result: CredentialsDeleteResult };
  "permissions.list": { params: PermissionsListParams; result: GrantsResult };
  "permissions.revoke": { params: PermissionsRevokeParams; result: GrantsResult };
  "provider.status": { params: ProviderStatusParams; result: ProviderStatusResult };
  "provider.discover": { params: ProviderDiscoverParams; result: ProviderDiscoverResult };
  "provider.test": { params: ProviderTestParams; result: ProviderTestResult };
  "workflow.propose": { params: WorkflowProposeParams; result: WorkflowProposeResult };
  "workflow.save": { params: WorkflowSaveParams; result: WorkflowResult };
  "workflow.list": { params: WorkflowListParams; result: WorkflowListResult };
  "workflow.get": { params: WorkflowGetParams; result: WorkflowResult };
  "workflow.update": { params: WorkflowUpdateParams; result: WorkflowResult };
  "workflow.delete": { params: WorkflowDeleteParams; result: WorkflowDeleteResult };
  "workflow.export": { params: WorkflowExportParams; result: WorkflowExportResult };
  "workflow.import": { params: WorkflowImportParams; result: WorkflowResult };
  "workflow.run": { params: WorkflowRunParams; result: WorkflowRunResult };
  "workflow.schedule.set": { params: WorkflowScheduleSetParams; result: WorkflowScheduleSetResult };
  "workflow.schedule.list": { params: WorkflowScheduleListParams; result: WorkflowScheduleListResult };
  "workflow.due": { params: WorkflowDueParams; result: WorkflowDueResult };
  "frame.get": { params: FrameGetParams; result: FrameGetResult };
  "thread.export": { params: ThreadExportParams; result: ThreadExportResult };
  "thread.import": { params: ThreadImportParams; result: ThreadImportResult };
}

export interface ShimRequests {
  "browser.resolveTarget": { params: BrowserResolveTargetParams; result: BrowserTarget };
  "browser.invoke": { params: BrowserInvokeParams; result: BrowserInvokeResult };
  "browser.threadTabs": { params: BrowserThreadTabsParams; result: ThreadTabs };
}

export interface Events {
  "thread.updated": { params: ThreadUpdatedEvent };
  "turn.started": { params: TurnStartedEvent };
  "item.started": { params: ItemStartedEvent };
  "item.completed": { params: ItemCompletedEvent };
  "item.updated": { params: ItemUpdatedEvent };
  "item.delta": { params: ItemDeltaEvent };
  "approval.request": { params: ApprovalRequestEvent };
  "approval.resolved": { params: ApprovalResolvedEvent };
  "interaction.request": { params: InteractionRequestEvent };
  "interaction.resolved": { params: InteractionResolvedEvent };
  "queue.updated": { params: QueueUpdatedEvent };
  "run.updated": { params: RunUpdatedEvent };
  "turn.paused": { params: TurnPausedEvent };
  "turn.complete": { params: TurnCompleteEvent };
  "authority.widened": { params: AuthorityWidenedEvent };
  "$/chunk": { params: ChunkEvent };
  "$/error": { params: ErrorEvent };
}

export interface ControlNotifications {
  "$/cancelRequest": { params: CancelRequestParams };
}

export type OpMethod = keyof Ops;
export type EventMethod = keyof Events;

// The browser tools the host declares (schema/browser-tools.json).
export interface BrowserTabsListArgs {}
export interface BrowserTabNewArgs {
  /**
   * An absolute URL.
   */
  url?: string;
  /**
   * Show the tab to the user (make it the active tab of a focused window); only when the user asked to see it. Default: false, the user's view stays as it is.
   */
  focus?: boolean;
}
export interface BrowserTabSelectArgs {
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId: number;
  /**
   * Show the tab to the user (make it the active tab of a focused window); only when the user asked to see it. Default: false, the user's view stays as it is.
   */
  focus?: boolean;
}
export interface BrowserTabCloseArgs {
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId: number;
}
export interface BrowserNavigateArgs {
  /**
   * An absolute URL.
   */
  url: string;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserNavigateBackArgs {
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserReadArgs {
  /**
   * Where to start, in characters, when an earlier read was truncated.
   */
  offset?: number;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserSnapshotArgs {
  /**
   * Outline only this region (a ref of the latest snapshot).
   */
  ref?: string;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserClickArgs {
  /**
   * An element ref from browser_snapshot.
   */
  ref: string;
  /**
   * The mouse button; default left. right opens a context menu.
   */
  button?: "left" | "right" | "middle";
  /**
   * Real input through the debugger (level L2, the user is asked once per site), for pages that ignore scripted input; use it only when a plain attempt had no effect.
   */
  trusted?: boolean;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserDoubleClickArgs {
  /**
   * An element ref from browser_snapshot.
   */
  ref: string;
  /**
   * Real input through the debugger (level L2, the user is asked once per site), for pages that ignore scripted input; use it only when a plain attempt had no effect.
   */
  trusted?: boolean;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserClickAtArgs {
  /**
   * Pixels from the left of the tab's latest screenshot.
   */
  x: number;
  /**
   * Pixels from its top.
   */
  y: number;
  /**
   * The mouse button; default left.
   */
  button?: "left" | "right" | "middle";
  /**
   * A double click.
   */
  double?: boolean;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserHoverArgs {
  /**
   * An element ref from browser_snapshot.
   */
  ref: string;
  /**
   * Real input through the debugger (level L2, the user is asked once per site), for pages that ignore scripted input; use it only when a plain attempt had no effect.
   */
  trusted?: boolean;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export type BrowserDragArgs = {
  [k: string]: unknown;
} & {
  /**
   * An element ref from browser_snapshot.
   */
  ref: string;
  /**
   * The element to drop on.
   */
  toRef?: string;
  /**
   * Or a point of the viewport to drop at.
   */
  toX?: number;
  toY?: number;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
};
export interface BrowserTypeArgs {
  /**
   * An element ref from browser_snapshot.
   */
  ref: string;
  text: string;
  /**
   * Press Enter after.
   */
  submit?: boolean;
  /**
   * Real input through the debugger (level L2, the user is asked once per site), for pages that ignore scripted input; use it only when a plain attempt had no effect.
   */
  trusted?: boolean;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserSelectOptionArgs {
  /**
   * An element ref from browser_snapshot.
   */
  ref: string;
  /**
   * @minItems 1
   */
  values: [string, ...string[]];
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserUploadFileArgs {
  /**
   * The file input, or its label or button.
   */
  ref: string;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserPressKeyArgs {
  key: string;
  /**
   * Real input through the debugger (level L2, the user is asked once per site), for pages that ignore scripted input; use it only when a plain attempt had no effect.
   */
  trusted?: boolean;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserHandleDialogArgs {
  /**
   * true: OK; false: Cancel.
   */
  accept: boolean;
  /**
   * The text to answer a prompt with.
   */
  promptText?: string;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export type BrowserScrollArgs = {
  [k: string]: unknown;
} & {
  /**
   * An element ref from browser_snapshot.
   */
  ref?: string;
  direction?: "up" | "down" | "left" | "right";
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
};
export type BrowserWaitForArgs = {
  [k: string]: unknown;
} & {
  text?: string;
  textGone?: string;
  timeMs?: number;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
};
export interface BrowserDownloadsArgs {
  /**
   * Read this download (an id from the list or from the action that started it) as text.
   */
  id?: number;
  /**
   * Where to start, in characters, when an earlier read was truncated.
   */
  offset?: number;
}
export interface BrowserScreenshotArgs {
  /**
   * The whole page, not only the viewport.
   */
  fullPage?: boolean;
  /**
   * The tab; default: the tab this thread used last (else the active tab).
   */
  tabId?: number;
}
export interface BrowserToolArgs {
  "browser_tabs_list": BrowserTabsListArgs;
  "browser_tab_new": BrowserTabNewArgs;
  "browser_tab_select": BrowserTabSelectArgs;
  "browser_tab_close": BrowserTabCloseArgs;
  "browser_navigate": BrowserNavigateArgs;
  "browser_navigate_back": BrowserNavigateBackArgs;
  "browser_read": BrowserReadArgs;
  "browser_snapshot": BrowserSnapshotArgs;
  "browser_click": BrowserClickArgs;
  "browser_double_click": BrowserDoubleClickArgs;
  "browser_click_at": BrowserClickAtArgs;
  "browser_hover": BrowserHoverArgs;
  "browser_drag": BrowserDragArgs;
  "browser_type": BrowserTypeArgs;
  "browser_select_option": BrowserSelectOptionArgs;
  "browser_upload_file": BrowserUploadFileArgs;
  "browser_press_key": BrowserPressKeyArgs;
  "browser_handle_dialog": BrowserHandleDialogArgs;
  "browser_scroll": BrowserScrollArgs;
  "browser_wait_for": BrowserWaitForArgs;
  "browser_downloads": BrowserDownloadsArgs;
  "browser_screenshot": BrowserScreenshotArgs;
}
export type BrowserToolName = keyof BrowserToolArgs;
