// The panel's side of its Port to the worker: requests with timeouts, notifications, and
// reconnection when the worker is stopped (connecting again wakes it).

import { HOST_UNAVAILABLE, TIMEOUT } from "../host-link.js";
import { STAGE_FILES } from "../tools/uploads.js";

/** @typedef {import("../types").RpcMessage} RpcMessage */
/** @typedef {import("../types").RpcErrorObject} RpcErrorObject */

export const REQUEST_TIMEOUT_MS = 35_000; // the worker answers by itself after 30 s
const RECONNECT_DELAY_MS = 100;

export class PanelRpcError extends Error {
  /** @param {RpcErrorObject} error */
  constructor(error) {
    super(error.message);
    this.rpc = error;
  }
}

export class PanelClient {
  /**
   * @param {(method: string, params: any) => void} onNotification
   * @param {() => void} onReconnected  the Port was re-opened after the worker stopped
   */
  constructor(onNotification, onReconnected) {
    this.onNotification = onNotification;
    this.onReconnected = onReconnected;
    this.nextId = 1;
    /** @type {Map<number, {resolve: (r: any) => void, reject: (e: Error) => void, timer: ReturnType<typeof setTimeout>}>} */
    this.pending = new Map();
    /** @type {chrome.runtime.Port | null} */
    this.port = null;
    this.connects = 0;
    /** Thread-scoped notifications received, by thread id (tests check the worker's routing). @type {Map<string, number>} */
    this.receivedByThread = new Map();
  }

  connect() {
    const port = chrome.runtime.connect({ name: "panel" });
    this.port = port;
    this.connects += 1;
    port.onMessage.addListener((message) => this.receive(message));
    port.onDisconnect.addListener(() => {
      if (this.port !== port) return;
      this.port = null;
      const error = new PanelRpcError({ code: HOST_UNAVAILABLE, message: "The extension's worker restarted; try again.", data: { kind: "host_unavailable" } });
      for (const [id, pending] of this.pending) {
        clearTimeout(pending.timer);
        this.pending.delete(id);
        pending.reject(error);
      }
      setTimeout(() => {
        this.connect();
        this.onReconnected();
      }, RECONNECT_DELAY_MS);
    });
  }

  /**
   * @template {keyof import("../generated/protocol").Ops} M
   * @param {M} method @param {import("../generated/protocol").Ops[M]["params"]} params
   * @returns {Promise<import("../generated/protocol").Ops[M] extends {result: infer R} ? R : never>}
   */
  request(method, params, timeoutMs = REQUEST_TIMEOUT_MS) {
    return this.send(method, params, timeoutMs);
  }

  /**
   * Hand the files the user picked for the upload call `callId` to the worker (they never
   * go to the host; the worker gives them to that call only).
   * @param {string} callId @param {{name: string, type: string, size: number, data: string}[]} files
   * @returns {Promise<{staged: number}>}
   */
  stageFiles(callId, files) {
    return this.send(STAGE_FILES, { callId, files }, REQUEST_TIMEOUT_MS);
  }

  /** @param {string} method @param {unknown} params @param {number} timeoutMs @returns {Promise<any>} */
  send(method, params, timeoutMs) {
    if (!this.port) this.connect();
    const port = /** @type {chrome.runtime.Port} */ (this.port);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new PanelRpcError({ code: TIMEOUT, message: `No answer to ${method} within ${timeoutMs / 1000} s.`, data: { kind: "timeout" } }));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      port.postMessage({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** @param {string} method @param {unknown} params */
  notify(method, params) {
    this.port?.postMessage({ jsonrpc: "2.0", method, params });
  }

  /** @param {RpcMessage} message */
  receive(message) {
    if (typeof message.method === "string") {
      const threadId = message.params?.threadId;
      if (typeof threadId === "string" && message.method !== "thread.updated") {
        this.receivedByThread.set(threadId, (this.receivedByThread.get(threadId) ?? 0) + 1);
      }
      this.onNotification(message.method, message.params);
      return;
    }
    const pending = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
    if (!pending) return;
    this.pending.delete(/** @type {number} */ (message.id));
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new PanelRpcError(message.error));
    else pending.resolve(message.result);
  }
}
