// browser_snapshot, page side: a compact outline of the page's landmarks, headings and
// interactive elements, each with a ref. Roles, accessible names and "disabled" come from
// dom-accessibility-api. Same-origin iframes and open shadow roots are walked into.
//
// Bounded: candidates are found cheaply (tag, role attribute, tabindex), then kept in
// priority order -- in the viewport, landmarks and dialogs, form fields, headings, the
// rest -- computing names only for what is kept, until the character budget is spent.
// What was left out is counted and the outline says how to see it.

import { isInput, isTextArea, isSelect, isHTML } from "./dom.js";
import { computeAccessibleName, getRole, isDisabled } from "dom-accessibility-api";

/** @typedef {import("./refs.js").RefRegistry} RefRegistry */

export const DEFAULT_BUDGET_CHARS = 15_000; // outlines run ~2.1 characters a token: ~7,000 tokens (bench/bench_snapshot.py)
const NAME_MAX = 80;
const VALUE_MAX = 60;
const OPTIONS_SHOWN = 8;
const REF = "\u0001ref"; // in a line until it is kept (page text is JSON.stringify-ed: a control character is escaped, never raw)

const CONTROL_TAGS = new Set(["A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY"]);
const CONTROL_ROLES = new Set([
  "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
  "option", "combobox", "textbox", "searchbox", "slider", "spinbutton", "treeitem", "listbox",
]);
const LANDMARK_TAGS = new Set(["HEADER", "NAV", "MAIN", "ASIDE", "FOOTER", "FORM", "DIALOG"]);
const LANDMARK_ROLES = new Set([
  "banner", "navigation", "main", "complementary", "contentinfo", "form", "search", "region", "dialog", "alertdialog",
]);
const ALERT_ROLES = new Set(["alert", "status"]);
const HEADING_TAGS = new Set(["H1", "H2", "H3", "H4", "H5", "H6"]);
const FRAME_TAGS = new Set(["IFRAME", "FRAME"]);
const FIELD_TAGS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

/**
 * @typedef {object} Candidate
 * @property {Element} el
 * @property {"control" | "landmark" | "heading" | "alert" | "frame"} kind
 * @property {Candidate | null} parent  the nearest candidate container (landmark or frame)
 * @property {number} order  document order (frames and shadow roots in place)
 * @property {boolean} inView
 * @property {"above" | "below" | "beside" | "in"} where
 * @property {string} [note]  for frames that cannot be walked
 * @property {FrameOfOtherOrigin} [away]  an iframe of another origin: what tells its frame apart
 * @property {string} [key]  role and name, as the line shows them (a ref's identity)
 * @property {boolean} [clickable]  a control by how it behaves (pointer cursor, handler attribute, draggable), not by its role
 * @property {string} [line]
 * @property {boolean} [kept]
 */

/**
 * An iframe of another origin, as its parent sees it: the worker finds the Chrome frame
 * in it by these (`src`, size and name), and outlines that frame after `line`.
 * @typedef {object} FrameOfOtherOrigin
 * @property {number} line  the index of the iframe's line in `lines`
 * @property {string} src
 * @property {string} origin
 * @property {number} width
 * @property {number} height
 * @property {string} name
 */

/**
 * @typedef {object} SnapshotResult
 * @property {string[]} lines
 * @property {number} kept
 * @property {number} candidates
 * @property {{above: number, below: number, beside: number, in: number, byKind: Record<string, number>}} omitted
 * @property {string} url
 * @property {string} title
 * @property {{y: number, height: number, viewport: number}} scroll
 * @property {FrameOfOtherOrigin[]} frames  the iframes of other origins the outline shows
 */

/**
 * @param {RefRegistry} refs
 * @param {{budgetChars?: number, root?: Element, prefix?: string}} options  `prefix`: this frame's in its tab's outline
 * @returns {SnapshotResult}
 */
export function takeSnapshot(refs, options = {}) {
  const budget = options.budgetChars ?? DEFAULT_BUDGET_CHARS;
  // the outline of one region (a field's ref) shows whole values, within the budget
  const valueMax = options.root ? Math.max(VALUE_MAX, budget - 400) : VALUE_MAX;
  /** @type {Candidate[]} */
  const found = [];
  const top = { x: 0, y: 0, width: window.innerWidth, height: window.innerHeight };
  const start = options.root ?? document.documentElement;
  collect(start, null, found, { dx: 0, dy: 0, view: top, visible: true, hoverHand: handOnHover(document) });
  refs.beginSnapshot(options.prefix);

  const order = prioritized(found);
  let spent = 0;
  let misses = 0;
  for (const item of order) {
    if (budget - spent < 40 || misses > 50) break; // names are computed only for what may fit
    const line = describe(item, valueMax);
    const cost = line.length + 4; // the ref placeholder stands for a ref of about its length
    if (spent + cost > budget) {
      misses += 1;
      continue;
    }
    spent += cost;
    item.line = line.replace(REF, refs.issue(item.el)); // refs only for what is shown
    item.kept = true;
  }
  // containers of kept items are kept too (the outline needs them), even over budget
  for (const item of found) {
    for (let up = item.kept ? item.parent : null; up && !up.kept; up = up.parent) {
      up.line = describe(up, valueMax).replace(REF, refs.issue(up.el));
      up.kept = true;
    }
  }

  /** @type {string[]} */
  const lines = [];
  const omitted = { above: 0, below: 0, beside: 0, in: 0, byKind: /** @type {Record<string, number>} */ ({}) };
  let kept = 0;
  /** @type {FrameOfOtherOrigin[]} */
  const frames = [];
  for (const item of found) {
    if (!item.kept) {
      omitted[item.where] += 1;
      const label = kindLabel(item);
      omitted.byKind[label] = (omitted.byKind[label] ?? 0) + 1;
      continue;
    }
    kept += 1;
    let depth = 0;
    for (let up = item.parent; up; up = up.parent) if (up.kept) depth += 1;
    if (item.away) frames.push({ ...item.away, line: lines.length });
    lines.push(`${"  ".repeat(depth)}- ${item.line}`);
  }
  rememberIdentities(found, refs);
  const scroller = document.scrollingElement ?? document.documentElement;
  return {
    lines,
    kept,
    candidates: found.length,
    omitted,
    url: location.href,
    title: document.title,
    scroll: { y: Math.round(scroller.scrollTop), height: scroller.scrollHeight, viewport: window.innerHeight },
    frames,
  };
}

/**
 * Walk `node`'s subtree (into open shadow roots and same-origin frames) and append the
 * candidates in document order.
 * @param {Element} node @param {Candidate | null} parent @param {Candidate[]} out
 * @param {{dx: number, dy: number, view: {x: number, y: number, width: number, height: number}, visible: boolean, hoverHand: string}} frame
 */
function collect(node, parent, out, frame, hand = NO_HAND) {
  if (node.getAttribute("aria-hidden") === "true" || node.hasAttribute("inert")) return;
  const tag = node.tagName;
  if (tag === "SCRIPT" || tag === "STYLE" || tag === "TEMPLATE" || tag === "NOSCRIPT" || tag === "HEAD") return;
  let kind = kindOf(node, tag);
  let container = parent;
  let clickable = false;
  /** @type {Hand} */
  let below = hand;
  if (kind === null && !hand.inControl) {
    // what a person can click without a role saying so: a handler attribute, a draggable,
    // or the pointer cursor where it starts (not where it is only inherited), on text, or
    // on an empty box (an icon, a tree's toggle)
    const cursor = getComputedStyle(node).cursor;
    // a hand on hover is inherited like any cursor, by what sets none of its own
    const onHover = hoverHand(node, frame.hoverHand) || (hand.onHover && cursor === "auto");
    const pointer = HAND_CURSORS.has(cursor) || onHover;
    clickable = HANDLER_ATTRIBUTES.some((a) => node.hasAttribute(a)) || node.getAttribute("draggable") === "true" ||
      DRAGGABLE_CLASSES.some((c) => node.classList.contains(c)) ||
      (pointer && (!hand.pointer || hasOwnText(node) || (node.childElementCount === 0 && hasArea(node))));
    below = { pointer, inControl: false, onHover };
  }
  // a link's or button's parts are that control; a clickable box's text may be its own
  // target (a tree's names inside its clickable items), so its parts are still looked at
  if (kind === "control" && !holdsItems(node, tag)) below = { ...below, inControl: true };
  if (clickable) kind = "control";
  if (kind !== null && isShown(node)) {
    const rect = node.getBoundingClientRect();
    const x = rect.left + frame.dx;
    const y = rect.top + frame.dy;
    const where = !frame.visible
      ? "below"
      : y + rect.height <= frame.view.y
        ? "above"
        : y >= frame.view.y + frame.view.height
          ? "below"
          : x + rect.width <= frame.view.x || x >= frame.view.x + frame.view.width
            ? "beside"
            : "in";
    /** @type {Candidate} */
    const item = { el: node, kind, parent, order: out.length, inView: where === "in", where };
    if (clickable) item.clickable = true;
    out.push(item);
    if (kind === "landmark" || kind === "frame") container = item;
    if (kind === "frame") {
      walkFrame(/** @type {HTMLIFrameElement} */ (node), item, out, frame, rect);
      return;
    }
  }
  const shadow = node.shadowRoot; // open shadow roots only: closed ones are not reachable
  if (shadow) for (const child of shadow.children) collect(child, container, out, frame, below);
  for (const child of node.children) collect(child, container, out, frame, below);
}

/**
 * @typedef {object} Hand  what the walk knows of an element's ancestors
 * @property {boolean} pointer  the parent shows a hand cursor (pointer, move, grab)
 * @property {boolean} inControl  an ancestor is a control by its role (its parts are not)
 * @property {boolean} onHover  the parent's hand shows on hover only (the page's CSS says so)
 */
/** @type {Hand} */
const NO_HAND = { pointer: false, inControl: false, onHover: false };
const HANDLER_ATTRIBUTES = ["onclick", "onmousedown", "onmouseup", "onpointerdown", "ondblclick"];

// controls whose parts are controls of their own (a list's options, a tree's items)
const COMPOSITE_ROLES = new Set(["listbox", "tree", "treeitem", "menu", "menubar", "grid", "treegrid", "tablist", "combobox"]);

/**
 * Whether a control's parts may be controls too: a composite role, or an element that is a
 * control only by its `tabindex` (a focusable box, e.g. a script-filled suggestion list).
 * @param {Element} el @param {string} tag
 */
function holdsItems(el, tag) {
  const role = el.getAttribute("role");
  if (role) return COMPOSITE_ROLES.has(role);
  return !CONTROL_TAGS.has(tag) && !(isHTML(el) && el.isContentEditable);
}

/**
 * A selector of what the document's own style sheets give a hand cursor on hover only
 * (`.controls span:hover { cursor: pointer }`): such elements are clickable too, though
 * their cursor shows only under the pointer. Style sheets of other origins cannot be read.
 * @param {Document} doc @returns {string}
 */
function handOnHover(doc) {
  const selectors = [];
  for (const sheet of doc.styleSheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // another origin's sheet
    }
    for (const rule of rules) {
      if (!(rule instanceof CSSStyleRule) || !HAND_CURSORS.has(rule.style.cursor)) continue;
      for (const one of rule.selectorText.split(",")) {
        if (one.includes(":hover") && !one.includes("(")) selectors.push(one.replaceAll(":hover", "").trim() || "*");
      }
    }
  }
  const selector = selectors.join(", ");
  try {
    doc.documentElement.matches(selector || "*");
    return selector;
  } catch {
    return ""; // a selector this engine cannot parse without :hover: ignore them all
  }
}

/** @param {Element} el @param {string} selector */
function hoverHand(el, selector) {
  return selector !== "" && el.matches(selector);
}

// cursors that say "you can click or drag this"
const HAND_CURSORS = new Set(["pointer", "move", "grab"]);
// what jQuery UI marks as draggable or sortable (it sets no attribute or cursor for them)
const DRAGGABLE_CLASSES = ["ui-draggable", "ui-sortable-handle"];

/** Whether `el` covers some of the page (an empty list or wrapper does not). @param {Element} el */
function hasArea(el) {
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

/** Whether `el` holds text of its own (not only in its children). @param {Element} el */
function hasOwnText(el) {
  for (const child of el.childNodes) {
    if (child.nodeType === Node.TEXT_NODE && (child.textContent ?? "").trim() !== "") return true;
  }
  return false;
}

/**
 * @param {HTMLIFrameElement} iframe @param {Candidate} item @param {Candidate[]} out
 * @param {{dx: number, dy: number, view: {x: number, y: number, width: number, height: number}, visible: boolean, hoverHand: string}} frame
 * @param {DOMRect} rect
 */
function walkFrame(iframe, item, out, frame, rect) {
  let inner = null;
  try {
    inner = iframe.contentDocument;
  } catch {
    inner = null;
  }
  if (!inner || !inner.documentElement) {
    let origin = "";
    try {
      origin = new URL(iframe.src, location.href).origin;
    } catch {
      origin = "unknown origin";
    }
    item.note = `another origin (${origin})`;
    item.away = { line: -1, src: iframe.src, origin, width: iframe.clientWidth, height: iframe.clientHeight, name: iframe.name };
    return;
  }
  const dx = frame.dx + rect.left + iframe.clientLeft;
  const dy = frame.dy + rect.top + iframe.clientTop;
  collect(inner.documentElement, item, out, { dx, dy, view: frame.view, visible: frame.visible && item.inView, hoverHand: handOnHover(inner) });
}

/** @param {Element} el @param {string} tag @returns {Candidate["kind"] | null} */
function kindOf(el, tag) {
  const role = el.getAttribute("role");
  if (FRAME_TAGS.has(tag)) return "frame";
  if (role) {
    if (CONTROL_ROLES.has(role)) return "control";
    if (LANDMARK_ROLES.has(role)) return "landmark";
    if (ALERT_ROLES.has(role)) return "alert";
    if (role === "heading") return "heading";
    if (role === "presentation" || role === "none") return null;
  }
  if (CONTROL_TAGS.has(tag)) {
    if (tag === "A") return el.hasAttribute("href") ? "control" : null;
    if (tag === "INPUT") return /** @type {HTMLInputElement} */ (el).type === "hidden" ? null : "control";
    return "control";
  }
  if (HEADING_TAGS.has(tag)) return "heading";
  if (LANDMARK_TAGS.has(tag)) return "landmark";
  if (tag === "SECTION" && (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby"))) return "landmark";
  if (isHTML(el) && el.isContentEditable && !(el.parentElement?.isContentEditable ?? false)) return "control";
  if (el.hasAttribute("tabindex") && Number(el.getAttribute("tabindex")) >= 0) return "control";
  return null;
}

/** @param {Element} el */
function isShown(el) {
  if (typeof el.checkVisibility === "function") return el.checkVisibility({ visibilityProperty: true });
  return el.getClientRects().length > 0;
}

/** Candidates in the order they are kept: viewport, structure, fields, headings, rest. @param {Candidate[]} found */
function prioritized(found) {
  /** @param {Candidate} item */
  const rank = (item) => {
    if (item.inView) return 0;
    if (item.kind === "landmark" || item.kind === "frame" || item.kind === "alert") return 1;
    if (FIELD_TAGS.has(item.el.tagName) || (item.kind === "control" && item.el.closest("form"))) return 2;
    if (item.kind === "heading") return 3;
    return 4;
  };
  return found
    .map((item) => ({ item, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.item.order - b.item.order)
    .map((entry) => entry.item);
}

/** @param {Candidate} item */
function kindLabel(item) {
  const tag = item.el.tagName;
  if (tag === "A") return "links";
  if (tag === "BUTTON") return "buttons";
  if (FIELD_TAGS.has(tag)) return "fields";
  if (item.kind === "heading") return "headings";
  if (item.kind === "landmark") return "regions";
  return "other elements";
}

/**
 * One outline line (without the indentation): `role "name" = "value" [ref state...]`, the
 * ref a placeholder; values cut at `valueMax` characters.
 * @param {Candidate} item @param {number} [valueMax]
 */
function describe(item, valueMax = VALUE_MAX) {
  const el = item.el;
  const ref = REF;
  const role = roleOf(el);
  const name = nameOf(el, item.clickable === true);
  item.key = keyOf(role, name);
  const parts = [role];
  if (item.kind === "heading") {
    const level = el.getAttribute("aria-level") ?? (HEADING_TAGS.has(el.tagName) ? el.tagName.slice(1) : "");
    if (level) parts[0] = `heading[${level}]`;
  }
  if (name) parts.push(JSON.stringify(name));
  if (item.kind === "alert") {
    const text = clip((el.textContent ?? "").trim(), NAME_MAX);
    if (text && text !== name) parts.push(JSON.stringify(text));
  }
  const value = valueOf(el, valueMax);
  if (value !== null) parts.push(`= ${JSON.stringify(value)}`);
  const flags = [ref, ...statesOf(el)];
  parts.push(`[${flags.join(" ")}]`);
  if (isSelect(el)) parts.push(optionsOf(el));
  if (item.note) parts.push(item.note);
  if (item.clickable && !name) parts.push(hint(el));
  return parts.join(" ");
}

/** The name a line shows: the accessible name, a field's placeholder, a clickable's text. @param {Element} el @param {boolean} clickable */
function nameOf(el, clickable) {
  let name = clip(safe(() => computeAccessibleName(el)), NAME_MAX);
  if (!name && isInput(el) && el.placeholder) name = clip(el.placeholder, NAME_MAX);
  if (!name && clickable) name = clip(((isHTML(el) ? el.innerText : el.textContent) ?? "").replace(/\s+/g, " ").trim(), NAME_MAX);
  return name;
}

/** @param {string} role @param {string} name */
function keyOf(role, name) {
  return name ? `${role} ${JSON.stringify(name)}` : role;
}

/**
 * The ref identities of a snapshot's kept elements: tag, role and name, and the place among
 * the kept elements sharing them (document order).
 * @param {Candidate[]} found @param {RefRegistry} refs
 */
function rememberIdentities(found, refs) {
  /** @type {Map<string, Candidate[]>} */
  const groups = new Map();
  for (const item of found) {
    if (!item.kept || item.key === undefined) continue;
    const group = `${item.el.tagName}\u0000${item.key}`;
    const members = groups.get(group);
    if (members) members.push(item);
    else groups.set(group, [item]);
  }
  for (const group of groups.values()) {
    group.forEach((item, index) => {
      const ref = refs.refOf(item.el);
      if (ref !== undefined) refs.remember(ref, { tag: item.el.tagName, key: /** @type {string} */ (item.key), index, count: group.length });
    });
  }
}

/**
 * The element that took the place of a re-rendered one: in the top document, exactly
 * `count` shown elements with its tag, role and name, and the one at its `index`.
 * @param {import("./refs.js").Identity} identity @returns {Element | null}
 */
export function successorOf(identity) {
  const same = [...document.querySelectorAll(identity.tag)].filter((el) => {
    if (!isShown(el)) return false;
    const role = roleOf(el);
    return keyOf(role, nameOf(el, false)) === identity.key || keyOf(role, nameOf(el, true)) === identity.key;
  });
  return same.length === identity.count ? (same[identity.index] ?? null) : null;
}

/** For a clickable without a name (an icon): its title, classes or id, e.g. `(class "trash")`. @param {Element} el */
function hint(el) {
  const title = el.getAttribute("title");
  if (title) return `(title ${JSON.stringify(clip(title, NAME_MAX))})`;
  const classes = [...el.classList].slice(0, 3).join(" ");
  if (classes) return `(class ${JSON.stringify(clip(classes, 40))})`;
  return el.id ? `(id ${JSON.stringify(clip(el.id, 40))})` : "(clickable)";
}

/** The library's role, or what the element is when it has none. @param {Element} el */
export function roleOf(el) {
  const role = safe(() => getRole(el) ?? "");
  if (role) return role;
  if (isInput(el)) return el.type === "password" ? "textbox(password)" : el.type;
  if (isHTML(el) && el.isContentEditable) return "textbox";
  if (FRAME_TAGS.has(el.tagName)) return "iframe";
  return el.tagName.toLowerCase();
}

/** A field's value, cut at `max` characters (flattened when cut short). @param {Element} el @param {number} [max] @returns {string | null} */
function valueOf(el, max = VALUE_MAX) {
  /** @param {string} text */
  const cut = (text) => (max > VALUE_MAX ? (text.length > max ? `${text.slice(0, max - 1)}…` : text) : clip(text, max));
  if (isInput(el)) {
    if (["checkbox", "radio", "button", "submit", "reset", "image", "file"].includes(el.type)) {
      return el.type === "file" && el.files?.length ? [...el.files].map((f) => f.name).join(", ") : null;
    }
    if (el.type === "password") return el.value ? "(filled)" : null;
    return el.value ? cut(el.value) : null;
  }
  if (isTextArea(el)) return el.value ? cut(el.value) : null;
  if (isSelect(el)) {
    const chosen = [...el.selectedOptions].map((o) => o.label.trim());
    return chosen.length ? cut(chosen.join(", ")) : null;
  }
  if (isHTML(el) && el.isContentEditable) {
    const text = (el.textContent ?? "").trim();
    return text ? cut(text) : null;
  }
  const now = el.getAttribute("aria-valuenow");
  return now ?? null;
}

/** @param {Element} el @returns {string[]} */
function statesOf(el) {
  const states = [];
  const aria = (/** @type {string} */ name) => el.getAttribute(name);
  if (isInput(el) && (el.type === "checkbox" || el.type === "radio")) {
    if (el.indeterminate) states.push("mixed");
    else if (el.checked) states.push("checked");
  } else if (aria("aria-checked") === "true") states.push("checked");
  else if (aria("aria-checked") === "mixed") states.push("mixed");
  const expanded = el.tagName === "SUMMARY" ? String(/** @type {HTMLDetailsElement | null} */ (el.parentElement)?.open ?? false) : aria("aria-expanded");
  if (expanded === "true") states.push("expanded");
  else if (expanded === "false") states.push("collapsed");
  if (aria("aria-pressed") === "true") states.push("pressed");
  if (aria("aria-selected") === "true") states.push("selected");
  if (safe(() => isDisabled(el)) || aria("aria-disabled") === "true") states.push("disabled");
  if (/** @type {HTMLInputElement} */ (el).required || aria("aria-required") === "true") states.push("required");
  if (/** @type {HTMLInputElement} */ (el).readOnly && FIELD_TAGS.has(el.tagName)) states.push("readonly");
  if (aria("aria-invalid") === "true") states.push("invalid");
  if (isTextArea(el) || aria("aria-multiline") === "true") states.push("multiline");
  if (el.ownerDocument.activeElement === el) states.push("focused");
  return states;
}

/** @param {HTMLSelectElement} select */
function optionsOf(select) {
  const labels = [...select.options].slice(0, OPTIONS_SHOWN).map((o) => JSON.stringify(clip(o.label.trim(), 30)));
  const more = select.options.length > OPTIONS_SHOWN ? ` +${select.options.length - OPTIONS_SHOWN} more` : "";
  return `options: ${labels.join(", ")}${more}`;
}

/** @param {string} text @param {number} max */
function clip(text, max) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A page can make the library throw (odd markup): a missing name beats no snapshot. @template T @param {() => T} compute @returns {T | ""} */
function safe(compute) {
  try {
    return compute();
  } catch {
    return "";
  }
}
