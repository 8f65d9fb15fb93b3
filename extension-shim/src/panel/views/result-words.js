// A tool's result as a person reads it, above its "Technical details": the tabs a listing
// found (favicon, title, site), what a look at the page or a read took in, in one line, and
// a failure's reason without the tool's name or the tab's id. The raw result, written for
// the model, stays under "Technical details".

import { el } from "../dom.js";
import { siteOf } from "./action-words.js";
import { tabChip } from "./steps.js";

/** @typedef {Extract<import("../store.js").Item, {kind: "toolCall"}>} ToolCall */

/** @param {number} n @param {string} one */
function count(n, one) {
  return `${n.toLocaleString("en-US")} ${one}${n === 1 ? "" : "s"}`;
}

/** @param {unknown} url */
function siteOfUrl(url) {
  try {
    return siteOf(new URL(String(url)).origin);
  } catch {
    return "";
  }
}

/**
 * The first sentence of a failure, without the "browser_click: " the model reads first
 * and without the tab's state that follows it.
 * @param {string} text
 */
export function failureReason(text) {
  const plain = text
    .replace(/<\/?untrusted-page-content[^>]*>/g, "") // the model's reminder that a page wrote it
    .trim()
    .replace(/^browser_[a-z_]+: /, "").replace(/\s+Tab \d+ is at [\s\S]*$/, "").trim();
  const first = /^[\s\S]*?[.!?](?=\s|$)/.exec(plain)?.[0] ?? plain;
  const line = first.length > 200 ? `${first.slice(0, 199)}…` : first;
  return line.charAt(0).toUpperCase() + line.slice(1);
}

/**
 * What the result says, for people; null when the step's own line says it all.
 * @param {ToolCall} call @returns {HTMLElement | null}
 */
export function resultForPeople(call) {
  const result = call.result;
  if (!result) return null;
  const details = /** @type {Record<string, any>} */ (result.details ?? {});
  if (result.isError) {
    const content = result.content;
    const text = typeof content === "string" ? content : content.filter((b) => b.type === "text").map((b) => /** @type {{text: string}} */ (b).text).join("\n");
    return el("p", "result-line error", failureReason(text));
  }
  switch (call.name) {
    case "browser_tabs_list": {
      const tabs = Array.isArray(details.tabs) ? details.tabs : [];
      const list = el("ul", "tab-list");
      list.setAttribute("aria-label", "Open tabs");
      for (const tab of tabs) {
        const origin = typeof tab.origin === "string" ? tab.origin : "";
        const item = el("li", "", tabChip({ tabId: tab.tabId, title: tab.title, origin, url: tab.url }));
        if (tab.active) item.append(el("span", "muted", " (shown)"));
        list.append(item);
      }
      return tabs.length ? list : el("p", "result-line", "No tabs are open.");
    }
    case "browser_snapshot": {
      const snap = /** @type {Record<string, any>} */ (details.snapshot ?? {});
      const lines = typeof snap.kept === "number" ? count(snap.kept, "element") : "the page";
      const changed = details.diff && (details.diff.addedCount || details.diff.removedCount) ? ` ${count(details.diff.addedCount ?? 0, "line")} new, ${details.diff.removedCount ?? 0} gone since the last look.` : "";
      const site = siteOfUrl(snap.url);
      return el("p", "result-line", `Saw ${lines}${snap.title ? ` of “${snap.title}”` : ""}${site ? ` on ${site}` : ""}.${changed}`);
    }
    case "browser_read": {
      if (typeof details.total !== "number") return null;
      const shown = typeof details.shown === "number" ? details.shown : details.total;
      const part = details.truncated ? `${count(shown, "character")} of ${count(details.total, "character")}` : count(details.total, "character");
      return el("p", "result-line", `Read ${part} of ${details.fromArticle ? "the article" : "the page's text"}.`);
    }
    case "browser_downloads": {
      const files = Array.isArray(details.downloads) ? details.downloads.length : null;
      return files === null ? null : el("p", "result-line", files ? `Found ${count(files, "download")}.` : "No downloads yet.");
    }
    default:
      return null;
  }
}
