// Test doubles: chrome.runtime Ports (what a port posts, events fired by hand) and an empty
// thread.open snapshot.

export class FakeEvent {
  constructor() {
    /** @type {Function[]} */
    this.listeners = [];
  }
  addListener(fn) {
    this.listeners.push(fn);
  }
  removeListener(fn) {
    this.listeners = this.listeners.filter((l) => l !== fn);
  }
  fire(...args) {
    for (const fn of [...this.listeners]) fn(...args);
  }
}

export class FakePort {
  constructor(name = "panel") {
    this.name = name;
    this.posted = [];
    this.onMessage = new FakeEvent();
    this.onDisconnect = new FakeEvent();
    this.disconnected = false;
  }
  postMessage(message) {
    if (this.disconnected) throw new Error("Attempting to use a disconnected port object");
    this.posted.push(structuredClone(message));
  }
  disconnect() {
    this.disconnected = true;
  }
}

/** A global `chrome` with what the worker's modules touch outside the tools. */
export function installChrome() {
  globalThis.chrome = { runtime: { id: "fgopaapjpackdnagfgbbdlkanlmcoohh", lastError: undefined } };
}

export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * A `thread.open` snapshot of thread `id` with nothing in it yet (fields of `more` added).
 * @param {string} id @param {string} title @param {Record<string, unknown>} [more]
 */
export function emptySnapshot(id, title, more = {}) {
  return {
    thread: { id, title },
    lastSeq: 0,
    items: [],
    turn: null,
    run: null,
    pendingApprovals: [],
    pendingInteractions: [],
    queue: [],
    pendingSteering: [],
    ...more,
  };
}

/**
 * A HostLink over a fake native Port whose initialize sends `params`: the link, the Port
 * (what the link posted; fire the host's answers on it) and every status it reported.
 * @param {typeof import("../src/host-link.js").HostLink} HostLink @param {any} params
 */
export function linkWithFakeHost(HostLink, params) {
  const native = new FakePort("native");
  /** @type {any[]} */
  const statuses = [];
  const link = new HostLink({
    initializeParams: async () => params,
    onRequest: () => {},
    onNotification: () => {},
    onStatus: (status) => statuses.push(status),
    connectNative: () => native,
  });
  return { link, native, statuses };
}
