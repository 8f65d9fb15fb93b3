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
