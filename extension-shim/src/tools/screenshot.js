// browser_screenshot: the visible tab, or the whole page through the debugger (level L2,
// `fullPage`), as a JPEG whose long side is at most 1,568 px (what vision models take
// without scaling it down again). The host puts the image in the model's result and
// references it in `details.images` for the panel. Each tab's latest screenshot is
// remembered (what it showed, in CSS pixels) so `browser_click_at` can take a point of it.

import { spacedCapture } from "./capture.js";
import { ToolFailure } from "./errors.js";
import { bounded } from "./page.js";
import { describeTab } from "./tabs.js";

/** @typedef {import("./table.js").BrowserTool} BrowserTool */
/** @typedef {import("./debugger.js").DebuggerSessions} DebuggerSessions */

export const LONG_SIDE_MAX = 1568;
const FULL_PAGE_MAX_CSS_PX = 16_384;
const QUALITY = 0.8;
const CAPTURE_BOUND_MS = 15_000;

/**
 * What a screenshot showed, so a point of its image can be found on the page again.
 * @typedef {object} ShotGeometry
 * @property {string} url  the page it showed
 * @property {number} width  the image, in its pixels
 * @property {number} height
 * @property {number} cssX  the page's part it showed, in CSS pixels of the document
 * @property {number} cssY
 * @property {number} cssWidth
 * @property {number} cssHeight
 * @property {boolean} fullPage
 */

/** The latest screenshot of each tab (browser_click_at takes points of it). */
export class ScreenshotRecords {
  constructor() {
    /** @type {Map<number, ShotGeometry>} */
    this.byTab = new Map();
  }

  /** @param {number} tabId */
  get(tabId) {
    return this.byTab.get(tabId);
  }

  /** @param {number} tabId @param {ShotGeometry} shot */
  set(tabId, shot) {
    this.byTab.set(tabId, shot);
  }

  /** @param {number} tabId */
  forget(tabId) {
    this.byTab.delete(tabId);
  }
}

/**
 * The tab's viewport in CSS pixels of the document (scroll position and size), read in the
 * extension's isolated world; null when the page cannot be scripted.
 * @param {number} tabId @param {AbortSignal} signal
 * @returns {Promise<{x: number, y: number, width: number, height: number} | null>}
 */
export async function viewportOf(tabId, signal) {
  try {
    const [first] = await bounded(
      chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: () => ({ x: scrollX, y: scrollY, width: innerWidth, height: innerHeight }) }),
      signal,
      CAPTURE_BOUND_MS,
      `the page in tab ${tabId}`,
    );
    return first?.result ?? null;
  } catch (error) {
    if (signal.aborted) throw error;
    return null;
  }
}

/** @param {ArrayBuffer} buffer */
function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Re-encode `dataUrl` as a JPEG whose long side is at most LONG_SIDE_MAX.
 * @param {string} dataUrl @returns {Promise<{data: string, width: number, height: number}>}
 */
async function scaledJpeg(dataUrl) {
  const blob = await (await fetch(dataUrl)).blob();
  const bitmap = await createImageBitmap(blob);
  const scale = Math.min(1, LONG_SIDE_MAX / Math.max(bitmap.width, bitmap.height));
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  if (scale === 1 && blob.type === "image/jpeg") {
    bitmap.close();
    return { data: dataUrl.slice(dataUrl.indexOf(",") + 1), width, height };
  }
  const canvas = new OffscreenCanvas(width, height);
  const context = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext("2d"));
  context.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  const jpeg = await canvas.convertToBlob({ type: "image/jpeg", quality: QUALITY });
  return { data: base64(await jpeg.arrayBuffer()), width, height };
}

/** @param {DebuggerSessions} debuggers @param {ScreenshotRecords} shots @returns {BrowserTool} */
export function screenshotTool(debuggers, shots) {
  return {
    name: "browser_screenshot",
    pageAccess: true,
    async run(args, ctx) {
      const tab = /** @type {chrome.tabs.Tab} */ (ctx.tab);
      const tabId = /** @type {number} */ (tab.id);
      let shot;
      let what;
      let placed = true;
      if (args.fullPage === true) {
        shot = await debuggers.with(tabId, ctx, async (send) => {
          const metrics = await send("Page.getLayoutMetrics");
          const size = metrics.cssContentSize ?? metrics.contentSize;
          const width = Math.ceil(size.width);
          const height = Math.min(Math.ceil(size.height), FULL_PAGE_MAX_CSS_PX);
          // the clip is in CSS pixels, the image in device pixels (contentSize is in those)
          const ratio = metrics.cssContentSize && metrics.contentSize ? metrics.contentSize.width / metrics.cssContentSize.width : 1;
          const scale = Math.min(1, LONG_SIDE_MAX / (Math.max(width, height) * ratio));
          const captured = await send("Page.captureScreenshot", {
            format: "jpeg",
            quality: Math.round(QUALITY * 100),
            captureBeyondViewport: true,
            clip: { x: 0, y: 0, width, height, scale },
          });
          return { data: captured.data, width: Math.round(width * scale * ratio), height: Math.round(height * scale * ratio), cut: size.height > FULL_PAGE_MAX_CSS_PX, cssHeight: Math.ceil(size.height), cssWidth: width, shownHeight: height };
        });
        what = `the whole page (${shot.width}x${shot.height} px${shot.cut ? `, the first ${FULL_PAGE_MAX_CSS_PX} of ${shot.cssHeight} px of height` : ""})`;
        shots.set(tabId, { url: tab.url ?? "", width: shot.width, height: shot.height, cssX: 0, cssY: 0, cssWidth: shot.cssWidth, cssHeight: shot.shownHeight, fullPage: true });
      } else {
        if (!tab.active) throw new ToolFailure(`tab ${tabId} is in the background, and Chrome only captures the tab its window shows: read it with browser_snapshot, or capture the whole page with fullPage: true (through the debugger); browser_tab_select with focus: true shows it, but only when the user asked to see it`);
        const before = await viewportOf(tabId, ctx.signal);
        const dataUrl = await bounded(spacedCapture(tab.windowId, { format: "png" }, CAPTURE_BOUND_MS), ctx.signal, CAPTURE_BOUND_MS, `the screenshot of tab ${tabId}`);
        // Chrome captures the window, whatever tab it shows: the user (or another thread's
        // call with focus) may have switched tabs meanwhile
        if (!(await chrome.tabs.get(tabId)).active) throw new ToolFailure(`tab ${tabId} went to the background during the screenshot; take it again`);
        const view = await viewportOf(tabId, ctx.signal);
        shot = await scaledJpeg(dataUrl);
        what = `the visible part of the page (${shot.width}x${shot.height} px)`;
        // a page that scrolled during the capture: no point of this image can be placed
        placed = view !== null && before !== null && before.x === view.x && before.y === view.y;
        // CSS pixels are square: the image's width spans the viewport's, its height follows
        // (a window shorter than an emulated viewport shows less than innerHeight)
        if (view && placed) shots.set(tabId, { url: tab.url ?? "", width: shot.width, height: shot.height, cssX: view.x, cssY: view.y, cssWidth: view.width, cssHeight: (shot.height * view.width) / shot.width, fullPage: false });
        else shots.forget(tabId);
      }
      ctx.signal.throwIfAborted();
      const target = describeTab(await chrome.tabs.get(tabId));
      return {
        content: [
          { type: "text", text: `Screenshot of tab ${target.tabId} (${target.url}), ${what}.${placed ? " browser_click_at takes points of this image (x, y in its pixels)." : ""}` },
          { type: "image", mediaType: "image/jpeg", data: shot.data },
        ],
        isError: false,
        target,
        details: { width: shot.width, height: shot.height, fullPage: args.fullPage === true },
      };
    },
  };
}
