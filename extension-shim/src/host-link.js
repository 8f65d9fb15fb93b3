// The worker's one native Port to the host: initialize, requests matched by id (answers
// may come in any order), `$/chunk` reassembly, disconnect causes and capped-backoff
// reconnection. Everything the host asks (browser tools) goes to `onRequest`; every
// notification to `onNotification`.

import { ChunkAssembler, ChunkError } from "./chunks.js";
import { causeOfDisconnect, causeOfInitializeFailure } from "./causes.js";
import { retryVersion, spokenBy } from "./versions.js";

/** @typedef {import("./types").RpcMessage} RpcMessage */
/** @typedef {import("./types").RpcErrorObject} RpcErrorObject */
/** @typedef {import("./types").DisconnectCause} DisconnectCause */
/** @typedef {import("./types").HostStatus} HostStatus */
/** @typedef {import("./generated/protocol").InitializeParams} InitializeParams */
/** @typedef {import("./generated/protocol").InitializeResult} InitializeResult */

export const HOST_NAME = "com.panelot.host";
export const INITIALIZE_TIMEOUT_MS = 20_000; // the host may wait ~4 s for a closing one's lease
export const BACKOFF_MS = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];
/** JSON-RPC errors the worker itself answers with (docs/protocol.md, section 11). */
export const HOST_UNAVAILABLE = -32090;
export const TIMEOUT = -32091;

/** An error answer: a JSON-RPC error object the host (or the worker) gave. */
export class RpcError extends Error {
  /** @param {RpcErrorObject} error */
  constructor(error) {
    super(error.message);
    this.rpc = error;
  }
}

/**
 * @typedef {object} HostLinkOptions
 * @property {() => Promise<InitializeParams>} initializeParams
 * @property {(message: RpcMessage) => void} onRequest  a host -> shim request (has an id)
 * @property {(method: string, params: any) => void} onNotification
 * @property {(status: HostStatus) => void} onStatus
 * @property {(chromeMessage: string | undefined) => DisconnectCause} [explain]
 * @property {(name: string) => chrome.runtime.Port} [connectNative]
 */

export class HostLink {
  /** @param {HostLinkOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {chrome.runtime.Port | null} */
    this.port = null;
    /** @type {HostStatus} */
    this.status = { state: "disconnected", connection: 0 };
    /** @type {InitializeResult | null} */
    this.initialized = null;
    /** @type {Map<number, {resolve: (r: any) => void, reject: (e: Error) => void, timer: ReturnType<typeof setTimeout>, method: string}>} */
    this.pending = new Map();
    this.nextId = 1;
    this.failures = 0;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.retryTimer = null;
    /** @type {Promise<InitializeResult> | null} */
    this.ready = null;
    this.chunks = new ChunkAssembler();
    /** Messages that arrived as `$/chunk` parts and were reassembled. */
    this.reassembled = 0;
  }

  /**
   * The initialized session, connecting first when there is none (a stopped worker
   * reconnects on the next panel action). Rejects with the cause while the host is down.
   * @returns {Promise<InitializeResult>}
   */
  connect() {
    if (this.ready) return this.ready;
    if (this.status.state === "disconnected" && this.retryTimer !== null) {
      return Promise.reject(this.unavailable());
    }
    this.ready = this.open();
    this.ready.catch(() => {}); // the status reports it; callers see it through their own await
    return this.ready;
  }

  /** Reconnect now (a user pressed Retry), without waiting for the backoff. */
  retryNow() {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    return this.connect();
  }

  /** @returns {Promise<InitializeResult>} */
  async open() {
    const connection = this.status.connection + 1;
    this.setStatus({ state: "connecting", connection });
    let params;
    try {
      params = await this.options.initializeParams();
    } catch (error) {
      // e.g. chrome.storage failed: nothing is connected yet; report it and retry later
      this.ready = null;
      const message = error instanceof Error ? error.message : String(error);
      const cause = {
        code: "unknown",
        headline: "Panelot could not start",
        message: "Panelot could not prepare its session in this browser profile.",
        fix: "Reload the extension in chrome://extensions; if it persists, reinstall it.",
        commands: [],
        details: `Reading its profile id failed: ${message}`,
      };
      this.setStatus({ state: "disconnected", connection, cause });
      throw this.unavailable();
    }
    const connectNative = this.options.connectNative ?? ((name) => chrome.runtime.connectNative(name));
    const port = connectNative(HOST_NAME);
    this.port = port;
    port.onMessage.addListener((message) => this.receive(port, message));
    port.onDisconnect.addListener(() => this.closed(port, chrome.runtime.lastError?.message));
    try {
      const result = await this.initialize(params);
      this.initialized = result;
      this.failures = 0;
      this.setStatus({ state: "connected", connection, engine: result.engine });
      return result;
    } catch (error) {
      if (this.port === port && error instanceof RpcError && error.rpc.code !== HOST_UNAVAILABLE) {
        this.drop(port, causeOfInitializeFailure(error.rpc, spokenBy(params), params.client.version));
        // what waited on the session fails as on any disconnect: the banner says why, once
        throw this.unavailable();
      }
      throw error;
    }
  }

  /**
   * `initialize`, once more with the version a host from before negotiation speaks when
   * it refused the range (docs/protocol.md, "initialize").
   * @param {InitializeParams} params @returns {Promise<InitializeResult>}
   */
  async initialize(params) {
    try {
      return await this.request("initialize", params, INITIALIZE_TIMEOUT_MS);
    } catch (error) {
      const version = error instanceof RpcError ? retryVersion(error.rpc, spokenBy(params)) : null;
      if (version === null) throw error;
      const { minProtocolVersion: _, ...rest } = params;
      return await this.request("initialize", { ...rest, protocolVersion: version }, INITIALIZE_TIMEOUT_MS);
    }
  }

  /**
   * Send a request to the host and wait for its answer, at most `timeoutMs` (Chrome drops a
   * host's invalid frame silently, so an answer may never come).
   * @param {string} method @param {unknown} params @param {number} timeoutMs
   * @returns {Promise<any>} the result; rejects with RpcError
   */
  request(method, params, timeoutMs) {
    return this.send(method, params, timeoutMs).done;
  }

  /**
   * As `request`, also returning the id the request got in the host's id space (a panel's
   * `$/cancelRequest` names its own id; the relay translates it with this one).
   * @param {string} method @param {unknown} params @param {number} timeoutMs
   * @returns {{id: number | null, done: Promise<any>}}
   */
  send(method, params, timeoutMs) {
    const port = this.port;
    if (!port) return { id: null, done: Promise.reject(this.unavailable()) };
    const id = this.nextId++;
    const done = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcError({
          code: TIMEOUT,
          message: `The Panelot host did not answer ${method} within ${Math.round(timeoutMs / 1000)} s.`,
          data: { kind: "timeout", method },
        }));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, method });
      this.post(port, { jsonrpc: "2.0", id, method, params });
    });
    return { id, done };
  }

  /** @param {string} method @param {unknown} params */
  notify(method, params) {
    if (this.port) this.post(this.port, { jsonrpc: "2.0", method, params });
  }

  /** Answer a host -> shim request. @param {number | string} id @param {{result?: unknown, error?: RpcErrorObject}} answer */
  answer(id, answer) {
    if (this.port) this.post(this.port, { jsonrpc: "2.0", id, ...answer });
  }

  /** @param {chrome.runtime.Port} port @param {RpcMessage} message */
  post(port, message) {
    try {
      port.postMessage(message);
    } catch (error) {
      // The Port closed under us; onDisconnect reports why.
      console.warn("panelot: cannot write to the host:", error);
    }
  }

  /** @param {chrome.runtime.Port} port @param {any} message */
  receive(port, message) {
    if (port !== this.port || message === null || typeof message !== "object") return;
    if (message.method === "$/chunk") {
      let whole;
      try {
        whole = this.chunks.accept(message.params ?? {});
      } catch (error) {
        if (error instanceof ChunkError) console.warn("panelot:", error.message);
        return;
      }
      if (whole !== null) {
        this.reassembled += 1;
        this.receive(port, JSON.parse(whole));
      }
      return;
    }
    if (typeof message.method === "string") {
      if (message.id !== undefined && message.id !== null) this.options.onRequest(message);
      else this.options.onNotification(message.method, message.params);
      return;
    }
    this.settle(message);
  }

  /** @param {RpcMessage} message */
  settle(message) {
    const pending = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
    if (!pending) {
      if (message.error) console.warn("panelot: host error without a request:", message.error);
      return;
    }
    this.pending.delete(/** @type {number} */ (message.id));
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new RpcError(message.error));
    else pending.resolve(message.result);
  }

  /** @param {chrome.runtime.Port} port @param {string | undefined} chromeMessage */
  closed(port, chromeMessage) {
    if (port !== this.port) return;
    const explain = this.options.explain ?? ((m) => causeOfDisconnect(m, chrome.runtime.id));
    this.drop(port, explain(chromeMessage));
  }

  /**
   * Forget the Port: fail what waits on it, report the cause, schedule a reconnect.
   * @param {chrome.runtime.Port} port @param {DisconnectCause} cause
   */
  drop(port, cause) {
    if (port !== this.port) return;
    this.port = null;
    this.ready = null;
    this.initialized = null;
    this.chunks.clear();
    try {
      port.disconnect();
    } catch {
      // already closed
    }
    const retryInMs = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)];
    this.failures += 1;
    this.setStatus({ state: "disconnected", connection: this.status.connection, cause, retryInMs });
    const error = this.unavailable();
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(error);
    }
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, retryInMs);
  }

  unavailable() {
    const cause = this.status.cause;
    return new RpcError({
      code: HOST_UNAVAILABLE,
      message: cause ? `${cause.headline}. ${cause.message} ${cause.fix}${cause.commands.length ? ` (${cause.commands.join("; ")})` : ""}` : "The Panelot host is not connected.",
      data: { kind: "host_unavailable", cause: cause?.code },
    });
  }

  /** @param {HostStatus} status */
  setStatus(status) {
    this.status = status;
    this.options.onStatus(status);
  }

  /** Counters for tests and the memory benchmark. */
  stats() {
    return {
      pending: this.pending.size,
      openChunks: this.chunks.open.size,
      reassembled: this.reassembled,
      connection: this.status.connection,
    };
  }
}
