// A turn's timeline (issue 30): for a `browser.invoke` with `capture: true`, a small frame
// of the tab's viewport after the action, and one before it when the Turn has no frame of
// that tab yet. Only the active tab of a normal, non-minimised window is captured, with
// `chrome.tabs.captureVisibleTab` (never the debugger: its bar would show on every action);
// tabs the user marked private, incognito tabs and pages Chrome keeps from extensions are
// skipped, with the reason. Password fields are blurred in the page for the length of the
// capture. A capture is bounded in time and never fails the call: at worst it is skipped.

import { isPrivateTab } from "../private-tabs.js";
import { captureWait, FirstLooks, frameSize, markInImage, skipOfError, typedOf } from "./frame-geometry.js";
import { restrictionOf } from "./tabs.js";

/** @typedef {import("../generated/protocol").CapturedFrame} CapturedFrame */
/** @typedef {import("../generated/protocol").FrameViewport} FrameViewport */
/** @typedef {NonNullable<import("../generated/protocol").BrowserInvokeResult["frameSkipped"]>} FrameSkip */
/** @typedef {import("./frame-geometry.js").FrameHint} FrameHint */

export const FRAME_BOUND_MS = 4_000; // one frame, all steps
const PAINT_BOUND_MS = 150;
const CAPTURE_BOUND_MS = 3_000; // one captureVisibleTab: the next ones wait for it // the blur painted (two animation frames), at most this long
const QUALITY = 0.6;
const DATA_MAX = 690_000; // base64 characters (the host takes 700,000)
export const PASSWORD_SELECTOR = 'input[type=password], input[autocomplete~="current-password" i], input[autocomplete~="new-password" i]';

/** @type {number[]} when the recent captureVisibleTab calls started */
const starts = [];
/** @type {Promise<unknown>} */
let line = Promise.resolve();

/**
 * `chrome.tabs.captureVisibleTab`, spaced so Chrome's quota (2 a second, for the whole
 * extension) never refuses one: the timeline's frames and browser_screenshot share it.
 * @param {number} windowId @param {chrome.extensionTypes.ImageDetails} options
 * @param {number} [boundMs]  how long the capture itself may take (the next ones wait for it)
 * @returns {Promise<string>}
 */
export function spacedCapture(windowId, options, boundMs = CAPTURE_BOUND_MS) {
  const run = line.then(async () => {
    const wait = captureWait(starts, Date.now());
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    starts.push(Date.now());
    if (starts.length > 4) starts.shift();
    try {
      return await within(chrome.tabs.captureVisibleTab(windowId, options), boundMs, "the capture");
    } catch (error) {
      // a capture this worker did not space (another of the extension's pages): once more
      if (!/MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      starts.push(Date.now());
      return within(chrome.tabs.captureVisibleTab(windowId, options), boundMs, "the capture");
    }
  });
  line = run.catch(() => {});
  return run;
}

/**
 * @template T @param {Promise<T>} work @param {number} ms @param {string} what
 * @returns {Promise<T>}
 */
function within(work, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return /** @type {Promise<T>} */ (Promise.race([work, late])).finally(() => clearTimeout(timer));
}

/**
 * In the page (the extension's isolated world): blur the password fields (those the page
 * agent typed into too, whatever they are now), wait until that is painted, and say where
 * the viewport is. Serialised by chrome.scripting: self-contained.
 * @param {string} selector @param {number} paintBoundMs
 */
function blurSecrets(selector, paintBoundMs) {
  const scope = /** @type {any} */ (globalThis);
  /** @type {Set<HTMLElement>} */
  const fields = new Set(/** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(selector)));
  for (const el of scope.__panelotPage?.secretFields?.() ?? []) fields.add(el);
  /** @type {Array<[HTMLElement, string, string]>} */
  const undo = scope.__panelotBlurred ?? [];
  for (const el of fields) {
    undo.push([el, el.style.getPropertyValue("filter"), el.style.getPropertyPriority("filter")]);
    el.style.setProperty("filter", "blur(10px)", "important");
  }
  scope.__panelotBlurred = undo;
  const viewport = { x: scrollX, y: scrollY, width: innerWidth, height: innerHeight };
  if (!fields.size) return { viewport, blurred: 0 };
  return new Promise((resolve) => {
    const done = () => resolve({ viewport, blurred: fields.size });
    setTimeout(done, paintBoundMs);
    requestAnimationFrame(() => requestAnimationFrame(done));
  });
}

/** The page's fields as they were before `blurSecrets`. */
function unblurSecrets() {
  const scope = /** @type {any} */ (globalThis);
  const undo = /** @type {Array<[HTMLElement, string, string]>} */ (scope.__panelotBlurred ?? []);
  scope.__panelotBlurred = [];
  for (const [el, value, priority] of undo.reverse()) {
    if (value) el.style.setProperty("filter", value, priority);
    else el.style.removeProperty("filter");
  }
  return undo.length;
}

/** @param {ArrayBuffer} buffer */
function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * A captured JPEG data URL scaled to the frame's size and encoded again (JPEG, quality
 * 0.6); one already small enough is kept as it is.
 * @param {string} dataUrl @returns {Promise<{data: string, width: number, height: number, mime: "image/jpeg"}>}
 */
async function encodeFrame(dataUrl) {
  const blob = await (await fetch(dataUrl)).blob();
  const bitmap = await createImageBitmap(blob);
  const size = frameSize(bitmap.width, bitmap.height);
  const data = dataUrl.slice(dataUrl.indexOf(",") + 1);
  if (size.scale === 1 && data.length <= DATA_MAX) {
    bitmap.close();
    return { data, width: size.width, height: size.height, mime: "image/jpeg" };
  }
  const canvas = new OffscreenCanvas(size.width, size.height);
  const context = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext("2d"));
  context.drawImage(bitmap, 0, 0, size.width, size.height);
  bitmap.close();
  for (const quality of [QUALITY, 0.35]) {
    const jpeg = await canvas.convertToBlob({ type: "image/jpeg", quality });
    const encoded = base64(await jpeg.arrayBuffer());
    if (encoded.length <= DATA_MAX) return { data: encoded, width: size.width, height: size.height, mime: "image/jpeg" };
  }
  throw new Error("the frame stays larger than its bound");
}

/** @typedef {{frame: CapturedFrame} | {skipped: FrameSkip}} FrameOutcome */

export class FrameCapture {
  /** @param {string} ownOrigin this extension's origin: its own pages are not captured */
  constructor(ownOrigin) {
    this.ownOrigin = ownOrigin;
    this.firsts = new FirstLooks();
  }

  /**
   * The Turn's first capture of the tab (a `before` frame is due), noted.
   * @param {string | null | undefined} turnId @param {number} tabId
   */
  firstLook(turnId, tabId) {
    return typeof turnId === "string" && this.firsts.first(turnId, tabId);
  }

  /**
   * One frame of tab `tabId`, or why there is none; never throws, bounded in time.
   * @param {number} tabId @param {"before" | "after"} phase @param {FrameHint} [hint]
   * @returns {Promise<FrameOutcome>}
   */
  async frame(tabId, phase, hint) {
    try {
      return await within(this.take(tabId, phase, hint), FRAME_BOUND_MS, "the frame");
    } catch (error) {
      console.warn("panelot: no frame of the action", error);
      return { skipped: skipOfError(error) };
    }
  }

  /** @param {number} tabId @param {"before" | "after"} phase @param {FrameHint} [hint] @returns {Promise<FrameOutcome>} */
  async take(tabId, phase, hint) {
    const [tab, secret] = await Promise.all([chrome.tabs.get(tabId), isPrivateTab(tabId).catch(() => false)]);
    if (tab.incognito) return { skipped: "incognito" };
    if (secret) return { skipped: "private" };
    if (restrictionOf(tab.url ?? "", this.ownOrigin)) return { skipped: "not_allowed" };
    if (!tab.active) return { skipped: "background" };
    const window = await chrome.windows.get(tab.windowId);
    if (window.type !== "normal" || window.state === "minimized") return { skipped: "background" };
    const target = { tabId, frameIds: [0] };
    const [blurring] = await chrome.scripting.executeScript({ target, func: blurSecrets, args: [PASSWORD_SELECTOR, PAINT_BOUND_MS] });
    const seen = /** @type {{viewport: FrameViewport, blurred: number} | undefined} */ (blurring?.result);
    if (!seen) throw new Error("the page did not answer before the capture");
    let dataUrl;
    try {
      dataUrl = await spacedCapture(tab.windowId, { format: "jpeg", quality: Math.round(QUALITY * 100) });
    } finally {
      if (seen.blurred) void chrome.scripting.executeScript({ target, func: unblurSecrets }).catch(() => {});
    }
    const [now, image] = await Promise.all([chrome.tabs.get(tabId), encodeFrame(dataUrl)]);
    // Chrome captures the window, whatever tab it shows: the user may have switched tabs
    if (!now.active || now.windowId !== tab.windowId) return { skipped: "background" };
    /** @type {CapturedFrame} */
    const frame = {
      phase,
      mime: image.mime,
      data: image.data,
      width: image.width,
      height: image.height,
      url: (now.url ?? tab.url ?? "").slice(0, 8192),
      title: (now.title ?? "").slice(0, 1000),
      capturedAt: new Date().toISOString(),
      viewport: seen.viewport,
      blurred: seen.blurred,
    };
    if (phase === "after") {
      const mark = markInImage(hint, seen.viewport, image.width, image.height);
      if (mark) frame.mark = mark;
      const typed = typedOf(hint);
      if (typed !== undefined) frame.typed = typed;
    }
    return { frame };
  }
}
