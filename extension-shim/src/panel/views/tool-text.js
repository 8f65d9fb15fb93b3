// Raw tool text as the "Technical details" show it: arguments one per line, in a region
// that may scroll and that keyboard users reach.

/**
 * Tool arguments one per line, `name: value` (strings as they are, other values as JSON):
 * shorter than indented JSON on a narrow card, and still exact.
 * @param {Record<string, unknown>} args
 */
export function argumentLines(args) {
  const lines = Object.entries(args ?? {}).map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  return lines.join("\n") || "(no arguments)";
}

/** A region that may scroll, reachable by keyboard. @param {HTMLElement} node @param {string} label */
export function scrollable(node, label) {
  node.tabIndex = 0;
  node.setAttribute("aria-label", label);
  return node;
}

