// Key combinations as the model writes them (`Enter`, `Control+A`, `Shift+Tab`), shared by
// the page agent (scripted key events) and the worker (trusted key events).

/**
 * @typedef {object} KeyPress
 * @property {string} key
 * @property {boolean} ctrlKey
 * @property {boolean} shiftKey
 * @property {boolean} altKey
 * @property {boolean} metaKey
 */

/**
 * Parse `Control+Shift+A` into a key and modifiers; a string saying what is wrong otherwise.
 * @param {string} combo @returns {KeyPress | string}
 */
export function parseKey(combo) {
  const plus = combo === "+" || combo.endsWith("++"); // the + key itself
  const parts = plus ? combo.slice(0, -1).split("+").slice(0, -1) : combo.split("+");
  const key = plus ? "+" : (parts.pop() ?? "");
  if (key === "") return `no key in ${JSON.stringify(combo)} (e.g. Enter, Control+A)`;
  const mods = new Set(parts.map((p) => p.toLowerCase()));
  const unknown = [...mods].filter((m) => !["control", "ctrl", "shift", "alt", "meta", "cmd"].includes(m));
  if (unknown.length) return `unknown modifier ${unknown.join(", ")} in ${JSON.stringify(combo)} (use Control, Shift, Alt, Meta)`;
  return {
    key: key === "Space" ? " " : key,
    ctrlKey: mods.has("control") || mods.has("ctrl"),
    shiftKey: mods.has("shift"),
    altKey: mods.has("alt"),
    metaKey: mods.has("meta") || mods.has("cmd"),
  };
}

// Windows virtual-key codes (what `keyCode`/`which` carry in every browser) and DOM `code`s
// of the named keys, and of the punctuation of a US layout with its shifted forms.
/** @type {Record<string, [string, number]>} */
const NAMED = {
  Backspace: ["Backspace", 8], Tab: ["Tab", 9], Enter: ["Enter", 13], Shift: ["ShiftLeft", 16],
  Control: ["ControlLeft", 17], Alt: ["AltLeft", 18], Pause: ["Pause", 19], CapsLock: ["CapsLock", 20],
  Escape: ["Escape", 27], " ": ["Space", 32], PageUp: ["PageUp", 33], PageDown: ["PageDown", 34],
  End: ["End", 35], Home: ["Home", 36], ArrowLeft: ["ArrowLeft", 37], ArrowUp: ["ArrowUp", 38],
  ArrowRight: ["ArrowRight", 39], ArrowDown: ["ArrowDown", 40], Insert: ["Insert", 45],
  Delete: ["Delete", 46], Meta: ["MetaLeft", 91], ContextMenu: ["ContextMenu", 93],
};
/** @type {Record<string, [string, number]>} */
const PUNCTUATION = {
  ";": ["Semicolon", 186], ":": ["Semicolon", 186], "=": ["Equal", 187], "+": ["Equal", 187],
  ",": ["Comma", 188], "<": ["Comma", 188], "-": ["Minus", 189], _: ["Minus", 189],
  ".": ["Period", 190], ">": ["Period", 190], "/": ["Slash", 191], "?": ["Slash", 191],
  "`": ["Backquote", 192], "~": ["Backquote", 192], "[": ["BracketLeft", 219], "{": ["BracketLeft", 219],
  "\\": ["Backslash", 220], "|": ["Backslash", 220], "]": ["BracketRight", 221], "}": ["BracketRight", 221],
  "'": ["Quote", 222], '"': ["Quote", 222],
};
const SHIFTED_DIGITS = ")!@#$%^&*(";

/**
 * The DOM `code` and the `keyCode` of `key` as a browser reports them on keydown/keyup
 * (a printable key's keypress carries its character code instead); `code` "" and `keyCode`
 * 0 for a key this table does not know.
 * @param {string} key @returns {{code: string, keyCode: number}}
 */
export function keyIdentity(key) {
  const named = NAMED[key] ?? PUNCTUATION[key];
  if (named) return { code: named[0], keyCode: named[1] };
  const fn = /^F([1-9]|1[0-2])$/.exec(key);
  if (fn) return { code: key, keyCode: 111 + Number(fn[1]) };
  if (/^[a-z]$/i.test(key)) return { code: `Key${key.toUpperCase()}`, keyCode: key.toUpperCase().charCodeAt(0) };
  if (/^[0-9]$/.test(key)) return { code: `Digit${key}`, keyCode: key.charCodeAt(0) };
  const shifted = SHIFTED_DIGITS.indexOf(key);
  if (key.length === 1 && shifted >= 0) return { code: `Digit${shifted}`, keyCode: 48 + shifted };
  return { code: "", keyCode: 0 };
}
