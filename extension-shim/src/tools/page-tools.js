// browser_snapshot and browser_read: what the model sees of a page. The page agent builds
// the outline; here it gets its header, the note of what was left out, and the diff
// against the tab's previous snapshot (in `details`, and counted in the text).

import { ToolFailure } from "./errors.js";
import { frameOfRef, outlineFrames } from "./frames.js";
import { callPage, READER } from "./page.js";
import { describeTab } from "./tabs.js";

/** @typedef {import("./table.js").BrowserTool} BrowserTool */
/** @typedef {import("./page.js").SnapshotRecords} SnapshotRecords */

const DIFF_LINES_IN_DETAILS = 200;
const DIFF_LINES_IN_TEXT = 10;
const READ_MAX_CHARS = 30_000;

/**
 * Lines of `after` not in `before` and of `before` not in `after` (as multisets, ignoring
 * indentation): what an action changed in the outline.
 * @param {string[]} before @param {string[]} after
 */
export function diffLines(before, after) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const line of before) counts.set(line.trim(), (counts.get(line.trim()) ?? 0) + 1);
  const added = [];
  for (const line of after) {
    const key = line.trim();
    const left = counts.get(key) ?? 0;
    if (left > 0) counts.set(key, left - 1);
    else added.push(key);
  }
  const removed = [];
  for (const [line, left] of counts) for (let i = 0; i < left; i += 1) removed.push(line);
  return { added, removed };
}

/** @param {number} n */
const count = (n) => n.toLocaleString("en-US");

/**
 * @param {{above: number, below: number, beside: number, in: number, byKind: Record<string, number>}} omitted
 */
function omittedNote(omitted) {
  const total = omitted.above + omitted.below + omitted.beside + omitted.in;
  if (total === 0) return "";
  const where = [
    omitted.below && `${count(omitted.below)} below the viewport`,
    omitted.above && `${count(omitted.above)} above it`,
    omitted.beside && `${count(omitted.beside)} beside it`,
    omitted.in && `${count(omitted.in)} in it`,
  ].filter(Boolean);
  const kinds = Object.entries(omitted.byKind)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${count(n)} ${kind}`);
  return (
    `\nLeft out to stay within the budget: ${count(total)} elements (${where.join(", ")}; ${kinds.join(", ")}). ` +
    "To see them: browser_scroll (a direction, or a ref) then browser_snapshot again, or browser_snapshot with `ref` " +
    "of a region above to outline only that region."
  );
}

/** @param {SnapshotRecords} records @returns {BrowserTool[]} */
export function pageTools(records) {
  /** @type {BrowserTool} */
  const snapshot = {
    name: "browser_snapshot",
    pageAccess: true,
    async run(args, ctx) {
      const tab = /** @type {chrome.tabs.Tab} */ (ctx.tab);
      const tabId = /** @type {number} */ (tab.id);
      /** @type {string | undefined} */
      const region = args.ref;
      const previous = records.get(tabId);
      if (region !== undefined && !previous) throw new ToolFailure(`there is no snapshot of tab ${tabId} to take ${region} from; take a whole-page snapshot first`);
      // a region inside a frame of another origin is outlined by that frame's document
      const inFrame = region !== undefined ? frameOfRef(previous?.frames, tabId, region) : null;
      const request = { op: "snapshot", ref: region, prefix: inFrame ? region?.replace(/e\d+$/, "") : undefined };
      const where = region ? { documentId: inFrame ? inFrame.documentId : previous?.documentId } : {};
      const { answer, documentId: answered } = await callPage(tabId, request, ctx.signal, where);
      if (!answer.ok) return { content: `browser_snapshot: ${answer.error}`, isError: true, target: describeTab(tab) };
      /** @type {string[]} */
      const lines = answer.lines;
      const documentId = inFrame && previous ? previous.documentId : answered;
      const inside = inFrame && previous ? { frames: previous.frames, kept: 0, candidates: 0 } : await outlineFrames(tabId, lines, answer.frames ?? [], ctx.signal);
      answer.kept += inside.kept;
      answer.candidates += inside.candidates;
      records.set(tabId, { documentId, lines, region: region ?? null, frames: inside.frames });
      const samePage = previous !== undefined && previous.documentId === documentId;
      const diff = previous && previous.region === (region ?? null) ? diffLines(previous.lines, lines) : null;
      const scroll = answer.scroll;
      const header =
        `Page ${JSON.stringify(answer.title)} at ${answer.url}` +
        `${region ? `, region ${region} only` : ""}; scrolled to y=${scroll.y} of ${scroll.height} px (viewport ${scroll.viewport} px).\n` +
        `${count(answer.kept)} of ${count(answer.candidates)} landmarks, headings and interactive elements; refs are valid until the next snapshot or navigation.`;
      let changes = "";
      if (diff && (diff.added.length || diff.removed.length)) {
        const gone = diff.removed.slice(0, DIFF_LINES_IN_TEXT).map((line) => `  ${line}`);
        changes =
          `\nSince the previous snapshot${samePage ? "" : " (of another page load)"}: ${diff.added.length} lines new, ${diff.removed.length} gone` +
          (gone.length ? `; gone:\n${gone.join("\n")}` : ".");
      } else if (diff) {
        changes = "\nNothing changed since the previous snapshot.";
      }
      const body = lines.length ? lines.join("\n") : "(no landmarks, headings or interactive elements)";
      return {
        content: `${header}\n${body}${omittedNote(answer.omitted)}${changes}`,
        isError: false,
        target: describeTab(await chrome.tabs.get(tabId)),
        details: {
          snapshot: { url: answer.url, title: answer.title, kept: answer.kept, candidates: answer.candidates, omitted: answer.omitted, region: region ?? null },
          diff: diff && {
            samePage,
            added: diff.added.slice(0, DIFF_LINES_IN_DETAILS),
            removed: diff.removed.slice(0, DIFF_LINES_IN_DETAILS),
            addedCount: diff.added.length,
            removedCount: diff.removed.length,
          },
        },
      };
    },
  };

  /** @type {BrowserTool} */
  const read = {
    name: "browser_read",
    pageAccess: true,
    async run(args, ctx) {
      const tab = /** @type {chrome.tabs.Tab} */ (ctx.tab);
      const tabId = /** @type {number} */ (tab.id);
      /** @type {number} */
      const offset = args.offset ?? 0;
      const { answer } = await callPage(tabId, { offset, maxChars: READ_MAX_CHARS }, ctx.signal, { script: READER });
      const end = answer.offset + answer.markdown.length;
      const head = `# ${answer.title}\n${answer.byline ? `${answer.byline}\n` : ""}Source: ${answer.url}${answer.fromArticle ? "" : " (no article found: the whole page)"}\n\n`;
      const range = offset > 0 ? `[Characters ${count(offset)}-${count(end)} of ${count(answer.total)}.]\n\n` : "";
      const more = answer.truncated
        ? `\n\n[Truncated: characters ${count(answer.offset)}-${count(end)} of ${count(answer.total)} shown; call browser_read with offset ${end} for the rest.]`
        : "";
      return {
        content: `${head}${range}${answer.markdown || "(the page has no readable text)"}${more}`,
        isError: false,
        target: describeTab(tab),
        details: { total: answer.total, offset: answer.offset, shown: answer.markdown.length, truncated: answer.truncated, fromArticle: answer.fromArticle },
      };
    },
  };

  return [snapshot, read];
}
