// The minimal side panel: list threads, start a turn, show the streamed answer, show why
// the host is unreachable, and re-open the thread after a reconnect. Model and page text
// is only ever set as text, never as HTML.

import { PanelClient, PanelRpcError } from "./client.js";

/** @typedef {import("../generated/protocol").Thread} Thread */
/** @typedef {import("../generated/protocol").ThreadSnapshot} ThreadSnapshot */
/** @typedef {import("../types").HostStatus} HostStatus */
/** @typedef {ThreadSnapshot["items"][number]} Item */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const ui = {
  connection: $("connection"),
  banner: $("banner"),
  cause: $("banner-cause"),
  fix: $("banner-fix"),
  threads: $("threads"),
  title: $("thread-title"),
  log: $("log"),
  run: $("run"),
  runState: $("run-state"),
  resume: /** @type {HTMLButtonElement} */ ($("resume")),
  message: /** @type {HTMLTextAreaElement} */ ($("message")),
  composer: /** @type {HTMLFormElement} */ ($("composer")),
};

const RUN_WORDS = /** @type {Record<string, string>} */ ({
  queued: "Queued…",
  streaming: "Answering…",
  awaiting_approval: "Waiting for your approval.",
  awaiting_interaction: "Waiting for your answer.",
  executing_tool: "Using a tool…",
  paused_uncertain: "Paused: a browser action may or may not have happened (the host stopped during it). Check the page, then resolve it.",
  budget_paused: "Paused: the token budget of this turn is used up.",
  interrupted: "This turn was interrupted: the host stopped while it ran. Resume it, or send a new message.",
  failed: "This turn failed.",
});
const RESUMABLE = new Set(["interrupted", "budget_paused"]);

class Panel {
  constructor() {
    this.client = new PanelClient((m, p) => this.onNotification(m, p), () => this.reopen());
    /** @type {string | null} */
    this.threadId = null;
    /** @type {string | null} */
    this.runId = null;
    this.lastSeq = 0;
    /** @type {Map<string, {li: HTMLLIElement, text: Text}>} */
    this.items = new Map();
    /** @type {Map<string, Thread>} */
    this.threadList = new Map();
    this.connection = 0;
    /** Every disconnect cause shown, oldest first. @type {string[]} */
    this.causesShown = [];
  }

  start() {
    this.client.connect();
    $("new-thread").addEventListener("click", () => this.run(() => this.newThread()));
    $("retry").addEventListener("click", () => this.client.notify("$/reconnect", {}));
    ui.resume.addEventListener("click", () => this.run(() => this.resume()));
    ui.composer.addEventListener("submit", (event) => {
      event.preventDefault();
      this.run(() => this.send());
    });
    ui.message.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        ui.composer.requestSubmit();
      }
    });
    this.run(() => this.refreshThreads());
  }

  /** Run an action; a failure shows in the run line, never as a silent spinner. @param {() => Promise<void>} action */
  async run(action) {
    try {
      await action();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!(error instanceof PanelRpcError && error.rpc.data?.kind === "host_unavailable")) {
        this.showRun(message);
      }
    }
  }

  async refreshThreads() {
    const { threads } = await this.client.request("thread.list", { limit: 50 });
    this.threadList = new Map(threads.map((t) => [t.id, t]));
    this.renderThreads();
  }

  renderThreads() {
    ui.threads.replaceChildren(...[...this.threadList.values()].map((thread) => {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = thread.title || "Untitled";
      button.setAttribute("aria-current", String(thread.id === this.threadId));
      button.addEventListener("click", () => this.run(() => this.open(thread.id)));
      li.append(button);
      return li;
    }));
  }

  async newThread() {
    const { thread } = await this.client.request("thread.create", { commandId: crypto.randomUUID() });
    this.threadList = new Map([[thread.id, thread], ...this.threadList]);
    await this.open(thread.id);
  }

  /** @param {string} threadId */
  async open(threadId) {
    if (this.threadId && this.threadId !== threadId) this.client.notify("$/unsubscribe", { threadId: this.threadId });
    this.threadId = threadId;
    const snapshot = await this.client.request("thread.open", { threadId });
    if (this.threadId !== threadId) return;
    this.render(snapshot);
  }

  /** After a reconnect (new worker or new host): re-open what was shown. */
  reopen() {
    this.run(async () => {
      await this.refreshThreads();
      if (this.threadId) await this.open(this.threadId);
    });
  }

  /** @param {ThreadSnapshot} snapshot */
  render(snapshot) {
    this.lastSeq = snapshot.lastSeq;
    this.threadList.set(snapshot.thread.id, snapshot.thread);
    this.renderThreads();
    ui.title.textContent = snapshot.thread.title || "Untitled";
    this.items.clear();
    ui.log.replaceChildren();
    for (const item of snapshot.items) this.addItem(item);
    for (const approval of snapshot.pendingApprovals) this.addApproval(approval);
    this.runId = snapshot.run?.id ?? null;
    const state = snapshot.run?.state;
    const live = snapshot.turn && (snapshot.turn.status === "running" || snapshot.turn.status === "paused");
    if (state && (live || state === "failed" || state === "interrupted")) this.showRunState(state);
    else this.showRun("");
  }

  async send() {
    const text = ui.message.value.trim();
    if (!text) return;
    if (!this.threadId) await this.newThread();
    const threadId = /** @type {string} */ (this.threadId);
    await this.client.request("turn.submit", { commandId: crypto.randomUUID(), threadId, text });
    ui.message.value = "";
  }

  async resume() {
    if (!this.threadId || !this.runId) return;
    await this.client.request("run.resume", { commandId: crypto.randomUUID(), threadId: this.threadId, runId: this.runId });
    this.showRun("");
  }

  /** @param {string} method @param {any} params */
  onNotification(method, params) {
    if (method === "$/host.status") return this.onStatus(params);
    if (method === "thread.updated") {
      this.threadList.set(params.thread.id, params.thread);
      this.renderThreads();
      if (params.thread.id === this.threadId) ui.title.textContent = params.thread.title || "Untitled";
    }
    if (!params || params.threadId !== this.threadId || typeof params.seq !== "number") return;
    if (params.seq <= this.lastSeq) return; // already in the snapshot
    if (params.seq > this.lastSeq + 1) return this.reopen(); // a gap: take a fresh snapshot
    this.lastSeq = params.seq;
    this.onThreadEvent(method, params);
  }

  /** @param {string} method @param {any} params */
  onThreadEvent(method, params) {
    switch (method) {
      case "turn.started":
        this.runId = params.runId;
        this.showRun(RUN_WORDS.streaming);
        break;
      case "item.started":
      case "item.completed":
        this.addItem(params.item);
        break;
      case "item.delta":
        if (typeof params.delta?.text === "string") {
          const shown = this.items.get(params.itemId);
          if (shown) {
            shown.text.appendData(params.delta.text);
            shown.li.hidden = false;
          } else {
            // re-opened mid-answer: the snapshot holds stored items only; show what follows
            this.addItem({ id: params.itemId, kind: "assistant", turnId: params.turnId, createdAt: "", text: params.delta.text });
          }
        }
        break;
      case "run.updated":
        this.runId = params.runId;
        this.showRunState(params.state);
        break;
      case "approval.request":
        this.addApproval(params);
        break;
      case "approval.resolved":
        this.items.get(`approval:${params.requestId}`)?.li.remove();
        this.items.delete(`approval:${params.requestId}`);
        break;
      case "turn.complete":
        this.showRun(params.status === "completed" ? "" : params.status === "failed"
          ? `This turn failed: ${params.error?.message ?? "unknown error"}`
          : "Interrupted.");
        break;
    }
  }

  /** @param {Item} item */
  addItem(item) {
    const text = itemText(item);
    const known = this.items.get(item.id);
    if (known) {
      known.text.data = text;
      known.li.hidden = text === "";
      if (item.kind === "assistant" && item.interrupted) known.li.dataset.interrupted = "true";
      return;
    }
    const li = document.createElement("li");
    li.dataset.kind = item.kind;
    if (item.kind === "assistant" && item.interrupted) li.dataset.interrupted = "true";
    const node = document.createTextNode(text);
    li.append(node);
    li.hidden = text === ""; // an answer that starts with a tool call has no text
    ui.log.append(li);
    this.items.set(item.id, { li, text: node });
  }

  /**
   * A tool asks for permission: say what and where, with Allow and Deny.
   * @param {import("../generated/protocol").ApprovalRequest} approval
   */
  addApproval(approval) {
    const key = `approval:${approval.requestId}`;
    if (this.items.has(key)) return;
    const li = document.createElement("li");
    li.dataset.kind = "approval";
    const where = approval.target?.origin ? ` on ${approval.target.origin}` : "";
    const text = document.createTextNode(`Allow "${approval.tool.label}"${where}? `);
    li.append(text);
    for (const decision of /** @type {const} */ (["allow", "deny"])) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = decision === "allow" ? "Allow" : "Deny";
      button.addEventListener("click", () => this.run(async () => {
        await this.client.request("approval.response", { commandId: crypto.randomUUID(), requestId: approval.requestId, decision, scope: "once" });
      }));
      li.append(button);
    }
    ui.log.append(li);
    this.items.set(key, { li, text });
  }

  /** @param {string} state */
  showRunState(state) {
    const completed = state === "completed";
    this.showRun(completed ? "" : RUN_WORDS[state] ?? state);
    ui.resume.hidden = !RESUMABLE.has(state);
  }

  /** @param {string} text */
  showRun(text) {
    ui.run.hidden = text === "";
    ui.runState.textContent = text;
    if (text === "") ui.resume.hidden = true;
  }

  /** @param {HostStatus} status */
  onStatus(status) {
    const words = { connecting: "Connecting to the host…", connected: "Connected", disconnected: "Disconnected" };
    ui.connection.textContent = words[status.state];
    if (status.state === "disconnected" && status.cause) {
      ui.banner.hidden = false;
      ui.cause.textContent = status.cause.message;
      const retry = status.retryInMs ? ` Retrying in ${Math.ceil(status.retryInMs / 1000)} s.` : "";
      ui.fix.textContent = status.cause.fix + retry;
      this.causesShown.push(status.cause.message);
    }
    if (status.state === "connected") {
      ui.banner.hidden = true;
      const reconnected = this.connection !== 0 && status.connection !== this.connection;
      this.connection = status.connection;
      if (reconnected) this.reopen();
    }
  }
}

/** @param {Item} item @returns {string} */
function itemText(item) {
  switch (item.kind) {
    case "user":
    case "steering":
    case "assistant":
      return item.text ?? "";
    case "toolCall":
      return `${item.name}: ${item.status}`;
    case "notice":
      return item.text;
  }
  return "";
}

const panel = new Panel();
Object.assign(globalThis, { panelot: panel }); // for tests: routing counters, causes shown
panel.start();
