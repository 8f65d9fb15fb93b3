// The acting tools, page side: click, type, select, press a key, scroll, by ref, with the
// event sequences a user's input produces (pointer, mouse, focus, keyboard, input, change).
// Synthetic events are untrusted: a page that checks `isTrusted` ignores them, and the
// model can then repeat the action with `trusted: true` (the worker's debugger input).

import { isInput, isTextArea, isSelect, isButton, isAnchor, isIFrame, isHTML } from "./dom.js";
import { computeAccessibleName, isDisabled } from "dom-accessibility-api";
import { keyIdentity, parseKey } from "./keys.js";
import { roleOf } from "./snapshot.js";

export class ActionRefused extends Error {}

/** @param {Element} el a short description for messages: `button "Sign in"` */
export function label(el) {
  let role = "";
  let name = "";
  try {
    role = roleOf(el);
    name = computeAccessibleName(el);
  } catch {
    // odd markup: the tag will do
  }
  const shown = name.length > 60 ? `${name.slice(0, 59)}…` : name;
  return `${role || el.tagName.toLowerCase()}${shown ? ` ${JSON.stringify(shown)}` : ""}`;
}

/**
 * How to reach `el` from the top document, for the debugger's re-check before trusted input
 * (`tools/hit-check.js`): element-child indexes, `"#shadow"` into an open shadow root,
 * `"#frame"` into a same-origin iframe's document.
 * @param {Element} el @returns {(number | string)[]}
 */
export function pathOf(el) {
  /** @type {(number | string)[]} */
  const steps = [];
  /** @type {Element | null} */
  let node = el;
  while (node) {
    /** @type {ParentNode | null} */
    const parent = node.parentNode;
    if (parent === null) break;
    if (parent.nodeType === Node.DOCUMENT_NODE) {
      /** @type {Element | null} */
      const owner = /** @type {Document} */ (parent).defaultView?.frameElement ?? null;
      if (owner) steps.push("#frame");
      node = owner;
      continue;
    }
    const siblings = /** @type {ParentNode} */ (/** @type {unknown} */ (parent)).children;
    steps.push(Array.prototype.indexOf.call(siblings, node));
    if (parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE) {
      steps.push("#shadow");
      node = /** @type {ShadowRoot} */ (parent).host;
    } else node = /** @type {Element} */ (parent);
  }
  return steps.reverse();
}

/** The element's centre in the top window's viewport (through same-origin frames). @param {Element} el */
export function centre(el) {
  const rect = el.getBoundingClientRect();
  let x = rect.left + rect.width / 2;
  let y = rect.top + rect.height / 2;
  /** @type {Window | null} */
  let win = el.ownerDocument.defaultView;
  while (win && win !== window.top && win.frameElement) {
    const frame = win.frameElement.getBoundingClientRect();
    x += frame.left + win.frameElement.clientLeft;
    y += frame.top + win.frameElement.clientTop;
    win = win.parent;
  }
  return { x: Math.round(x), y: Math.round(y), width: rect.width, height: rect.height };
}

/**
 * The element's box in the top window's viewport, CSS pixels (through same-origin frames):
 * the frame of the action draws it (issue 30).
 * @param {Element} el
 */
export function viewBox(el) {
  const rect = el.getBoundingClientRect();
  const { x, y } = centre(el);
  const round = (/** @type {number} */ n) => Math.round(n * 10) / 10;
  return { x: round(x - rect.width / 2), y: round(y - rect.height / 2), width: round(rect.width), height: round(rect.height) };
}

/** A field whose text is a secret: a password input, or one the page marks as a password. @param {Element} el */
export function isSecretField(el) {
  if (!isInput(el)) return false;
  const autocomplete = (el.getAttribute("autocomplete") ?? "").toLowerCase();
  return el.type === "password" || /\b(current|new)-password\b/.test(autocomplete);
}

/**
 * Scroll `el` into view and check a user could act on it: shown, sized, enabled, and not
 * covered by another element at its centre.
 * @param {Element} el @param {string} ref
 */
export function prepare(el, ref) {
  if (typeof el.checkVisibility === "function" && !el.checkVisibility({ visibilityProperty: true })) {
    throw new ActionRefused(`${ref} (${label(el)}) is hidden on the page now; take a new snapshot`);
  }
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const rect = el.getBoundingClientRect();
  if (rect.width === 0 || rect.height === 0) {
    throw new ActionRefused(`${ref} (${label(el)}) has no size on the page; take a new snapshot`);
  }
  if (isDisabled(el) || el.getAttribute("aria-disabled") === "true") {
    throw new ActionRefused(`${ref} (${label(el)}) is disabled`);
  }
  const root = /** @type {Document | ShadowRoot} */ (el.getRootNode());
  const hit = root.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
  if (hit && hit !== el && !el.contains(hit) && !labels(hit, el)) {
    throw new ActionRefused(
      `${ref} (${label(el)}) is covered by ${label(hit)} at its centre: a user could not reach it either; close or move what covers it first`,
    );
  }
}

/** @param {Element} hit @param {Element} el */
function labels(hit, el) {
  const owner = hit.closest("label");
  return owner !== null && (owner.control === el || owner.contains(el));
}

/** @param {Element} el */
function mouseInit(el) {
  const rect = el.getBoundingClientRect();
  const clientX = rect.left + rect.width / 2;
  const clientY = rect.top + rect.height / 2;
  return { bubbles: true, cancelable: true, composed: true, view: el.ownerDocument.defaultView, clientX, clientY, button: 0 };
}

/**
 * What a pointer at `el`'s centre hits: the topmost element there when it is `el` or inside
 * it (a tab's link inside its `li`, an icon inside a button), else `el` itself (its label,
 * or nothing of the page's at that point).
 * @param {Element} el
 */
export function pointTarget(el) {
  const rect = el.getBoundingClientRect();
  const root = /** @type {Document | ShadowRoot} */ (el.getRootNode());
  const hit = root.elementFromPoint?.(rect.left + rect.width / 2, rect.top + rect.height / 2);
  return hit && hit !== el && el.contains(hit) ? hit : el;
}

/** @typedef {"left" | "right" | "middle"} Button */
const BUTTONS = { left: { button: 0, buttons: 1 }, middle: { button: 1, buttons: 4 }, right: { button: 2, buttons: 2 } };

/**
 * A user's click: pointer and mouse events at the element's centre, on the topmost element
 * there (`pointTarget`), focus on mouse down, then `click` (left), `auxclick` (middle) or
 * `contextmenu` (right); `count` 2 is a double click (two clicks, then `dblclick`).
 * @param {Element} ref the element the ref names @param {Button} [which] @param {1 | 2} [count]
 */
export function click(ref, which = "left", count = 1) {
  const el = pointTarget(ref);
  const { button, buttons } = BUTTONS[which];
  const init = { ...mouseInit(ref), button };
  const pointer = { ...init, pointerId: 1, pointerType: "mouse", isPrimary: true };
  hover(el, init);
  for (let detail = 1; detail <= count; detail++) {
    el.dispatchEvent(new PointerEvent("pointerdown", { ...pointer, buttons }));
    const down = el.dispatchEvent(new MouseEvent("mousedown", { ...init, buttons, detail }));
    if (down && isHTML(el)) focusable(el)?.focus({ preventScroll: true });
    el.dispatchEvent(new PointerEvent("pointerup", pointer));
    el.dispatchEvent(new MouseEvent("mouseup", { ...init, detail }));
    if (which === "left") el.dispatchEvent(new MouseEvent("click", { ...init, detail }));
    else if (which === "middle") el.dispatchEvent(new MouseEvent("auxclick", { ...init, detail }));
    else el.dispatchEvent(new PointerEvent("contextmenu", { ...pointer, detail }));
  }
  if (count === 2 && which === "left") el.dispatchEvent(new MouseEvent("dblclick", { ...init, detail: 2 }));
}

/**
 * The pointer arriving over `el`: over/enter (enter on each ancestor it newly enters, as a
 * browser does, without bubbling) and a move. CSS `:hover` needs real input (`trusted`).
 * @param {Element} el @param {MouseEventInit} [at]
 */
export function hover(el, at = mouseInit(el)) {
  const init = { ...at, button: 0, buttons: 0 };
  const pointer = { ...init, pointerId: 1, pointerType: "mouse", isPrimary: true };
  el.dispatchEvent(new PointerEvent("pointerover", pointer));
  el.dispatchEvent(new MouseEvent("mouseover", init));
  const entered = [];
  for (let up = /** @type {Element | null} */ (el); up && up !== el.ownerDocument.documentElement; up = up.parentElement) entered.unshift(up);
  for (const each of entered) {
    each.dispatchEvent(new PointerEvent("pointerenter", { ...pointer, bubbles: false }));
    each.dispatchEvent(new MouseEvent("mouseenter", { ...init, bubbles: false }));
  }
  el.dispatchEvent(new PointerEvent("pointermove", pointer));
  el.dispatchEvent(new MouseEvent("mousemove", init));
}

const DRAG_STEPS = 8;

/**
 * A drag from `el`'s centre to a point of its window's viewport: the mouse pressed, moved in
 * steps (each move on the element under the pointer then, where pages such as jQuery UI
 * listen through the document), released there; and for a `draggable` element the HTML
 * drag-and-drop events with one DataTransfer. Returns what it was dropped on.
 * @param {Element} el @param {{x: number, y: number}} to
 */
export function drag(el, to) {
  const source = pointTarget(el);
  const doc = el.ownerDocument;
  const from = mouseInit(el);
  const base = { bubbles: true, cancelable: true, composed: true, view: doc.defaultView, button: 0 };
  /** @param {number} x @param {number} y */
  const under = (x, y) => doc.elementFromPoint(x, y) ?? doc.documentElement;
  hover(source, from);
  source.dispatchEvent(new PointerEvent("pointerdown", { ...from, buttons: 1, pointerId: 1, pointerType: "mouse", isPrimary: true }));
  source.dispatchEvent(new MouseEvent("mousedown", { ...from, buttons: 1, detail: 1 }));
  const html5 = isHTML(el) && el.draggable;
  const transfer = html5 ? new DataTransfer() : null;
  if (transfer) source.dispatchEvent(new DragEvent("dragstart", { ...base, clientX: from.clientX, clientY: from.clientY, dataTransfer: transfer }));
  /** @type {Element} */
  let over = source;
  for (let step = 1; step <= DRAG_STEPS; step++) {
    const clientX = from.clientX + ((to.x - from.clientX) * step) / DRAG_STEPS;
    const clientY = from.clientY + ((to.y - from.clientY) * step) / DRAG_STEPS;
    const at = under(clientX, clientY);
    if (at !== over) {
      at.dispatchEvent(new MouseEvent("mouseover", { ...base, clientX, clientY, buttons: 1 }));
      if (transfer) at.dispatchEvent(new DragEvent("dragenter", { ...base, clientX, clientY, dataTransfer: transfer }));
      over = at;
    }
    at.dispatchEvent(new PointerEvent("pointermove", { ...base, clientX, clientY, buttons: 1, pointerId: 1, pointerType: "mouse", isPrimary: true }));
    at.dispatchEvent(new MouseEvent("mousemove", { ...base, clientX, clientY, buttons: 1 }));
    if (transfer) at.dispatchEvent(new DragEvent("dragover", { ...base, clientX, clientY, dataTransfer: transfer }));
  }
  const end = { ...base, clientX: to.x, clientY: to.y };
  if (transfer) {
    over.dispatchEvent(new DragEvent("drop", { ...end, dataTransfer: transfer }));
    source.dispatchEvent(new DragEvent("dragend", { ...end, dataTransfer: transfer }));
  }
  over.dispatchEvent(new PointerEvent("pointerup", { ...end, pointerId: 1, pointerType: "mouse", isPrimary: true }));
  over.dispatchEvent(new MouseEvent("mouseup", { ...end, detail: 1 }));
  return over;
}

/** The element a click focuses: itself or its nearest focusable ancestor. @param {HTMLElement} el */
function focusable(el) {
  /** @type {HTMLElement | null} */
  let at = el;
  while (at && !(at.tabIndex >= 0 || at.isContentEditable)) at = at.parentElement;
  return at;
}

// Inputs whose value a browser's own widget sets whole (a picker, a slider): typing sets it
// the way Playwright's `fill` does, with the native setter, then `input` and `change`.
const VALUE_FORMATS = /** @type {Record<string, string>} */ ({
  date: "YYYY-MM-DD",
  time: "HH:MM or HH:MM:SS",
  month: "YYYY-MM",
  week: "YYYY-Www",
  "datetime-local": "YYYY-MM-DDTHH:MM",
  color: "#rrggbb",
  range: "a number",
});

/** @param {Element} el @returns {el is HTMLInputElement} */
function isValueInput(el) {
  return isInput(el) && el.type in VALUE_FORMATS;
}

/** Set a picker's or slider's value whole; what the browser took, or a refusal. @param {HTMLInputElement} field @param {string} ref @param {string} text */
function fillValue(field, ref, text) {
  const wanted = text.trim();
  click(field);
  field.focus({ preventScroll: true });
  setValue(field, wanted);
  const took = field.value;
  if (wanted !== "" && took === "") {
    throw new ActionRefused(`${ref} (${label(field)}, a ${field.type} field) did not take ${JSON.stringify(wanted)}: it takes ${VALUE_FORMATS[field.type]}`);
  }
  field.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true }));
  field.dispatchEvent(new Event("change", { bubbles: true }));
  return took === wanted ? "" : `the field holds ${JSON.stringify(took)} (the browser's form of it)`;
}

/** @param {Element} el */
function isTextField(el) {
  if (isTextArea(el)) return true;
  if (isInput(el)) {
    return !["checkbox", "radio", "button", "submit", "reset", "image", "file", "hidden"].includes(el.type) && !isValueInput(el);
  }
  return isHTML(el) && el.isContentEditable;
}

/**
 * A keydown/keyup's fields as a browser fills them: `key`, `code`, and the legacy
 * `keyCode`/`which` that jQuery UI and older widgets read (0 would make them ignore it).
 * @param {string} key
 */
function keyInit(key) {
  const { code, keyCode } = keyIdentity(key);
  return { key, code, keyCode, which: keyCode, charCode: 0, bubbles: true, cancelable: true, composed: true };
}

/** A keypress's fields: the character's code in `charCode`, `keyCode` and `which`. @param {string} key */
function pressInit(key) {
  const char = key === "Enter" ? 13 : (key.codePointAt(0) ?? 0);
  return { ...keyInit(key), charCode: char, keyCode: char, which: char };
}

/**
 * Replace the field's text with `text`, one key at a time (keydown, keypress, beforeinput,
 * input, keyup), then `change`; `submit` presses Enter after.
 * @param {Element} el @param {string} ref @param {string} text @param {boolean} submit
 */
export function type(el, ref, text, submit) {
  if (isValueInput(el)) {
    const note = fillValue(el, ref, text);
    const after = submit ? pressEnter(el) : "";
    return [note, after].filter(Boolean).join(" and ");
  }
  if (!isTextField(el)) {
    throw new ActionRefused(`${ref} is ${label(el)}, not a text field; use browser_click or browser_select_option for it`);
  }
  if (/** @type {HTMLInputElement} */ (el).readOnly) throw new ActionRefused(`${ref} (${label(el)}) is read-only`);
  click(el);
  const field = /** @type {HTMLElement} */ (el);
  field.focus({ preventScroll: true });
  if (isInput(field) || isTextArea(field)) {
    setValue(field, "");
    for (const char of text) {
      const init = keyInit(char);
      if (!field.dispatchEvent(new KeyboardEvent("keydown", init))) continue;
      field.dispatchEvent(new KeyboardEvent("keypress", pressInit(char)));
      if (field.dispatchEvent(new InputEvent("beforeinput", { bubbles: true, cancelable: true, composed: true, inputType: "insertText", data: char }))) {
        setValue(field, field.value + char);
        field.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "insertText", data: char }));
      }
      field.dispatchEvent(new KeyboardEvent("keyup", init));
    }
    field.dispatchEvent(new Event("change", { bubbles: true }));
  } else {
    const selection = field.ownerDocument.getSelection();
    selection?.selectAllChildren(field);
    field.ownerDocument.execCommand("insertText", false, text);
  }
  if (submit) return pressEnter(field);
  return "";
}

/** The prototype's setter: frameworks that wrap `value` on the instance still see a change. @param {HTMLInputElement | HTMLTextAreaElement} field @param {string} value */
function setValue(field, value) {
  const proto = isTextArea(field) ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, "value")?.set;
  if (setter) setter.call(field, value);
  else field.value = value;
}

/** Enter in `el`: key events, then what a browser does for it. Returns what happened. @param {HTMLElement} el */
function pressEnter(el) {
  const init = keyInit("Enter");
  const go = el.dispatchEvent(new KeyboardEvent("keydown", init));
  el.dispatchEvent(new KeyboardEvent("keypress", pressInit("Enter")));
  let done = "";
  if (go) {
    if (isInput(el) && el.form) {
      const submitter = el.form.querySelector("button:not([type]), button[type=submit], input[type=submit]");
      el.form.requestSubmit(submitter && (isButton(submitter) || isInput(submitter)) ? submitter : undefined);
      done = "submitted the form";
    } else if (isAnchor(el) || isButton(el)) {
      click(el);
      done = `activated ${label(el)}`;
    }
  }
  el.dispatchEvent(new KeyboardEvent("keyup", init));
  return done;
}

/**
 * Select the options whose value or label is in `values` and fire input + change.
 * @param {Element} el @param {string} ref @param {string[]} values
 */
export function selectOptions(el, ref, values) {
  if (!(isSelect(el))) throw new ActionRefused(`${ref} is ${label(el)}, not a select; use browser_click for it`);
  if (!el.multiple && values.length > 1) throw new ActionRefused(`${ref} (${label(el)}) takes one value, ${values.length} were given`);
  const options = [...el.options];
  const chosen = values.map((wanted) => {
    const match = options.find((o) => o.value === wanted) ?? options.find((o) => o.label.trim() === wanted.trim());
    if (!match) {
      const known = options.slice(0, 20).map((o) => JSON.stringify(o.label.trim())).join(", ");
      throw new ActionRefused(`${ref} has no option ${JSON.stringify(wanted)}; its options are ${known}`);
    }
    if (match.disabled) throw new ActionRefused(`the option ${JSON.stringify(wanted)} of ${ref} is disabled`);
    return match;
  });
  click(el);
  for (const option of options) option.selected = chosen.includes(option);
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return chosen.map((o) => o.label.trim());
}

/** The focused element, through open shadow roots and same-origin frames. */
export function deepActive() {
  /** @type {Element | null} */
  let active = document.activeElement;
  for (;;) {
    if (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    else if (active && isIFrame(active) && active.contentDocument?.activeElement) active = active.contentDocument.activeElement;
    else break;
  }
  return active ?? document.body;
}

/**
 * Press `combo` in the focused element: key events, and the browser's default for Enter,
 * Space, Backspace and printable keys in fields, which synthetic events do not get.
 * @param {string} combo
 */
export function pressKey(combo) {
  const parsed = parseKey(combo);
  if (typeof parsed === "string") throw new ActionRefused(parsed);
  const target = /** @type {HTMLElement} */ (deepActive());
  if (parsed.key === "Enter" && !parsed.ctrlKey && !parsed.altKey && !parsed.metaKey) {
    const done = pressEnter(target);
    return { target, done };
  }
  const init = { ...keyInit(parsed.key), ctrlKey: parsed.ctrlKey, shiftKey: parsed.shiftKey, altKey: parsed.altKey, metaKey: parsed.metaKey };
  const go = target.dispatchEvent(new KeyboardEvent("keydown", init));
  const plain = !parsed.ctrlKey && !parsed.altKey && !parsed.metaKey;
  let done = "";
  if (go && plain) {
    if (parsed.key.length === 1) target.dispatchEvent(new KeyboardEvent("keypress", { ...pressInit(parsed.key), shiftKey: parsed.shiftKey }));
    if ((isInput(target) || isTextArea(target)) && isTextField(target)) {
      if (parsed.key.length === 1) {
        setValue(target, target.value + parsed.key);
        target.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "insertText", data: parsed.key }));
        done = `typed ${JSON.stringify(parsed.key)}`;
      } else if (parsed.key === "Backspace" && target.value) {
        setValue(target, target.value.slice(0, -1));
        target.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "deleteContentBackward" }));
        done = "deleted a character";
      }
    } else if (parsed.key === " " && (isButton(target) || (isInput(target) && ["checkbox", "radio"].includes(target.type)))) {
      click(target);
      done = `activated ${label(target)}`;
    }
  }
  target.dispatchEvent(new KeyboardEvent("keyup", init));
  return { target, done };
}

/**
 * Scroll the page one screen in `direction`, or `el` into view.
 * @param {Element | null} el @param {string | undefined} direction
 */
export function scroll(el, direction) {
  if (el) {
    el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
  } else {
    const dy = direction === "down" ? 0.85 : direction === "up" ? -0.85 : 0;
    const dx = direction === "right" ? 0.85 : direction === "left" ? -0.85 : 0;
    const page = document.scrollingElement ?? document.documentElement;
    const before = [page.scrollLeft, page.scrollTop];
    window.scrollBy({ left: dx * window.innerWidth, top: dy * window.innerHeight, behavior: "instant" });
    if (page.scrollLeft === before[0] && page.scrollTop === before[1]) {
      // the page itself does not scroll (an app layout): scroll the box under the middle of the viewport
      const inner = scrollableAt(window.innerWidth / 2, window.innerHeight / 2, dx !== 0);
      if (inner) {
        inner.scrollBy({ left: dx * inner.clientWidth, top: dy * inner.clientHeight, behavior: "instant" });
        return `scrolled ${label(inner)} to y=${Math.round(inner.scrollTop)} of ${inner.scrollHeight} px (the page itself does not scroll)`;
      }
    }
  }
  const page = document.scrollingElement ?? document.documentElement;
  const bottom = page.scrollTop + window.innerHeight >= page.scrollHeight - 2;
  return `the page is scrolled to y=${Math.round(page.scrollTop)} of ${page.scrollHeight} px (viewport ${window.innerHeight} px)${bottom ? ", at the bottom" : page.scrollTop === 0 ? ", at the top" : ""}`;
}

/** The page's visible text, with open shadow roots and same-origin frames. @param {Document} doc @returns {string} */
export function pageText(doc = document) {
  let text = (doc.body?.innerText ?? "") + shadowText(doc);
  for (const frame of doc.querySelectorAll("iframe")) {
    try {
      if (frame.contentDocument) text += `\n${pageText(frame.contentDocument)}`;
    } catch {
      // another origin
    }
  }
  return text;
}

/** The text of the open shadow roots under `root` (innerText leaves them out). @param {Document | ShadowRoot} root @returns {string} */
function shadowText(root) {
  let text = "";
  for (const host of root.querySelectorAll("*")) {
    if (!host.shadowRoot) continue;
    for (const child of host.shadowRoot.children) {
      if (child.tagName !== "STYLE" && child.tagName !== "SCRIPT") text += `\n${isHTML(child) ? child.innerText : child.textContent}`;
    }
    text += shadowText(host.shadowRoot);
  }
  return text;
}

/** The nearest scrollable box at a point of the viewport. @param {number} x @param {number} y @param {boolean} sideways */
function scrollableAt(x, y, sideways) {
  for (let at = document.elementFromPoint(x, y); at && at !== document.documentElement; at = at.parentElement) {
    const style = getComputedStyle(at);
    const overflow = sideways ? style.overflowX : style.overflowY;
    const room = sideways ? at.scrollWidth > at.clientWidth : at.scrollHeight > at.clientHeight;
    if (room && (overflow === "auto" || overflow === "scroll")) return at;
  }
  return null;
}
