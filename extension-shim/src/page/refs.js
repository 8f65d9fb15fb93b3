// Element refs of one page (one document's isolated world): an element keeps its ref
// across snapshots (so a diff of two snapshots is readable), but only the refs of the
// latest snapshot are valid. A ref from an older snapshot, of an element that left the
// page, or that was never issued gives an error telling the model to take a new snapshot.

export class StaleRef extends Error {}

export class RefRegistry {
  constructor() {
    /** @type {WeakMap<Element, string>} */
    this.idOf = new WeakMap();
    /** @type {Map<string, WeakRef<Element>>} the latest snapshot's refs */
    this.valid = new Map();
    this.next = 1;
    this.snapshots = 0;
  }

  /** A new snapshot starts: the refs of the previous one stop being valid. */
  beginSnapshot() {
    this.valid = new Map();
    this.snapshots += 1;
  }

  /** @param {Element} element @returns {string} */
  issue(element) {
    let ref = this.idOf.get(element);
    if (ref === undefined) {
      ref = `e${this.next++}`;
      this.idOf.set(element, ref);
    }
    this.valid.set(ref, new WeakRef(element));
    return ref;
  }

  /** @param {string} ref @returns {Element} */
  resolve(ref) {
    const again = "take a new snapshot with browser_snapshot and use a ref from it";
    if (this.snapshots === 0) throw new StaleRef(`there is no snapshot of this page (it loaded since); ${again}`);
    const element = this.valid.get(ref)?.deref();
    if (!this.valid.has(ref)) {
      throw new StaleRef(`ref ${JSON.stringify(ref)} is not in the latest snapshot of this page (refs last until the next snapshot); ${again}`);
    }
    if (!element || !element.isConnected) {
      throw new StaleRef(`the element ${ref} is no longer on the page (it changed since the snapshot); ${again}`);
    }
    return element;
  }
}
