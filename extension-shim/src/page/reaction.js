// Did the page react to an action? A plain (scripted) click or key press is untrusted, and
// a page may ignore it; the tool then says so, so the model can try trusted input instead
// of believing it worked (issue 24). What counts: a change to the document (any mutation,
// in open shadow roots and same-origin frames too), to the focus after the action, to a
// field's value or checked state, or to the address. What it cannot see: drawing on a
// canvas, a request sent, a change of a property that is no attribute.

import { isIFrame, isInput, isSelect, isTextArea } from "./dom.js";
import { deepActive } from "./actions.js";

const MAX_FIELDS = 2_000;
const OBSERVED = { subtree: true, childList: true, attributes: true, characterData: true };

/**
 * @typedef {object} Watching
 * @property {MutationObserver} observer
 * @property {number} mutations
 * @property {Element | null} focus  after the action: the click's own focusing is no reaction
 * @property {string} fields
 * @property {string} url
 */

export class ReactionWatch {
  /** @type {Watching | null} */
  #current = null;

  /** Start watching, right before the action. */
  start() {
    this.stop();
    /** @type {Watching} */
    const state = { observer: new MutationObserver((records) => void (state.mutations += records.length)), mutations: 0, focus: null, fields: fieldState(), url: location.href };
    for (const root of roots(document)) state.observer.observe(root, OBSERVED);
    this.#current = state;
  }

  /** Right after the action, in the same task: where the focus is now. */
  acted() {
    if (this.#current) this.#current.focus = deepActive();
  }

  /**
   * What changed since `start` (empty: nothing seen); null when nothing is watched. Stops
   * watching when something changed or when `last`.
   * @param {boolean} last @returns {string[] | null}
   */
  changes(last) {
    const state = this.#current;
    if (!state) return null;
    state.mutations += state.observer.takeRecords().length;
    /** @type {string[]} */
    const changed = [];
    if (state.mutations) changed.push("the document");
    if (deepActive() !== state.focus) changed.push("the focus");
    if (fieldState() !== state.fields) changed.push("a field");
    if (location.href !== state.url) changed.push("the address");
    if (changed.length || last) this.stop();
    return changed;
  }

  stop() {
    this.#current?.observer.disconnect();
    this.#current = null;
  }
}

/** The document, its open shadow roots and its same-origin frames' documents. @param {Document} doc @returns {Node[]} */
function roots(doc) {
  /** @type {Node[]} */
  const found = [doc];
  for (const el of doc.querySelectorAll("*")) {
    if (el.shadowRoot) found.push(...shadowRoots(el.shadowRoot));
    if (isIFrame(el)) {
      try {
        if (el.contentDocument) found.push(...roots(el.contentDocument));
      } catch {
        // another origin
      }
    }
  }
  return found;
}

/** @param {ShadowRoot} root @returns {Node[]} */
function shadowRoots(root) {
  /** @type {Node[]} */
  const found = [root];
  for (const el of root.querySelectorAll("*")) if (el.shadowRoot) found.push(...shadowRoots(el.shadowRoot));
  return found;
}

/** The values and checked states of the document's fields, as one string. */
function fieldState() {
  const parts = [];
  let count = 0;
  for (const el of document.querySelectorAll("input, textarea, select")) {
    if (++count > MAX_FIELDS) break;
    if (isInput(el)) parts.push(`${el.value}\u0000${el.checked}`);
    else if (isTextArea(el) || isSelect(el)) parts.push(el.value);
  }
  return parts.join("\u0001");
}
