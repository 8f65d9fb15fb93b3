// One line per tab: two tool calls on the same tab run one after the other, in the order
// they came (a snapshot taken while a click runs would hand out refs the click's page no
// longer has; two actions would arm and disarm each other's dialog guard), while calls on
// different tabs run side by side (each thread of a parallel turn acts on its own tabs).

/** @typedef {{start: () => void}} Place */

export class TabQueue {
  constructor() {
    /** @type {Map<number, Place[]>} each tab's line: the first runs, the others wait */
    this.lines = new Map();
  }

  /**
   * Run `work` when every call on `tabId` that came before has finished. A call aborted
   * while it waits leaves the line without running (it rejects with the signal's reason).
   * @template T
   * @param {number} tabId @param {AbortSignal} signal @param {() => Promise<T>} work
   * @returns {Promise<T>}
   */
  async run(tabId, signal, work) {
    signal.throwIfAborted();
    const place = await this.enter(tabId, signal);
    try {
      signal.throwIfAborted();
      return await work();
    } finally {
      this.leave(tabId, place);
    }
  }

  /** How many calls on `tabId` wait behind the one that runs. @param {number} tabId */
  waiting(tabId) {
    return Math.max(0, (this.lines.get(tabId)?.length ?? 0) - 1);
  }

  /** @param {number} tabId @param {AbortSignal} signal @returns {Promise<Place>} */
  enter(tabId, signal) {
    const line = this.lines.get(tabId);
    /** @type {Place} */
    const place = { start: () => {} };
    if (!line) {
      this.lines.set(tabId, [place]);
      return Promise.resolve(place);
    }
    line.push(place);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.leave(tabId, place);
        reject(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
      };
      place.start = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(place);
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** `place` is done (or gave up waiting): the next in line starts. @param {number} tabId @param {Place} place */
  leave(tabId, place) {
    const line = this.lines.get(tabId);
    const at = line ? line.indexOf(place) : -1;
    if (!line || at < 0) return;
    line.splice(at, 1);
    if (!line.length) this.lines.delete(tabId);
    else if (at === 0) line[0].start();
  }
}
