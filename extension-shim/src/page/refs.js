// Element refs of one page (one document's isolated world): an element keeps its ref
// across snapshots (so a diff of two snapshots is readable), but only the refs of the
// latest snapshot are valid. A ref from an older snapshot, or that was never issued, gives
// an error telling the model to take a new snapshot. A ref whose element left the page is
// moved to its successor when the page re-rendered it: exactly as many elements of the same
// tag, role and name as in the snapshot, this one at the same place among them (issue 24);
// otherwise it is stale too.

export class StaleRef extends Error {}

/**
 * What identifies a ref's element in its snapshot, to find it again after a re-render.
 * @typedef {object} Identity
 * @property {string} tag
 * @property {string} key  role and name, as the outline line shows them
 * @property {number} index  its place among the kept elements with this tag and key
 * @property {number} count  how many of them the snapshot kept
 */

/** @typedef {(identity: Identity) => Element | null} FindSuccessor */

export class RefRegistry {
  /** @param {FindSuccessor} [findSuccessor] */
  constructor(findSuccessor) {
    this.findSuccessor = findSuccessor;
    /** @type {Map<string, Identity>} the latest snapshot's identities */
    this.identities = new Map();
    /** @type {WeakMap<Element, string>} */
    this.idOf = new WeakMap();
    /** @type {Map<string, WeakRef<Element>>} the latest snapshot's refs */
    this.valid = new Map();
    this.next = 1;
    this.snapshots = 0;
    this.prefix = "";
  }

  /**
   * A new snapshot starts: the refs of the previous one stop being valid. `prefix` names
   * this document among the frames of its tab's outline (`f2` makes `f2e5`; the top
   * document's refs have none).
   * @param {string} [prefix]
   */
  beginSnapshot(prefix = "") {
    this.valid = new Map();
    this.identities = new Map();
    this.snapshots += 1;
    this.prefix = prefix;
  }

  /** @param {string} ref @param {Identity} identity */
  remember(ref, identity) {
    this.identities.set(ref, identity);
  }

  /** @param {Element} element @returns {string} */
  issue(element) {
    let id = this.idOf.get(element);
    if (id === undefined) {
      id = `e${this.next++}`;
      this.idOf.set(element, id);
    }
    const ref = `${this.prefix}${id}`;
    this.valid.set(ref, new WeakRef(element));
    return ref;
  }

  /** The ref `element` has in the latest snapshot, if it was issued one. @param {Element} element */
  refOf(element) {
    const id = this.idOf.get(element);
    return id === undefined ? undefined : `${this.prefix}${id}`;
  }

  /** @param {string} ref @returns {Element} */
  resolve(ref) {
    return this.resolveNoting(ref).element;
  }

  /**
   * The element of `ref`, and a note when it is the successor of a re-rendered one.
   * @param {string} ref @returns {{element: Element, note: string}}
   */
  resolveNoting(ref) {
    const again = "take a new snapshot with browser_snapshot and use a ref from it";
    if (this.snapshots === 0) throw new StaleRef(`there is no snapshot of this page (it loaded since); ${again}`);
    const element = this.valid.get(ref)?.deref();
    if (!this.valid.has(ref)) {
      throw new StaleRef(`ref ${JSON.stringify(ref)} is not in the latest snapshot of this page (refs last until the next snapshot); ${again}`);
    }
    if (!element || !element.isConnected) {
      const identity = this.identities.get(ref);
      const successor = identity && this.findSuccessor ? this.findSuccessor(identity) : null;
      if (!successor) throw new StaleRef(`the element ${ref} is no longer on the page (it changed since the snapshot); ${again}`);
      this.idOf.set(successor, ref.slice(this.prefix.length));
      this.valid.set(ref, new WeakRef(successor));
      return { element: successor, note: `the page re-rendered ${ref} since the snapshot; this is its successor (same ${identity?.key}, same place)` };
    }
    return { element, note: "" };
  }
}
