// Scheduled workflows (issue 29): Chrome's alarm wakes the worker when a workflow is due;
// the worker asks the host what is due (`workflow.due`), runs it in its thread
// (`workflow.run` with trigger "schedule"), says the outcome in a notification, and
// reports runs missed while the browser was closed without running them (docs/protocol.md,
// "workflow.due"). Chrome's alarms and notifications APIs are passed in.

/** @typedef {import("./host-link.js").HostLink} HostLink */

export const ALARM = "panelot-workflows";
const NOTIFICATION_ICON = "icons/panelot-128.png";
const DUE_TIMEOUT_MS = 30_000;

/**
 * @typedef {{create(name: string, info: {when: number}): unknown, clear(name: string): unknown}} Alarms
 * @typedef {{create(id: string, options: {type: "basic", iconUrl: string, title: string, message: string}): unknown}} Notifications
 * @typedef {{workflowId: string, name: string, threadId?: string | null, dueAt: string}} DueRun
 * @typedef {{workflowId: string, name: string, count: number, firstAt: string, lastAt: string}} MissedRun
 */

/** "1 run of X was missed…", "3 runs of X were missed…". @param {MissedRun} missed */
export function missedWords(missed) {
  const runs = missed.count === 1 ? "1 run" : `${missed.count} runs`;
  const were = missed.count === 1 ? "was" : "were";
  return `${runs} of “${missed.name}” ${were} missed while the browser was closed; ${missed.count === 1 ? "it was" : "they were"} not run afterwards.`;
}

/**
 * A scheduled run's outcome in a sentence, from the event that ended or paused its Turn.
 * @param {string} name @param {string} method @param {any} params
 */
export function outcomeWords(name, method, params) {
  if (method === "turn.paused") {
    const why = params?.reason === "needs_model" ? "it needs a model to continue where the page changed" : "it is waiting for you";
    return `“${name}” paused: ${why}. Open Panelot to continue.`;
  }
  if (method === "approval.request") return `“${name}” asks for your approval. Open Panelot to answer.`;
  const status = params?.status;
  const record = params?.workflow;
  if (status === "completed" && typeof record?.deniedAt === "number") {
    return `“${name}” stopped at step ${record.deniedAt + 1}: its call was denied, so the steps after it were not done.`;
  }
  if (status === "completed" && record?.handedOver && typeof record?.divergedAt === "number") {
    return `“${name}” ran on schedule and finished; the page had changed at step ${record.divergedAt + 1}, so the model did the rest.`;
  }
  if (status === "completed") return `“${name}” ran on schedule and finished.`;
  if (status === "interrupted") return `“${name}” was stopped.`;
  const why = params?.error?.message ? `: ${params.error.message}` : "";
  return `“${name}” failed${why}.`;
}

export class WorkflowScheduler {
  /**
   * @param {{link: HostLink, alarms: Alarms, notifications: Notifications, now?: () => number, newId?: () => string}} options
   */
  constructor(options) {
    this.link = options.link;
    this.alarms = options.alarms;
    this.notifications = options.notifications;
    this.now = options.now ?? (() => Date.now());
    this.newId = options.newId ?? (() => crypto.randomUUID());
    /** @type {Map<string, {name: string, turnId: string}>} threads running a scheduled run */
    this.running = new Map();
    /** @type {Promise<void> | null} */
    this.checking = null;
  }

  /** Ask the host what is due; run it, report what was missed, arm the next alarm. One check at a time. */
  check() {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  async checkOnce() {
    const answer = await this.link.send("workflow.due", { commandId: this.newId(), now: this.now() }, DUE_TIMEOUT_MS).done;
    for (const missed of answer?.missed ?? []) {
      this.notify(`panelot-missed-${missed.workflowId}-${missed.lastAt}`, missedWords(missed));
    }
    for (const due of answer?.due ?? []) await this.run(due);
    this.arm(answer?.nextDueAt ?? null);
  }

  /** @param {DueRun} due */
  async run(due) {
    const params = { commandId: this.newId(), workflowId: due.workflowId, trigger: "schedule", ...(due.threadId ? { threadId: due.threadId } : {}) };
    try {
      const started = await this.link.send("workflow.run", params, DUE_TIMEOUT_MS).done;
      if (typeof started?.threadId === "string" && typeof started?.turnId === "string") {
        this.running.set(started.threadId, { name: due.name, turnId: started.turnId });
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.notify(`panelot-failed-${due.workflowId}-${due.dueAt}`, `“${due.name}” could not start on schedule: ${message}`);
    }
  }

  /** Re-arm from the host's schedules (after the panel changed one). */
  async rearm() {
    const listed = await this.link.send("workflow.schedule.list", {}, DUE_TIMEOUT_MS).done;
    this.arm(listed?.nextDueAt ?? null);
  }

  /** @param {string | null} nextDueAt */
  arm(nextDueAt) {
    const when = nextDueAt ? Date.parse(nextDueAt) : NaN;
    if (Number.isFinite(when)) this.alarms.create(ALARM, { when: Math.max(when, this.now() + 1_000) });
    else this.alarms.clear(ALARM);
  }

  /**
   * A host event: the end, a pause or an approval of a scheduled run is a notification.
   * @param {string} method @param {any} params
   */
  onEvent(method, params) {
    const run = typeof params?.threadId === "string" ? this.running.get(params.threadId) : undefined;
    if (run === undefined) return;
    if (method === "turn.complete" && params.turnId === run.turnId) {
      this.running.delete(params.threadId);
      this.notify(`panelot-run-${run.turnId}`, outcomeWords(run.name, method, params));
    } else if (method === "turn.paused" && params.turnId === run.turnId) {
      this.notify(`panelot-paused-${run.turnId}`, outcomeWords(run.name, method, params));
    } else if (method === "approval.request") {
      this.notify(`panelot-approval-${params.requestId}`, outcomeWords(run.name, method, params));
    }
  }

  /** @param {string} id @param {string} message */
  notify(id, message) {
    try {
      this.notifications.create(id, { type: "basic", iconUrl: NOTIFICATION_ICON, title: "Panelot workflows", message });
    } catch (error) {
      console.warn("panelot: could not show a notification", error);
    }
  }
}
