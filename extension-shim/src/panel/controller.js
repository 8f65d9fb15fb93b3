// The panel's controller: user actions -> ops (each with a fresh commandId), and the host's
// events -> the store. Events of the shown thread are applied in `seq` order; a gap takes a
// fresh `thread.open` snapshot. Failures become notices, never silent spinners.

import { PanelRpcError } from "./client.js";
import { activeTab } from "./tabs.js";
import { UPLOAD_MAX_BYTES } from "../tools/uploads.js";
import { versionParams } from "../versions.js";
import { WorkflowOps } from "./workflows.js";

/** @typedef {import("./client.js").PanelClient} PanelClient */
/** @typedef {import("./store.js").Store} Store */
/** @typedef {import("./store.js").Item} Item */
/** @typedef {import("../types").HostStatus} HostStatus */

const newCommandId = () => crypto.randomUUID();

export class Controller {
  /** @param {Store} store @param {PanelClient} client */
  constructor(store, client) {
    this.store = store;
    this.client = client;
    /** Every disconnect cause shown, oldest first (tests read it). @type {string[]} */
    this.causesShown = [];
    /** The worker's connection counter when this panel last saw the host connected. */
    this.connectedOn = 0;
    /** @type {{confirm: (title: string, body: string, action: string) => Promise<boolean>, prompt: (title: string, label: string, value: string) => Promise<string | null>}} */
    this.dialogs = { confirm: async () => false, prompt: async () => null };
    /** Saving, running and scheduling workflows (issue 29). */
    this.workflows = new WorkflowOps(store, this);
    /** A `thread.create` under way (see `newThread`). @type {Promise<boolean> | null} */
    this.creating = null;
    /**
     * Ops this panel sent from the setup card, which says itself where the key and the
     * requests go: their `authority.widened` is not repeated as a notice here (other
     * panels and clients still show it). @type {Set<string>}
     */
    this.explainedCommands = new Set();
  }

  /** A command id; `explained` when the setup card already told the user what it widens. @param {boolean} explained */
  commandFor(explained) {
    const id = newCommandId();
    if (explained) this.explainedCommands.add(id);
    return id;
  }

  get threadId() {
    return this.store.state.threadId;
  }

  /**
   * Run an op; a failure becomes a visible notice and the result `undefined`.
   * @template T @param {() => Promise<T>} action @returns {Promise<T | undefined>}
   */
  async attempt(action) {
    try {
      return await action();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!(error instanceof PanelRpcError && error.rpc.data?.kind === "host_unavailable")) this.store.notify("error", message);
      return undefined;
    }
  }

  // ---- threads ----

  async refreshThreads() {
    const s = this.store.state;
    const query = s.query.trim();
    const result = await this.attempt(() => this.client.request("thread.list", query ? { limit: 50, query } : { limit: 50 }));
    if (!result || this.store.state.query.trim() !== query) return;
    s.threads = result.threads;
    s.matches = new Map((result.matches ?? []).map((m) => [m.threadId, m]));
    // a search lists some threads only: the others keep the status last heard of them
    if (!query) s.statuses = new Map();
    for (const thread of result.threads) s.statuses.set(thread.id, thread.status ?? "idle");
    this.store.emit("threads");
  }

  /** @param {string} query */
  search(query) {
    this.store.state.query = query;
    return this.refreshThreads();
  }

  /**
   * A new thread, shown. Until it is shown, what is sent waits for it (`send`, `enqueue`):
   * a message typed right after "New thread" belongs to the new thread, not the one before.
   * @returns {Promise<boolean>}
   */
  newThread() {
    this.creating ??= this.createThread().finally(() => {
      this.creating = null;
    });
    return this.creating;
  }

  async createThread() {
    const result = await this.attempt(() => this.client.request("thread.create", { commandId: newCommandId() }));
    if (!result) return false;
    this.store.state.threads = [result.thread, ...this.store.state.threads.filter((t) => t.id !== result.thread.id)];
    await this.open(result.thread.id);
    globalThis.document?.getElementById("message")?.focus();
    return true;
  }

  /** The thread a message goes to: the one being created, if any; else the shown one, or
   * a new one. @returns {Promise<string | null>} */
  async targetThread() {
    if (this.creating) await this.creating;
    if (!this.threadId && !(await this.newThread())) return null;
    return this.threadId;
  }

  /** @param {string} threadId */
  async open(threadId) {
    const s = this.store.state;
    if (s.threadId && s.threadId !== threadId) {
      this.client.notify("$/unsubscribe", { threadId: s.threadId });
      s.previousHead = null;
    }
    s.threadId = threadId;
    if (s.view !== "chat") this.showView("chat");
    const snapshot = await this.attempt(() => this.client.request("thread.open", { threadId }));
    if (!snapshot || this.store.state.threadId !== threadId) return;
    this.store.load(snapshot);
  }

  /** After a reconnect (new worker or new host): list again and re-open what was shown. */
  async reopen() {
    await this.refreshThreads();
    if (this.threadId) await this.open(this.threadId);
  }

  async renameThread() {
    const thread = this.store.state.thread;
    if (!thread) return;
    const title = await this.dialogs.prompt("Rename thread", "Title", thread.title);
    if (!title || !title.trim() || title.trim() === thread.title) return;
    const result = await this.attempt(() => this.client.request("thread.rename", { commandId: newCommandId(), threadId: thread.id, title: title.trim().slice(0, 200) }));
    if (result) this.onThreadUpdated(result.thread);
  }

  /**
   * "Share this tab with the thread": the tab the user is looking at joins the shown
   * thread's tabs (a new thread when none is shown).
   */
  async shareTab() {
    const tab = await activeTab();
    if (!tab) {
      this.store.notify("error", "There is no tab to share: open the page in a tab first.");
      return false;
    }
    const threadId = await this.targetThread();
    if (!threadId) return false;
    const result = await this.attempt(() => this.client.request("thread.shareTab", { commandId: newCommandId(), threadId, tab }));
    if (!result) return false;
    this.onThreadUpdated(result.thread);
    this.store.notify("info", `Shared the tab “${tab.title || tab.url}” with this thread.`);
    return true;
  }

  async deleteThread() {
    const thread = this.store.state.thread;
    if (!thread) return;
    const sure = await this.dialogs.confirm("Delete this thread?", `“${thread.title}” and all its messages will be deleted. This cannot be undone.`, "Delete");
    if (!sure) return;
    const done = await this.attempt(() => this.client.request("thread.delete", { commandId: newCommandId(), threadId: thread.id }));
    if (!done) return;
    this.store.state.threads = this.store.state.threads.filter((t) => t.id !== thread.id);
    this.store.state.statuses.delete(thread.id);
    this.store.clearThread();
    this.store.notify("info", `Deleted “${thread.title}”.`);
  }

  /** Fork the shown thread at an item (null: the whole selected branch). @param {string | null} itemId */
  async fork(itemId) {
    const s = this.store.state;
    if (!s.threadId) return;
    const last = [...s.items.keys()].pop();
    const atItemId = itemId ?? last;
    const params = atItemId ? { commandId: newCommandId(), threadId: s.threadId, atItemId } : { commandId: newCommandId(), threadId: s.threadId };
    const result = await this.attempt(() => this.client.request("thread.fork", params));
    if (!result) return;
    s.threads = [result.thread, ...s.threads];
    await this.open(result.thread.id);
  }

  /**
   * Make the branch end just before a user message, so the next message starts a sibling
   * branch there; remember the current end to come back to it.
   * @param {string} _itemId @param {string} parentId
   */
  async branchBefore(_itemId, parentId) {
    const s = this.store.state;
    if (!s.threadId) return;
    const head = [...s.items.keys()].pop() ?? null;
    const ok = await this.selectBranch(parentId);
    if (ok) {
      this.store.state.previousHead = head;
      this.store.emit("thread");
      document.getElementById("message")?.focus();
    }
  }

  async backToPreviousBranch() {
    const head = this.store.state.previousHead;
    if (!head) return;
    if (await this.selectBranch(head)) {
      this.store.state.previousHead = null;
      this.store.emit("thread");
    }
  }

  /**
   * Show another branch at a branch point: the one ending at `headItemId` (the newest item
   * below a sibling message, from the snapshot's `branches`).
   * @param {string} headItemId
   */
  async switchBranch(headItemId) {
    if (await this.selectBranch(headItemId)) {
      this.store.state.previousHead = null;
      this.store.emit("thread");
    }
  }

  /** @param {string} itemId */
  async selectBranch(itemId) {
    const threadId = this.threadId;
    if (!threadId) return false;
    const snapshot = await this.attempt(() => this.client.request("thread.selectBranch", { commandId: newCommandId(), threadId, itemId }));
    if (!snapshot) return false;
    const keep = this.store.state.previousHead;
    this.store.load(snapshot);
    this.store.state.previousHead = keep;
    return true;
  }

  // ---- turns ----

  /**
   * Send: a new turn when idle, a steering message while a turn runs. With no usable model
   * the message is kept (in the composer, and for the setup's "Send" button) and the setup
   * opens: no thread is created until a turn can start.
   * @param {string} text
   */
  async send(text) {
    const s = this.store.state;
    if (s.provider && !s.provider.ready && !this.threadId) {
      this.keepForSetup(text);
      return false;
    }
    const threadId = await this.targetThread();
    if (!threadId) return false;
    if (this.store.turnLive && s.turn) {
      const turnId = s.turn.id;
      const result = await this.attempt(() => this.client.request("turn.steer", { commandId: newCommandId(), threadId, expectedTurnId: turnId, text }));
      if (!result) return false;
      if (!s.items.has(result.itemId)) s.pendingSteering.set(result.itemId, { text, admitted: false });
      this.store.emit("steering");
      return true;
    }
    try {
      // the tab the user looks at goes along; the host hands it over only when the
      // shareActiveTab setting is on
      const shareTab = await activeTab();
      await this.client.request("turn.submit", shareTab ? { commandId: newCommandId(), threadId, text, shareTab } : { commandId: newCommandId(), threadId, text });
      return true;
    } catch (error) {
      // the turn started elsewhere a moment ago: queue it rather than lose it
      if (error instanceof PanelRpcError && error.rpc.data?.kind === "turn_active") return this.enqueue(text);
      if (error instanceof PanelRpcError && error.rpc.data?.kind === "provider") {
        await this.providerRefused(threadId, text, error.rpc);
        return false;
      }
      this.store.notify("error", error instanceof Error ? error.message : String(error));
      return false;
    }
  }

  /**
   * `turn.submit` failed for want of a usable model: a thread this left empty goes, the
   * message is kept, and the panel points at the fix (the setup, or the setting), never at
   * environment variables (those go under Details).
   * @param {string} threadId @param {string} text @param {import("../types").RpcErrorObject} rpc
   */
  async providerRefused(threadId, text, rpc) {
    const s = this.store.state;
    if (s.threadId === threadId && s.items.size === 0) {
      const deleted = await this.attempt(() => this.client.request("thread.delete", { commandId: newCommandId(), threadId }, 60_000));
      if (deleted) {
        s.threads = s.threads.filter((t) => t.id !== threadId);
        this.store.clearThread();
      }
    }
    const data = /** @type {{setup?: boolean, shellHint?: string} | undefined} */ (rpc.data);
    await this.checkProvider();
    if (data?.setup || (s.provider && !s.provider.ready)) {
      this.keepForSetup(text);
      return;
    }
    this.store.notify("error", rpc.message, { action: { label: "Open settings", run: () => this.showView("settings") }, details: data?.shellHint });
  }

  /** Keep `text` until a model is set up, and open the setup. @param {string} text */
  keepForSetup(text) {
    this.store.state.kept = text;
    this.store.emit("provider");
    this.showView("setup");
  }

  /** Whether a model is usable now (`provider.status`); opens the setup when not. */
  async checkProvider() {
    const status = await this.attempt(() => this.client.request("provider.status", {}));
    if (!status) return;
    const s = this.store.state;
    s.provider = status;
    this.store.emit("provider");
    if (!status.ready && s.view === "chat" && !s.threadId) this.showView("setup");
  }

  /** Local OpenAI-compatible servers the host found (Ollama, LM Studio, ...). */
  async discoverLocal() {
    return (await this.attempt(() => this.client.request("provider.discover", {})))?.servers ?? [];
  }

  /** Test the saved provider settings with a real request (the same check as `panelot-host doctor`). */
  async testProvider() {
    const result = await this.attempt(() => this.client.request("provider.test", {}, 60_000));
    if (result?.ok) await this.checkProvider();
    return result;
  }

  /** Send the message kept during the setup, from the chat. */
  async sendKept() {
    const s = this.store.state;
    const text = s.kept;
    this.showView("chat");
    if (!text) return;
    const sent = await this.send(text);
    if (!sent) return;
    s.kept = null;
    this.store.emit("provider");
    const composer = /** @type {HTMLTextAreaElement | null} */ (globalThis.document?.getElementById("message") ?? null);
    if (composer && composer.value === text) composer.value = "";
  }

  /** @param {string} text */
  async enqueue(text) {
    const threadId = await this.targetThread();
    if (!threadId) return false;
    const result = await this.attempt(() => this.client.request("turn.enqueue", { commandId: newCommandId(), threadId, text }));
    return result !== undefined;
  }

  /** @param {string} entryId @param {string} text */
  async updateQueued(entryId, text) {
    const threadId = this.threadId;
    if (!threadId || !text.trim()) return;
    const result = await this.attempt(() => this.client.request("queue.update", { commandId: newCommandId(), threadId, entryId, text }));
    if (result) this.setQueue(result.queue);
  }

  /** @param {string} entryId */
  async removeQueued(entryId) {
    const threadId = this.threadId;
    if (!threadId) return;
    const result = await this.attempt(() => this.client.request("queue.remove", { commandId: newCommandId(), threadId, entryId }));
    if (result) this.setQueue(result.queue);
  }

  /** @param {import("./store.js").QueueEntry[]} queue */
  setQueue(queue) {
    this.store.state.queue = queue;
    this.store.emit("queue");
  }

  /**
   * Stop the shown thread's turn, never another thread's: the interrupt names the shown
   * thread and the turn its snapshot and events gave (while another thread's snapshot is
   * still on its way, the turn is not known: the thread alone is named).
   */
  async stop() {
    const s = this.store.state;
    const threadId = s.threadId;
    if (!threadId) return;
    const turnId = s.thread?.id === threadId ? s.turn?.id : undefined;
    await this.attempt(() => this.client.request("turn.interrupt", turnId ? { threadId, turnId } : { threadId }, 65_000));
  }

  /**
   * Continue a paused turn, with more budget when given: `tokens`, or `usd` (a number is
   * tokens, as before).
   * @param {number | {tokens?: number, usd?: number}} [more]
   */
  async resume(more) {
    const s = this.store.state;
    const threadId = s.threadId;
    const runId = s.run?.id ?? s.turn?.runId;
    if (!threadId || !runId) return;
    const extra = typeof more === "number" ? { tokens: more } : more ?? {};
    /** @type {import("../generated/protocol").RunResumeParams} */
    const params = { commandId: newCommandId(), threadId, runId };
    if (extra.tokens) params.tokenBudget = extra.tokens;
    if (extra.usd) params.costBudgetUsd = extra.usd;
    const done = await this.attempt(() => this.client.request("run.resume", params));
    if (done && s.run) {
      s.run = { ...s.run, state: "streaming" };
      if (s.turn) s.turn = { ...s.turn, status: "running" };
      this.store.emit("run");
    }
  }

  /** @param {string} requestId @param {"allow" | "deny"} decision @param {"once" | "thread" | "origin"} scope */
  async approve(requestId, decision, scope) {
    await this.attempt(() => this.client.request("approval.response", { commandId: newCommandId(), requestId, decision, scope }));
  }

  /**
   * Allow an upload call once with the files the user picked on its card: the files go to
   * the worker first (keyed by the call), then the approval to the host.
   * @param {string} requestId @param {string} callId @param {File[]} files
   */
  async allowUpload(requestId, callId, files) {
    const total = files.reduce((sum, file) => sum + file.size, 0);
    if (total > UPLOAD_MAX_BYTES) {
      this.store.notify("error", `The files are larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MB together; pick smaller ones.`);
      return;
    }
    const staged = await this.attempt(async () => {
      const picked = await Promise.all(files.map(async (file) => ({ name: file.name, type: file.type, size: file.size, data: await base64Of(file) })));
      return this.client.stageFiles(callId, picked);
    });
    if (staged) await this.approve(requestId, "allow", "once");
  }

  /** @param {string} interactionId @param {Record<string, unknown>} values @param {"accept" | "decline"} action */
  async answer(interactionId, values, action) {
    await this.attempt(() => this.client.request("interaction.response", { commandId: newCommandId(), interactionId, values, action }));
  }

  /** @param {string} toolCallId @param {"succeeded" | "failed" | "retry"} outcome */
  async resolveUncertain(toolCallId, outcome) {
    await this.attempt(() => this.client.request("recovery.resolve", { commandId: newCommandId(), toolCallId, outcome }));
  }

  // ---- settings ----

  /** @param {"chat" | "settings" | "setup" | "workflows"} view */
  showView(view) {
    this.store.state.view = view;
    this.store.emit("view");
  }

  /**
   * The host's `initialize` answer (the worker's session: engine, protocol version, browser
   * tools), or null while there is none.
   * @returns {Promise<import("../generated/protocol").InitializeResult | null>}
   */
  async hostInfo() {
    const params = { ...versionParams(), client: { name: "panelot-panel", version: "0" } };
    return await this.client.request("initialize", params, 10_000).catch(() => null);
  }

  /** The browser tools the host offers models (its `initialize` answer), or null. */
  async browserTools() {
    const tools = (await this.hostInfo())?.capabilities?.browserTools;
    return Array.isArray(tools) ? /** @type {string[]} */ (tools) : null;
  }

  async getSettings() {
    return (await this.attempt(() => this.client.request("settings.get", {})))?.settings;
  }

  /** @param {Record<string, unknown>} update @param {boolean} [explained] sent by the setup card */
  async updateSettings(update, explained = false) {
    const params = /** @type {import("../generated/protocol").SettingsUpdateParams} */ ({ commandId: this.commandFor(explained), ...update });
    const saved = (await this.attempt(() => this.client.request("settings.update", params, 65_000)))?.settings;
    if (saved) void this.checkProvider();
    return saved;
  }

  /**
   * Store the provider key in the host (never in the page or chrome.storage); point the
   * settings at its reference when none was set. Returns its fingerprint.
   * The key is bound to `origin` when given (an OpenAI-compatible server's), else to the
   * configured provider's (the host decides).
   * @param {string} ref @param {string} secret @param {boolean} pointSettings @param {string | null} [origin]
   * @param {boolean} [explained] sent by the setup card
   */
  async setKey(ref, secret, pointSettings, origin, explained = false) {
    const commandId = this.commandFor(explained);
    const params = origin ? { commandId, ref, secret, origin } : { commandId, ref, secret };
    const result = await this.attempt(() => this.client.request("credentials.set", params));
    if (!result) return null;
    if (pointSettings) await this.updateSettings({ apiKeyRef: ref });
    return result.fingerprint;
  }

  async listGrants() {
    return (await this.attempt(() => this.client.request("permissions.list", {})))?.grants;
  }

  /** @param {string} grantId */
  async revokeGrant(grantId) {
    return (await this.attempt(() => this.client.request("permissions.revoke", { commandId: newCommandId(), grantId })))?.grants;
  }

  reconnect() {
    this.client.notify("$/reconnect", {});
  }

  // ---- events ----

  /** @param {string} method @param {any} params */
  onNotification(method, params) {
    if (method === "$/host.status") return this.onStatus(params);
    if (method === "thread.updated") this.onThreadUpdated(params.thread); // and it counts in seq
    if (method === "authority.widened") {
      if (this.explainedCommands.delete(String(params?.commandId))) return;
      for (const change of params?.changes ?? []) this.store.notify("authority", String(change.summary ?? change.kind));
      return;
    }
    if (method === "$/error") return this.store.notify("error", `The host could not read a message: ${params?.message ?? "unknown problem"}`);
    // the shown thread's events, in seq order; a gap means some were missed: re-open
    if (!this.store.apply(method, params)) this.attempt(() => this.reopen());
  }

  /** @param {import("./store.js").Thread} thread */
  onThreadUpdated(thread) {
    const s = this.store.state;
    const at = s.threads.findIndex((t) => t.id === thread.id);
    // only a newer updatedAt moves a thread to the top (a status change alone does not)
    const moved = at < 0 || s.threads[at].updatedAt !== thread.updatedAt;
    if (at >= 0) s.threads.splice(at, 1);
    if (!s.query && moved) s.threads.unshift(thread);
    else if (at >= 0) s.threads.splice(at, 0, thread);
    if (thread.id === s.threadId) s.thread = thread;
    s.statuses.set(thread.id, thread.status ?? "idle");
    this.store.emit("thread");
  }

  /** @param {HostStatus} status */
  onStatus(status) {
    const s = this.store.state;
    const previous = s.host;
    if (status.state === "disconnected" && status.cause) this.causesShown.push(status.cause.message);
    if (previous.state === "connected" && status.state !== "connected") s.hostWasConnected = true;
    s.host = status;
    this.store.emit("host");
    if (status.state === "connected") {
      // a new native Port since the last one this panel saw connected: a new host process
      const reconnected = this.connectedOn !== 0 && status.connection !== this.connectedOn;
      this.connectedOn = status.connection;
      if (reconnected) this.attempt(() => this.reopen());
      void this.checkProvider();
    }
  }
}

/** A file's bytes as base64 (FileReader's data URL, without its prefix). @param {File} file @returns {Promise<string>} */
function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}
