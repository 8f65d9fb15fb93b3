// Small DOM helpers for the views: elements with text (never HTML) and icon buttons whose
// accessible name is their aria-label (an icon adds no text content).

const SVG = "http://www.w3.org/2000/svg";
/** Icon paths (24x24, stroked). */
const ICONS = /** @type {Record<string, string>} */ ({
  copy: "M9 9h10v10H9z M5 15V5h10",
  fork: "M6 3v12 M6 21a3 3 0 1 0 0-6 3 3 0 0 0 0 6z M18 9a3 3 0 1 0 0-6 3 3 0 0 0 0 6z M18 9a9 9 0 0 1-9 9",
  branch: "M9 14 4 9l5-5 M4 9h10a6 6 0 0 1 0 12h-3",
  rename: "M4 20h4L19 9l-4-4L4 16z",
  delete: "M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13",
  settings: "M12 8a4 4 0 1 0 0 8a4 4 0 1 0 0-8z M12 2v3 M12 19v3 M2 12h3 M19 12h3 M5 5l2 2 M17 17l2 2 M5 19l2-2 M17 7l2-2",
  close: "M6 6l12 12 M18 6 6 18",
  back: "M15 5l-7 7 7 7",
  next: "M9 5l7 7-7 7",
  threads: "M4 6h16 M4 12h16 M4 18h10",
  workflow: "M4 7h11 M4 12h8 M4 17h6 M15 12l6 4-6 4z",
  export: "M12 4v11 M7 10l5 5 5-5 M5 20h14",
});

/** @param {string} name */
export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", ICONS[name] ?? "");
  svg.append(path);
  return svg;
}

/** @param {string} name @param {string} label */
export function iconButton(name, label) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "icon";
  button.setAttribute("aria-label", label);
  button.title = label;
  button.append(icon(name));
  return button;
}

/**
 * An element with optional class and text children (strings become text nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {string} [className] @param {...(string | Node)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children);
  return node;
}

/** @param {string} label @param {() => void} onClick @param {string} [className] */
export function button(label, onClick, className) {
  const node = el("button", className, label);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

/** Tokens as a short figure: 1234 -> "1.2k". @param {number} n */
export function tokens(n) {
  return n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(1)}k` : `${(n / 1_000_000).toFixed(2)}M`;
}

/** Dollars, or "unknown" (never 0 for an unknown price). @param {number | null | undefined} usd */
export function dollars(usd) {
  if (usd === null || usd === undefined) return "cost unknown";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/**
 * Token counts of a usage or thread stats object in words (missing counts are 0); the
 * reasoning tokens, a part of the output, are named beside it.
 * @param {{inputTokens?: number, outputTokens?: number, cacheReadTokens?: number, cacheWriteTokens?: number, reasoningTokens?: number} | undefined} u
 */
export function usageWords(u) {
  const cache = (u?.cacheReadTokens ?? 0) + (u?.cacheWriteTokens ?? 0);
  const reasoning = u?.reasoningTokens ? ` (${tokens(u.reasoningTokens)} reasoning)` : "";
  return `${tokens(u?.inputTokens ?? 0)} in · ${tokens(u?.outputTokens ?? 0)} out${reasoning}${cache ? ` · ${tokens(cache)} cache` : ""}`;
}

/** @param {{inputTokens?: number, outputTokens?: number, cacheReadTokens?: number, cacheWriteTokens?: number} | undefined} u */
export function totalTokens(u) {
  return (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0) + (u?.cacheReadTokens ?? 0) + (u?.cacheWriteTokens ?? 0);
}

/**
 * A labelled form field: `input` gets `id`, its label, and the help line as its
 * accessible description when `help` is given.
 * @param {string} id @param {string} label @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} input @param {string} [help]
 */
export function labelledField(id, label, input, help) {
  input.id = id;
  const lab = el("label", "", label);
  lab.htmlFor = id;
  const box = el("div", "field", lab, input);
  if (help) {
    const h = el("p", "help", help);
    h.id = `${id}-help`;
    input.setAttribute("aria-describedby", h.id);
    box.append(h);
  }
  return box;
}

/** A one-line text input for names and URLs (no autocomplete, no spell check). @param {string} value */
export function plainTextInput(value) {
  const input = el("input");
  input.type = "text";
  input.value = value;
  input.autocomplete = "off";
  input.spellcheck = false;
  return input;
}
