// The divider of older turns the engine summarized for the model, as a pure renderer: its
// line says how much was summarized, and it unfolds to the summary as sanitised Markdown.

import { el } from "../dom.js";
import { renderMarkdown } from "../markdown.js";

/** @typedef {Extract<import("../store.js").Item, {kind: "compaction"}>} Compaction */

/**
 * Older turns the engine summarized for the model (the items stay stored and shown above):
 * a divider that expands to the summary, rendered as sanitised Markdown like an answer.
 * @param {Compaction} item
 */
export function compactionDivider(item) {
  const body = el("div", "md");
  renderMarkdown(body, item.summary);
  return el("details", "compaction", el("summary", "", compactionTitle(item)), body);
}

/**
 * The divider's line: how much was summarized, and the tokens before and after.
 * @param {Pick<Compaction, "coveredItems" | "tokensBefore" | "tokensAfter">} item
 */
export function compactionTitle(item) {
  const n = item.coveredItems;
  const covered = n ? `${n} item${n === 1 ? "" : "s"}` : "older turns";
  const tokens = item.tokensBefore && item.tokensAfter ? ` · ${item.tokensBefore} → ${item.tokensAfter} tokens` : "";
  return `Earlier conversation summarized (${covered}${tokens})`;
}
