// Iframes of another origin in a snapshot: the page cannot look into them, so the worker
// finds the Chrome frame in each (chrome.scripting in every frame of the tab, matched by
// address, size and name), outlines it in place with refs qualified by the frame (`f1e5`),
// and sends each such ref to its frame's document. A frame's ref is decided for the frame's
// own origin, never the page around it.

import { ToolFailure } from "./errors.js";
import { bounded, callPage, PAGE_CALL_BOUND_MS } from "./page.js";

/** @typedef {import("../page/snapshot.js").FrameOfOtherOrigin} FrameOfOtherOrigin */

/**
 * A frame of a tab's latest snapshot, by its prefix.
 * @typedef {object} FrameRecord
 * @property {number} frameId
 * @property {string} documentId  its refs only make sense in this document
 * @property {string} url
 * @property {string} origin
 */

export const FRAMES_MAX = 3; // outlined per snapshot; more are named, with how to see them
const FRAME_BUDGET_MIN = 1_500;
const FRAMES_BUDGET_MAX = 6_000;
const OUTLINE_BUDGET = 16_500; // the page and its frames together (~7,900 tokens)
const QUALIFIED = /^(f\d+)(e\d+)$/;

/**
 * A frame as it sees itself (run in every frame of the tab).
 * @typedef {object} FrameView
 * @property {number} frameId
 * @property {string} documentId
 * @property {boolean} child  a child of the top frame
 * @property {string} url
 * @property {string} origin
 * @property {number} width
 * @property {number} height
 * @property {string} name
 */

/** @param {number} tabId @param {AbortSignal} signal @returns {Promise<FrameView[]>} */
async function framesOf(tabId, signal) {
  const results = await bounded(
    chrome.scripting.executeScript({
      target: { tabId, allFrames: true },
      func: () => ({
        child: window !== window.top && window.parent === window.top,
        url: location.href,
        origin: location.origin,
        width: innerWidth,
        height: innerHeight,
        name: window.name,
      }),
    }),
    signal,
    PAGE_CALL_BOUND_MS,
    `the frames of tab ${tabId}`,
  );
  /** @type {FrameView[]} */
  const views = [];
  for (const { frameId, documentId, result } of results) {
    if (frameId !== 0 && result?.child) views.push({ frameId, documentId, ...result });
  }
  return views;
}

/**
 * Each iframe with the frame in it: the same name and size, and the address its `src`
 * gave (else the same origin, for a frame that navigated since); twins go in order.
 * @param {FrameOfOtherOrigin[]} iframes @param {FrameView[]} views
 * @returns {(FrameView | undefined)[]}
 */
export function pairFrames(iframes, views) {
  const free = [...views];
  return iframes.map((iframe) => {
    const alike = (/** @type {FrameView} */ v) => v.name === iframe.name && Math.abs(v.width - iframe.width) <= 1 && Math.abs(v.height - iframe.height) <= 1;
    const at = [(/** @type {FrameView} */ v) => alike(v) && v.url === iframe.src, (/** @type {FrameView} */ v) => alike(v) && v.origin === iframe.origin]
      .map((test) => free.findIndex(test))
      .find((index) => index >= 0);
    return at === undefined ? undefined : free.splice(at, 1)[0];
  });
}

/**
 * Outline the iframes of other origins that the page's outline `lines` shows, in place.
 * @param {number} tabId @param {string[]} lines  the page's outline (changed in place)
 * @param {FrameOfOtherOrigin[]} iframes @param {AbortSignal} signal
 * @returns {Promise<{frames: Record<string, FrameRecord>, kept: number, candidates: number}>}
 */
export async function outlineFrames(tabId, lines, iframes, signal) {
  /** @type {Record<string, FrameRecord>} */
  const frames = {};
  let kept = 0;
  let candidates = 0;
  if (!iframes.length) return { frames, kept, candidates };
  const views = await framesOf(tabId, signal);
  const paired = pairFrames(iframes, views);
  const used = lines.reduce((sum, line) => sum + line.length + 1, 0);
  const outlined = Math.min(iframes.length, FRAMES_MAX);
  const share = Math.max(FRAME_BUDGET_MIN, Math.floor(Math.min(FRAMES_BUDGET_MAX, OUTLINE_BUDGET - used) / outlined));
  /** @type {Array<[number, string[]]>} lines to insert after each iframe's line */
  const inserts = [];
  for (const [index, iframe] of iframes.entries()) {
    const view = paired[index];
    const prefix = `f${inserts.length + 1}`;
    let why = "";
    if (index >= FRAMES_MAX) why = `more than ${FRAMES_MAX} frames of other origins; outline it with browser_snapshot and its ref`;
    else if (!view) why = "its frame could not be told apart from the others";
    if (why || !view) {
      lines[iframe.line] += `: not outlined (${why})`;
      continue;
    }
    try {
      const { answer, documentId } = await callPage(tabId, { op: "snapshot", prefix, budgetChars: share }, signal, { documentId: view.documentId });
      if (!answer.ok) throw new ToolFailure(answer.error);
      const indent = " ".repeat(lines[iframe.line].search(/\S/) + 2);
      const inside = answer.lines.length ? answer.lines : ["- (no landmarks, headings or interactive elements)"];
      inserts.push([iframe.line, inside.map((/** @type {string} */ line) => `${indent}${line}`)]);
      frames[prefix] = { frameId: view.frameId, documentId, url: answer.url, origin: view.origin };
      lines[iframe.line] += `, its frame ${prefix} (refs ${prefix}e…)`;
      kept += answer.kept;
      candidates += answer.candidates;
    } catch (error) {
      if (signal.aborted) throw error;
      lines[iframe.line] += `: not outlined (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  for (const [line, inside] of inserts.reverse()) lines.splice(line + 1, 0, ...inside);
  return { frames, kept, candidates };
}

/**
 * The frame of a qualified ref (`f1e5`) in the tab's latest snapshot, or null for a ref
 * of the page itself.
 * @param {Record<string, FrameRecord> | undefined} frames @param {number} tabId @param {string} ref
 * @returns {FrameRecord | null}
 */
export function frameOfRef(frames, tabId, ref) {
  const qualified = QUALIFIED.exec(ref);
  if (!qualified) return null;
  const frame = frames?.[qualified[1]];
  if (!frame) throw new ToolFailure(`ref ${JSON.stringify(ref)} names a frame that is not in the latest snapshot of tab ${tabId}; take a new snapshot with browser_snapshot and use a ref from it`);
  return frame;
}
