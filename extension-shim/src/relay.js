// Many panels, one host: each panel's Port speaks the protocol to the worker; the worker
// re-numbers panel requests into the host link's id space and back (two panels never
// collide), answers every request itself if the host does not in time, and routes each
// thread-scoped event only to the panels that opened that thread.

import { ERROR_CODES } from "./generated/error-codes.js";
import { HOST_UNAVAILABLE, RpcError } from "./host-link.js";

/** @typedef {import("./types").RpcMessage} RpcMessage */
/** @typedef {import("./types").HostStatus} HostStatus */
/** @typedef {import("./host-link.js").HostLink} HostLink */

export const PANEL_PORT = "panel";
export const STATUS = "$/host.status";
/** Panel -> worker notification: stop sending this thread's events to me. */
export const UNSUBSCRIBE = "$/unsubscribe";
/** Panel -> worker notification: reconnect to the host now (skip the backoff). */
export const RECONNECT = "$/reconnect";
const CANCEL = "$/cancelRequest";

const DEFAULT_TIMEOUT_MS = 30_000;
/** Ops that may take longer than a plain read: the host answers turn.interrupt after the Turn ended. */
const TIMEOUTS_MS = /** @type {Record<string, number>} */ ({
  "turn.interrupt": 60_000,
  "settings.update": 60_000, // restarts MCP servers
  "thread.delete": 60_000,
});
/** Events every panel gets, whatever thread it shows. */
const BROADCAST = new Set(["thread.updated", "$/error"]);

/** @typedef {{port: chrome.runtime.Port, threads: Set<string>, inflight: Map<number | string, number>}} Panel */

export class Relay {
  /** @param {HostLink} link */
  constructor(link) {
    this.link = link;
    /** @type {Set<Panel>} */
    this.panels = new Set();
    /** @type {Map<string, (params: any) => unknown>} requests the worker answers itself */
    this.local = new Map();
    /** @type {Array<(method: string, params: any, result: any) => void>} told of each op the host answered */
    this.watchers = [];
  }

  /** Be told of every op a panel sent that the host answered (not of failures). @param {(method: string, params: any, result: any) => void} watcher */
  watch(watcher) {
    this.watchers.push(watcher);
    return this;
  }

  /** Answer panel requests for `method` here, never sending them to the host. @param {string} method @param {(params: any) => unknown} handler */
  serve(method, handler) {
    this.local.set(method, handler);
    return this;
  }

  /** A panel connected (chrome.runtime.onConnect). @param {chrome.runtime.Port} port */
  attach(port) {
    /** @type {Panel} */
    const panel = { port, threads: new Set(), inflight: new Map() };
    this.panels.add(panel);
    port.onMessage.addListener((message) => this.fromPanel(panel, message));
    port.onDisconnect.addListener(() => {
      this.panels.delete(panel);
      // Answers still on their way are dropped when they arrive: nobody is listening.
      panel.inflight.clear();
    });
    this.post(panel, { jsonrpc: "2.0", method: STATUS, params: this.link.status });
    this.link.connect().catch(() => {}); // a panel action wakes the worker: connect now
  }

  /** @param {Panel} panel @param {any} message */
  fromPanel(panel, message) {
    if (message === null || typeof message !== "object" || typeof message.method !== "string") {
      const id = message && (typeof message.id === "number" || typeof message.id === "string") ? message.id : null;
      this.post(panel, { jsonrpc: "2.0", id, error: { code: ERROR_CODES.invalid_request, message: "Invalid request", data: { kind: "invalid_request" } } });
      return;
    }
    const { id, method, params } = message;
    if (id === undefined || id === null) {
      this.panelNotification(panel, method, params);
      return;
    }
    const local = this.local.get(method);
    if (local) {
      this.answerLocally(panel, id, local, params ?? {});
      return;
    }
    this.forward(panel, id, method, params ?? {});
  }

  /** @param {Panel} panel @param {string} method @param {any} params */
  panelNotification(panel, method, params) {
    if (method === CANCEL) {
      const hostId = panel.inflight.get(params?.id);
      if (hostId !== undefined) this.link.notify(CANCEL, { id: hostId });
    } else if (method === UNSUBSCRIBE && typeof params?.threadId === "string") {
      panel.threads.delete(params.threadId);
    } else if (method === RECONNECT) {
      this.link.retryNow().catch(() => {});
    }
  }

  /** @param {Panel} panel @param {number | string} id @param {(params: any) => unknown} handler @param {any} params */
  answerLocally(panel, id, handler, params) {
    try {
      this.post(panel, { jsonrpc: "2.0", id, result: handler(params) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.post(panel, { jsonrpc: "2.0", id, error: { code: ERROR_CODES.invalid_params, message, data: { kind: "invalid_params" } } });
    }
  }

  /** @param {Panel} panel @param {number | string} id @param {string} method @param {any} params */
  async forward(panel, id, method, params) {
    if (typeof params.threadId === "string") panel.threads.add(params.threadId);
    try {
      const session = await this.link.connect();
      if (method === "initialize") {
        // The worker is the host's one client and has initialized it; a panel gets that answer.
        this.post(panel, { jsonrpc: "2.0", id, result: session });
        return;
      }
      const sent = this.link.send(method, params, TIMEOUTS_MS[method] ?? DEFAULT_TIMEOUT_MS);
      if (sent.id !== null) panel.inflight.set(id, sent.id);
      const result = await sent.done.finally(() => panel.inflight.delete(id));
      this.post(panel, { jsonrpc: "2.0", id, result });
      for (const watcher of this.watchers) watcher(method, params, result);
    } catch (error) {
      const rpc = error instanceof RpcError
        ? error.rpc
        : { code: HOST_UNAVAILABLE, message: String(error), data: { kind: "host_unavailable" } };
      this.post(panel, { jsonrpc: "2.0", id, error: rpc });
    }
  }

  /** A host notification: to the panels that show its thread, or to all. @param {string} method @param {any} params */
  fromHost(method, params) {
    const message = { jsonrpc: /** @type {"2.0"} */ ("2.0"), method, params };
    const threadId = params && typeof params.threadId === "string" ? params.threadId : null;
    for (const panel of this.panels) {
      if (threadId === null || BROADCAST.has(method) || panel.threads.has(threadId)) this.post(panel, message);
    }
  }

  /** @param {HostStatus} status */
  broadcastStatus(status) {
    for (const panel of this.panels) this.post(panel, { jsonrpc: "2.0", method: STATUS, params: status });
  }

  /** @param {Panel} panel @param {RpcMessage} message */
  post(panel, message) {
    try {
      panel.port.postMessage(message);
    } catch {
      this.panels.delete(panel); // the panel went away; onDisconnect may not have run yet
    }
  }

  stats() {
    let inflight = 0;
    let threads = 0;
    for (const panel of this.panels) {
      inflight += panel.inflight.size;
      threads += panel.threads.size;
    }
    return { panels: this.panels.size, inflight, threads };
  }
}
