// The page agent: injected by the worker into a tab's top frame (chrome.scripting, the
// extension's isolated world, never the page's own JavaScript world) and called there with
// one request at a time. Bundled with dom-accessibility-api into vendor/page-agent.js by
// scripts/bundle-page.mjs (the set-up checks keep that file current).
//
// Every acting request carries the origin the Gatekeeper decided for; the agent compares
// it with the page's origin in the same task as the action and does nothing on a mismatch.

import { isHTML } from "./dom.js";
import { ActionRefused, centre, click, deepActive, drag, hover, isSecretField, label, pageText, pathOf, prepare, pressKey, scroll, selectOptions, type, viewBox } from "./actions.js";
import { attachFiles, fileInputFor } from "./files.js";
import { ReactionWatch } from "./reaction.js";
import { RefRegistry, StaleRef } from "./refs.js";
import { successorOf, takeSnapshot } from "./snapshot.js";

/**
 * @typedef {object} PageRequest
 * @property {"snapshot" | "click" | "hover" | "drag" | "locate" | "type" | "select" | "press" | "scroll" | "hasText" | "focusRef" | "check" | "reaction" | "upload"} op
 * @property {string} [expectOrigin]  acting requests: the origin the decision was made for
 * @property {string} [ref]
 * @property {string} [text]
 * @property {boolean} [submit]
 * @property {string[]} [values]
 * @property {string} [key]
 * @property {string} [direction]
 * @property {number} [budgetChars]
 * @property {string} [prefix]  snapshot: the frame's prefix for its refs in its tab's outline (`f1`)
 * @property {boolean} [last]  reaction: the last look (stop watching)
 * @property {"left" | "right" | "middle"} [button]  click: which button
 * @property {1 | 2} [count]  click: 2 for a double click
 * @property {string} [toRef]  drag: onto this element's centre ...
 * @property {{x: number, y: number}} [to]  ... or to this point of the viewport
 * @property {import("./files.js").PickedFile[]} [files]  upload: what the user picked
 */

/** @typedef {{ok: true, [key: string]: unknown} | {ok: false, kind: "stale" | "moved" | "refused", error: string}} PageAnswer */

const refs = new RefRegistry(successorOf);
const reactions = new ReactionWatch();
/** @type {WeakRef<Element>[]} the password fields typed into: blurred in frames even if the page shows their text since (issue 30) */
const secrets = [];

/** The element acted on: its box for the action's frame, and whether it is a password field (remembered). @param {Element} el */
function actedOn(el) {
  const secret = isSecretField(el);
  if (secret && !secrets.some((known) => known.deref() === el)) {
    secrets.push(new WeakRef(el));
    if (secrets.length > 50) secrets.shift();
  }
  return { box: viewBox(el), ...(secret ? { secret } : {}) };
}

/** The password fields typed into that are still in a document (the capture blurs them). */
function secretFields() {
  return secrets.map((known) => known.deref()).filter((el) => el !== undefined && el.isConnected);
}

/** @param {PageRequest} request @returns {PageAnswer | Promise<PageAnswer>} */
function handle(request) {
  if (request.expectOrigin !== undefined && request.expectOrigin !== location.origin) {
    return {
      ok: false,
      kind: "moved",
      error: `the page moved to ${location.href} (origin ${location.origin}) after the decision for ${request.expectOrigin}; nothing was done`,
    };
  }
  try {
    return run(request);
  } catch (error) {
    if (error instanceof StaleRef) return { ok: false, kind: "stale", error: error.message };
    if (error instanceof ActionRefused) return { ok: false, kind: "refused", error: error.message };
    throw error;
  }
}

/**
 * @typedef {object} NavigateEventLike the parts of the Navigation API's `navigate` event read here
 * @property {{url: string, sameDocument: boolean}} destination
 * @property {string | null} downloadRequest
 */

/**
 * Run `act` and note a navigation to another document the page started meanwhile (its own
 * handler: `location.href = ...` on change, a form submitted by Enter). The worker then waits
 * longer for the tab to show it: on a busy machine a load starts well after the action
 * returns. A download or a same-document navigation is not noted (neither loads the tab).
 * With `through` the answer also waits for `through` (the page's immediate reactions), still
 * noting.
 * @param {() => PageAnswer} act @param {() => Promise<void>} [through]
 * @returns {PageAnswer | Promise<PageAnswer>}
 */
function noticingNavigation(act, through) {
  /** @type {string | undefined} */
  let leaving;
  const navigation = /** @type {EventTarget | undefined} */ (/** @type {any} */ (globalThis).navigation);
  /** @param {Event} event */
  const onNavigate = (event) => {
    const { destination, downloadRequest } = /** @type {NavigateEventLike} */ (/** @type {unknown} */ (event));
    if (!destination.sameDocument && downloadRequest === null) leaving = destination.url;
  };
  const noted = (/** @type {PageAnswer} */ answer) => (answer.ok && leaving !== undefined ? { ...answer, leaving } : answer);
  const stop = () => navigation?.removeEventListener("navigate", onNavigate);
  navigation?.addEventListener("navigate", onNavigate);
  let answer;
  try {
    answer = act();
  } catch (error) {
    stop();
    throw error;
  }
  if (!through || !answer.ok || leaving !== undefined) {
    stop();
    return noted(answer);
  }
  const acted = answer;
  return through().then(
    () => noted(acted),
    () => noted(acted),
  ).finally(stop);
}

/**
 * The page's immediate reactions to an input event: what its handlers queued as microtasks
 * or as tasks already due (a `change` handler's `Promise.then` or `setTimeout(..., 0)` in a
 * shown tab). One message through a MessageChannel runs after them; unlike a timer it is
 * not throttled in a background tab.
 * @returns {Promise<void>}
 */
function immediateReactions() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** @param {PageRequest} request @returns {PageAnswer | Promise<PageAnswer>} */
function run(request) {
  switch (request.op) {
    case "click":
    case "hover":
    case "drag":
    case "press": {
      // a plain click or key press may be ignored by the page: watch whether it reacts
      reactions.start();
      const answer = /** @type {PageAnswer} */ (noticingNavigation(() => act(request))); // no `through`: at once
      if (!answer.ok) {
        reactions.stop();
        return answer;
      }
      reactions.acted();
      return { ...answer, watching: true };
    }
    case "type":
    case "select":
    case "upload":
      // not expected to navigate: the worker waits only a moment after the answer, which
      // therefore also covers the page's immediate reactions
      return noticingNavigation(() => act(request), immediateReactions);
  }
  return act(request);
}

/** @param {PageRequest} request @returns {PageAnswer} */
function act(request) {
  const ref = request.ref ?? "";
  switch (request.op) {
    case "snapshot": {
      const root = request.ref ? refs.resolve(request.ref) : undefined;
      return { ok: true, ...takeSnapshot(refs, { budgetChars: request.budgetChars, root, prefix: request.prefix }) };
    }
    case "click": {
      const { element: el, note } = refs.resolveNoting(ref);
      prepare(el, ref);
      const acted = actedOn(el);
      const which = request.button ?? "left";
      click(el, which, request.count ?? 1);
      const how = request.count === 2 ? "double-clicked" : which === "left" ? "clicked" : `${which}-clicked`;
      return { ok: true, did: `${how} ${ref} (${label(el)})${noted(note)}`, ...acted };
    }
    case "hover": {
      const { element: el, note } = refs.resolveNoting(ref);
      prepare(el, ref);
      const acted = actedOn(el);
      hover(el);
      return { ok: true, did: `moved the pointer over ${ref} (${label(el)})${noted(note)}`, ...acted };
    }
    case "drag": {
      const { element: el, note } = refs.resolveNoting(ref);
      prepare(el, ref);
      let to = request.to;
      let onto = "";
      if (request.toRef !== undefined) {
        const target = refs.resolve(request.toRef);
        target.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
        to = dropPoint(el, target);
        onto = ` onto ${request.toRef} (${label(target)})`;
      }
      if (!to) return { ok: false, kind: "refused", error: "give `toRef` or `toX` and `toY`" };
      const acted = actedOn(el);
      const landed = drag(el, to);
      return { ok: true, did: `dragged ${ref} (${label(el)})${onto || ` to (${Math.round(to.x)}, ${Math.round(to.y)}), over ${label(landed)}`}${noted(note)}`, ...acted };
    }
    case "locate": {
      // for trusted (debugger) input: the same checks, then where to press
      const { element: el, note } = refs.resolveNoting(ref);
      prepare(el, ref);
      if (request.text !== undefined && isHTML(el)) el.focus({ preventScroll: true });
      return { ok: true, at: centre(el), path: pathOf(el), label: `${ref} (${label(el)})${noted(note)}`, ...actedOn(el) };
    }
    case "type": {
      const { element: el, note } = refs.resolveNoting(ref);
      prepare(el, ref);
      const acted = actedOn(el);
      const after = type(el, ref, request.text ?? "", request.submit === true);
      return { ok: true, did: `typed ${(request.text ?? "").length} characters into ${ref} (${label(el)})${after ? ` and ${after}` : ""}${noted(note)}`, ...acted };
    }
    case "select": {
      const { element: el, note } = refs.resolveNoting(ref);
      prepare(el, ref);
      const acted = actedOn(el);
      const chosen = selectOptions(el, ref, request.values ?? []);
      return { ok: true, did: `selected ${chosen.map((c) => JSON.stringify(c)).join(", ")} in ${ref} (${label(el)})${noted(note)}`, ...acted };
    }
    case "upload": {
      const { element: el, note } = refs.resolveNoting(ref);
      const { input, how } = fileInputFor(el, ref);
      if (input === el) el.scrollIntoView({ block: "center", behavior: "instant" });
      else prepare(el, ref); // the ref a person would use is shown; its input may be hidden
      const acted = actedOn(el);
      const given = attachFiles(input, request.files ?? []);
      return { ok: true, did: `gave ${given} to ${ref} (${label(el)})${how}${noted(note)}`, ...acted };
    }
    case "press": {
      const { target, done } = pressKey(request.key ?? "");
      return { ok: true, did: `pressed ${request.key} in ${label(target)}${done ? `: ${done}` : ""}` };
    }
    case "focusRef": {
      const el = refs.resolve(ref);
      prepare(el, ref);
      if (isHTML(el)) el.focus({ preventScroll: true });
      return { ok: true, focused: label(deepActive()) };
    }
    case "scroll": {
      const el = request.ref ? refs.resolve(request.ref) : null;
      const did = scroll(el, request.direction);
      return { ok: true, did, ...(el ? actedOn(el) : {}) };
    }
    case "check": // only the origin check above: before trusted input that needs no ref
      return { ok: true };
    case "hasText":
      return { ok: true, found: pageText().includes(request.text ?? "") };
    case "reaction":
      return { ok: true, changes: reactions.changes(request.last === true) };
  }
  return { ok: false, kind: "refused", error: `unknown request ${JSON.stringify(request.op)}` };
}

/**
 * Where to drop `el` on `target`: past the target's centre by a quarter of its size, in the
 * direction of the drag, still inside it (a sortable list moves an item past another only
 * once the pointer crosses that one's middle, as a person's drag does).
 * @param {Element} el @param {Element} target
 */
function dropPoint(el, target) {
  const from = el.getBoundingClientRect();
  const box = target.getBoundingClientRect();
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  const dx = x - (from.left + from.width / 2);
  const dy = y - (from.top + from.height / 2);
  if (Math.abs(dy) >= Math.abs(dx)) return { x, y: y + Math.sign(dy) * box.height / 4 };
  return { x: x + Math.sign(dx) * box.width / 4, y };
}

/** A recovered ref's note, appended to what was done. @param {string} note */
function noted(note) {
  return note ? `; ${note}` : "";
}

if (!("__panelotPage" in globalThis)) {
  Object.defineProperty(globalThis, "__panelotPage", { value: { handle, secretFields, version: 1 }, configurable: false });
}
