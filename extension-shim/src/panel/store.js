// The panel's one store: the view state of this panel (what the host sent, which thread is
// shown, drafts of nothing secret) and a tiny topic-based pub/sub so each view re-renders
// only what changed. The host owns the real state; this is a mirror rebuilt from
// `thread.open` snapshots and the events after them.

import { applyThreadEvent } from "./reducer.js";

/** @typedef {import("../generated/protocol").Thread} Thread */
/** @typedef {import("../generated/protocol").ThreadMatch} ThreadMatch */
/** @typedef {import("../generated/protocol").ThreadSnapshot} ThreadSnapshot */
/** @typedef {import("../generated/protocol").ApprovalRequest} ApprovalRequest */
/** @typedef {import("../generated/protocol").InteractionRequest} InteractionRequest */
/** @typedef {import("../generated/protocol").QueueEntry} QueueEntry */
/** @typedef {import("../generated/protocol").Usage} Usage */
/** @typedef {import("../generated/protocol").BranchPoint} BranchPoint */
/** @typedef {import("../types").HostStatus} HostStatus */
/** @typedef {ThreadSnapshot["items"][number]} Item */
/** @typedef {{id: string, status: string, runId?: string, pauseReason?: string, budgetReached?: string, costBudgetUsd?: number, costUsd?: number | null, error?: {kind: string, message: string}}} TurnView */
/** @typedef {{usage: Usage | undefined, costUsd: number | null}} TurnUsage */
/** @typedef {{label: string, run: () => void}} NoticeAction  a button on a notice that leads to the fix */
/** @typedef {{id: number, kind: "error" | "authority" | "info", text: string, action?: NoticeAction, details?: string}} Notice */
/** @typedef {import("../generated/protocol").ProviderStatusResult} ProviderStatus */

/**
 * @typedef {{
 *   host: HostStatus,
 *   hostWasConnected: boolean,
 *   view: "chat" | "settings" | "setup" | "workflows",
 *   provider: ProviderStatus | null,
 *   kept: string | null,
 *   threads: Thread[],
 *   statuses: Map<string, string>,
 *   query: string,
 *   matches: Map<string, ThreadMatch>,
 *   threadId: string | null,
 *   thread: Thread | null,
 *   lastSeq: number,
 *   items: Map<string, Item>,
 *   toolTimes: Map<string, {startedAt: number, endedAt?: number}>,
 *   progress: Map<string, unknown>,
 *   turn: TurnView | null,
 *   run: {id: string, state: string, waitReason?: string} | null,
 *   turnUsage: Map<string, TurnUsage>,
 *   branches: Map<string, BranchPoint>,
 *   approvals: Map<string, ApprovalRequest>,
 *   decisions: Map<string, "asked" | "allow" | "deny">,
 *   interactions: Map<string, InteractionRequest>,
 *   queue: QueueEntry[],
 *   pendingSteering: Map<string, {text: string, admitted: boolean}>,
 *   notices: Notice[],
 *   previousHead: string | null,
 * }} State
 */

/**
 * Topics: `host`, `threads`, `snapshot` (a whole thread was loaded), `thread` (title/stats),
 * `item` (detail: item id), `delta` (detail: item id), `cards` (approvals, questions),
 * `run` (turn, run, usage), `queue`, `steering`, `notices`, `view`, `provider` (whether a
 * model is usable, and the message kept until it is), `workflows` (the saved workflows or the
 * draft being edited changed).
 * @typedef {"host" | "threads" | "snapshot" | "thread" | "item" | "delta" | "cards" | "run" | "queue" | "steering" | "notices" | "view" | "provider" | "workflows"} Topic
 */

export class Store {
  constructor() {
    /** @type {State} */
    this.state = {
      host: { state: "connecting", connection: 0 },
      hostWasConnected: false,
      view: "chat",
      provider: null,
      kept: null,
      threads: [],
      statuses: new Map(),
      query: "",
      matches: new Map(),
      threadId: null,
      thread: null,
      lastSeq: 0,
      items: new Map(),
      toolTimes: new Map(),
      progress: new Map(),
      turn: null,
      run: null,
      turnUsage: new Map(),
      branches: new Map(),
      approvals: new Map(),
      decisions: new Map(),
      interactions: new Map(),
      queue: [],
      pendingSteering: new Map(),
      notices: [],
      previousHead: null,
    };
    /** @type {Map<Topic, Set<(detail?: string) => void>>} */
    this.listeners = new Map();
    this.nextNoticeId = 1;
  }

  /** @param {Topic} topic @param {(detail?: string) => void} listener */
  on(topic, listener) {
    const set = this.listeners.get(topic) ?? new Set();
    set.add(listener);
    this.listeners.set(topic, set);
  }

  /** @param {Topic} topic @param {string} [detail] */
  emit(topic, detail) {
    for (const listener of this.listeners.get(topic) ?? []) listener(detail);
  }

  /**
   * Apply an event of the shown thread and emit what changed; false when events were
   * missed (the caller takes a fresh snapshot).
   * @param {string} method @param {any} params @returns {boolean}
   */
  apply(method, params) {
    const changes = applyThreadEvent(this.state, method, params, performance.now());
    if (changes === "gap") return false;
    for (const [topic, detail] of changes) this.emit(topic, detail);
    return true;
  }

  /** Is a turn of the shown thread live (running or paused)? */
  get turnLive() {
    const status = this.state.turn?.status;
    return status === "running" || status === "paused";
  }

  /** @param {Notice["kind"]} kind @param {string} text @param {{action?: NoticeAction, details?: string}} [more] */
  notify(kind, text, more = {}) {
    this.state.notices = [...this.state.notices, { id: this.nextNoticeId++, kind, text, ...more }].slice(-5);
    this.emit("notices");
  }

  /** @param {number} id */
  dismiss(id) {
    this.state.notices = this.state.notices.filter((n) => n.id !== id);
    this.emit("notices");
  }

  /** Load a thread snapshot, replacing everything thread-scoped. @param {ThreadSnapshot} snapshot */
  load(snapshot) {
    const s = this.state;
    const sameThread = s.threadId === snapshot.thread.id;
    s.thread = snapshot.thread;
    s.threadId = snapshot.thread.id;
    s.lastSeq = snapshot.lastSeq;
    s.items = new Map(snapshot.items.map((item) => [item.id, item]));
    s.progress = new Map();
    s.toolTimes = new Map();
    const turn = snapshot.turn;
    s.turn = turn ? { id: turn.id, status: turn.status, runId: snapshot.run?.id, pauseReason: turn.pauseReason ?? undefined, budgetReached: turn.budgetReached ?? undefined, costBudgetUsd: turn.costBudgetUsd ?? undefined, costUsd: turn.costUsd, error: turn.error ?? undefined } : null;
    s.run = snapshot.run ? { id: snapshot.run.id, state: snapshot.run.state, waitReason: snapshot.run.waitReason ?? undefined } : null;
    // every ended turn's usage (a host without `turns` sends only the last one)
    const ended = [...(snapshot.turns ?? []), ...(turn ? [turn] : [])].filter((t) => t.status !== "running" && t.status !== "paused");
    s.turnUsage = new Map(ended.map((t) => [t.id, { usage: t.usage, costUsd: t.costUsd }]));
    s.branches = new Map((snapshot.branches ?? []).map((point) => [point.itemId, point]));
    // what the user decided on this thread's calls while this panel watched (the timeline's marks)
    if (!sameThread) s.decisions = new Map();
    for (const pending of snapshot.pendingApprovals) if (!s.decisions.has(pending.toolCallId)) s.decisions.set(pending.toolCallId, "asked");
    for (const decided of snapshot.decidedApprovals ?? []) s.decisions.set(decided.toolCallId, decided.decision);
    s.approvals = new Map(snapshot.pendingApprovals.map((a) => [a.requestId, a]));
    s.interactions = new Map(snapshot.pendingInteractions.map((i) => [i.interactionId, i]));
    s.queue = snapshot.queue;
    s.pendingSteering = new Map(snapshot.pendingSteering.map((item) => [item.id, { text: item.kind === "steering" ? item.text : "", admitted: false }]));
    const known = s.threads.findIndex((t) => t.id === snapshot.thread.id);
    if (known >= 0) s.threads[known] = snapshot.thread;
    s.statuses.set(snapshot.thread.id, snapshot.thread.status ?? "idle");
    for (const topic of /** @type {Topic[]} */ (["snapshot", "threads", "run", "queue", "cards", "steering"])) this.emit(topic);
  }

  /** Forget the shown thread (deleted). */
  clearThread() {
    const s = this.state;
    s.threadId = null;
    s.thread = null;
    s.items = new Map();
    s.turn = null;
    s.run = null;
    s.branches = new Map();
    s.approvals = new Map();
    s.interactions = new Map();
    s.queue = [];
    s.pendingSteering = new Map();
    s.previousHead = null;
    for (const topic of /** @type {Topic[]} */ (["snapshot", "threads", "run", "queue", "cards", "steering"])) this.emit(topic);
  }
}
