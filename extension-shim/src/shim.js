// The shim role: the host's `browser.resolveTarget` / `browser.invoke` / `browser.threadTabs`
// requests, run by the tool table, each with a time bound and cancelled by the host's `$/cancelRequest`.

import { ERROR_CODES } from "./generated/error-codes.js";
import { ToolRequestError } from "./tools/errors.js";

/** @typedef {import("./types").RpcMessage} RpcMessage */
/** @typedef {import("./types").RpcErrorObject} RpcErrorObject */
/** @typedef {import("./tools/table.js").ToolTable} ToolTable */

export const RESOLVE_BOUND_MS = 10_000; // the host waits 15 s
export const INVOKE_BOUND_MS = 240_000; // the host waits 300 s, then the outcome is unknown

/** @typedef {(id: number | string, answer: {result?: unknown, error?: RpcErrorObject}) => void} Answer */

export class Shim {
  /** @param {ToolTable} table @param {Answer} answer */
  constructor(table, answer) {
    this.table = table;
    this.answer = answer;
    /** @type {Map<number | string, AbortController>} */
    this.running = new Map();
  }

  /** A host -> shim request. @param {RpcMessage} message */
  async handle(message) {
    const id = /** @type {number | string} */ (message.id);
    const method = message.method;
    if (method !== "browser.resolveTarget" && method !== "browser.invoke" && method !== "browser.threadTabs") {
      this.answer(id, { error: { code: ERROR_CODES.method_not_found, message: `the extension does not serve ${method}`, data: { kind: "method_not_found" } } });
      return;
    }
    const controller = new AbortController();
    this.running.set(id, controller);
    const bound = method === "browser.invoke" ? INVOKE_BOUND_MS : RESOLVE_BOUND_MS;
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${bound / 1000} s`)), bound);
    try {
      const result = method === "browser.invoke"
        ? await this.table.invoke(message.params, controller.signal)
        : method === "browser.threadTabs"
          ? await this.table.threadTabs(message.params)
          : await this.table.resolveTarget(message.params);
      if (!controller.signal.aborted) this.answer(id, { result });
      else if (this.running.has(id)) this.answer(id, { error: this.abortError(controller.signal) });
    } catch (error) {
      if (this.running.has(id)) this.answer(id, { error: this.errorOf(error, controller.signal) });
    } finally {
      clearTimeout(timer);
      this.running.delete(id);
    }
  }

  /** `$/cancelRequest {id}` from the host: abort, and answer `cancelled` at once. @param {number | string} id */
  cancel(id) {
    const controller = this.running.get(id);
    if (!controller) return; // finished first: its result was sent
    this.running.delete(id);
    controller.abort(new Error("cancelled"));
    this.answer(id, { error: { code: ERROR_CODES.cancelled, message: "cancelled by the host", data: { kind: "cancelled" } } });
  }

  /** The host went away: stop every running tool (nobody can receive its result). */
  abortAll() {
    for (const controller of this.running.values()) controller.abort(new Error("the host disconnected"));
    this.running.clear();
  }

  /** @param {AbortSignal} signal @returns {RpcErrorObject} */
  abortError(signal) {
    const reason = signal.reason instanceof Error ? signal.reason.message : "aborted";
    return { code: ERROR_CODES.tool, message: `the browser tool stopped: ${reason}`, data: { kind: "tool" } };
  }

  /** @param {unknown} error @param {AbortSignal} signal @returns {RpcErrorObject} */
  errorOf(error, signal) {
    if (signal.aborted) return this.abortError(signal);
    if (error instanceof ToolRequestError) return { code: error.code, message: error.message, data: { kind: error.kind } };
    const message = error instanceof Error ? error.message : String(error);
    return { code: ERROR_CODES.tool, message: `the browser tool failed: ${message}`, data: { kind: "tool" } };
  }

  stats() {
    return { running: this.running.size };
  }
}
