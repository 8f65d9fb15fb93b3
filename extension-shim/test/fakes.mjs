// Test doubles for chrome.runtime Ports: what a port posts, and events fired by hand.

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
