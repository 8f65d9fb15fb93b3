// Trusted (L2) input lands only where it was approved (issue 25). The page agent located
// the element and its centre; the debugger then sends real input to that point. A page
// could move something else -- a cross-origin iframe, say -- over the point in between.
// So right before each input event the point is hit-tested again, through the debugger
// (DOM.getNodeForLocation) and checked in a fresh isolated world the page cannot reach or
// patch: the node there must be the approved element or inside it (or a label of it).
// Before keys, the focus must still be on it. Nothing of this runs in the page's world.

import { ToolFailure } from "./errors.js";

/** @typedef {import("./debugger.js").Send} Send */

const WORLD = "panelot-hit-check";

// Runs on the hit node, in the fresh world. `path` leads from the top document to the
// approved element (page/actions.js pathOf); the answer is "ok" or what is in the way.
const IS_APPROVED = `function (path, checkFocus) {
  let el = window.top.document.documentElement;
  for (const step of path) {
    if (!el) break;
    el = step === "#shadow" ? el.shadowRoot : step === "#frame" ? el.contentDocument && el.contentDocument.documentElement : el.children[step];
  }
  if (!el) return "the approved element is gone";
  const describe = (node) => node && node.nodeType === 1 ? "<" + node.tagName.toLowerCase() + ">" : "nothing";
  const within = (node) => {
    for (let at = node; at; at = at.parentNode || at.host || null) if (at === el) return true;
    return false;
  };
  if (checkFocus) {
    let active = window.top.document.activeElement;
    while (active && (active.shadowRoot && active.shadowRoot.activeElement || active.contentDocument && active.contentDocument.activeElement)) {
      active = active.shadowRoot && active.shadowRoot.activeElement || active.contentDocument.activeElement;
    }
    return within(active) ? "ok" : "the focus moved to " + describe(active);
  }
  if (within(this)) return "ok";
  const owner = this.closest && this.closest("label");
  if (owner && (owner.control === el || owner.contains(el))) return "ok";
  return describe(this) + (this.tagName === "IFRAME" || this.tagName === "FRAME" ? " (a frame: another page)" : "") + " is at that point now";
}`;

/**
 * The isolated world of each frame, made once per guard: `world(frameId)` is its
 * execution context id.
 * @param {Send} send @returns {(frameId: string) => Promise<number>}
 */
function isolatedWorlds(send) {
  /** @type {Map<string, number>} */
  const worlds = new Map();
  return async (frameId) => {
    let id = worlds.get(frameId);
    if (id === undefined) {
      id = /** @type {number} */ ((await send("Page.createIsolatedWorld", { frameId, worldName: WORLD })).executionContextId);
      worlds.set(frameId, id);
    }
    return id;
  };
}

/**
 * The guard of one trusted action: `point(at)` before each mouse event, `focus()` before
 * keys; each throws when the input would go elsewhere than the approved element.
 * @param {Send} send @param {(number | string)[]} path @param {string} label
 */
export async function approvedTarget(send, path, label) {
  const { frameTree } = await send("Page.getFrameTree");
  const top = frameTree.frame.id;
  const world = isolatedWorlds(send);
  /** @param {string} why @returns {never} */
  const refuse = (why) => {
    throw new ToolFailure(`${why}, not ${label}: the input was not sent (the page changed under the approved point). Take a new snapshot`);
  };
  await send("DOM.getDocument", { depth: 0 });
  return {
    /** @param {{x: number, y: number}} at */
    async point(at) {
      // the hit test takes document coordinates; input events take the viewport's
      const { cssVisualViewport: view } = await send("Page.getLayoutMetrics");
      const x = Math.round(at.x + view.pageX);
      const y = Math.round(at.y + view.pageY);
      /** @type {{backendNodeId: number, frameId?: string}} */
      let hit;
      try {
        hit = await send("DOM.getNodeForLocation", { x, y, includeUserAgentShadowDOM: false, ignorePointerEventsNone: false });
      } catch {
        return refuse("nothing of the page is at that point now");
      }
      const { object } = await send("DOM.resolveNode", { backendNodeId: hit.backendNodeId, executionContextId: await world(hit.frameId ?? top) });
      try {
        const { result } = await send("Runtime.callFunctionOn", { objectId: object.objectId, functionDeclaration: IS_APPROVED, arguments: [{ value: path }, { value: false }], returnByValue: true });
        if (result.value !== "ok") refuse(String(result.value));
      } finally {
        await send("Runtime.releaseObject", { objectId: object.objectId }).catch(() => undefined);
      }
    },
    async focus() {
      const { result } = await send("Runtime.callFunctionOn", { executionContextId: await world(top), functionDeclaration: IS_APPROVED, arguments: [{ value: path }, { value: true }], returnByValue: true });
      if (result.value !== "ok") refuse(String(result.value));
    },
  };
}

// Runs on the node at a point, in the fresh world: what is there, or why input must not go
// there (a frame of another origin than the approved one: its page was not approved).
const WHAT_IS_HERE = `function (origin) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return { refused: "nothing of the page" };
  const doc = el.ownerDocument;
  const here = doc && doc.defaultView ? doc.defaultView.location.origin : "";
  if (here !== origin) return { refused: "a frame of " + here };
  if ((el.tagName === "IFRAME" || el.tagName === "FRAME") && !el.contentDocument) {
    let other = "another origin";
    try { other = new URL(el.src, doc.baseURI).origin; } catch (e) {}
    return { refused: "a frame of " + other };
  }
  const named = el.getAttribute("aria-label") || el.getAttribute("title") || el.getAttribute("alt") || (el.textContent || "").trim().replace(/\\s+/g, " ");
  const name = named.length > 40 ? named.slice(0, 40) + "..." : named;
  return { what: "<" + el.tagName.toLowerCase() + ">" + (name ? " " + JSON.stringify(name) : "") };
}`;

/**
 * The guard of trusted input at a point the model chose (browser_click_at): before each
 * mouse event the point is hit-tested again, and input is sent only when the node there
 * belongs to a document of the approved `origin` (not a frame of another origin).
 * `hit` says what the last check found there.
 * @param {Send} send @param {string} origin
 */
export async function pointOfOrigin(send, origin) {
  await send("DOM.getDocument", { depth: 0 });
  const { frameTree } = await send("Page.getFrameTree");
  const top = frameTree.frame.id;
  const world = isolatedWorlds(send);
  const guard = {
    hit: "",
    /** @param {{x: number, y: number}} at */
    async point(at) {
      const { cssVisualViewport: view } = await send("Page.getLayoutMetrics");
      /** @type {{backendNodeId: number, frameId?: string}} */
      let found;
      try {
        found = await send("DOM.getNodeForLocation", { x: Math.round(at.x + view.pageX), y: Math.round(at.y + view.pageY), includeUserAgentShadowDOM: false, ignorePointerEventsNone: false });
      } catch {
        throw new ToolFailure("nothing of the page is at that point: the input was not sent");
      }
      const { object } = await send("DOM.resolveNode", { backendNodeId: found.backendNodeId, executionContextId: await world(found.frameId ?? top) });
      try {
        const { result } = await send("Runtime.callFunctionOn", { objectId: object.objectId, functionDeclaration: WHAT_IS_HERE, arguments: [{ value: origin }], returnByValue: true });
        /** @type {{what?: string, refused?: string}} */
        const here = result.value ?? {};
        if (here.refused !== undefined) {
          throw new ToolFailure(`${here.refused} is at that point, not the page of ${origin} that was approved: the input was not sent. Act inside the frame through browser_snapshot's refs`);
        }
        guard.hit = here.what ?? "";
      } finally {
        await send("Runtime.releaseObject", { objectId: object.objectId }).catch(() => undefined);
      }
    },
  };
  return guard;
}
