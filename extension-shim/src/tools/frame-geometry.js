// A turn's timeline (issue 30), the pure parts of the worker's capture (`capture.js`): the
// size a frame is scaled to, the action's mark converted from viewport CSS pixels to the
// image's pixels, the typed text as a frame may show it, which capture is a tab's first in
// a Turn, and Chrome's capture errors as a reason to skip. No Chrome API here: unit-tested
// in `test/frames.test.mjs`.

/** @typedef {import("../generated/protocol").FrameMark} FrameMark */
/** @typedef {import("../generated/protocol").FrameViewport} FrameViewport */

export const FRAME_LONG_SIDE = 800; // px of the image's long side, at most
export const MASK = "••••••••"; // a password field's text, as frames and their captions show it
export const TYPED_MAX = 4000;

/**
 * What an action tells its frame, in viewport CSS pixels: the element it acted on (`box`,
 * its top left corner and size) or the point it clicked, and the text it typed.
 * @typedef {object} FrameHint
 * @property {{x: number, y: number, width: number, height: number}} [box]
 * @property {{x: number, y: number}} [point]
 * @property {string} [typed]
 * @property {boolean} [secret]  the field typed into is a password field: its text is masked
 */

/**
 * The size of a frame: the captured image scaled down (never up) to a long side of at
 * most `longSide` px.
 * @param {number} width @param {number} height @param {number} [longSide]
 */
export function frameSize(width, height, longSide = FRAME_LONG_SIDE) {
  const scale = Math.min(1, longSide / Math.max(width, height, 1));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), scale };
}

/** @param {number} n */
function tenth(n) {
  return Math.round(n * 10) / 10;
}

/**
 * The action's mark in the image's pixels: the image spans the viewport's width (CSS
 * pixels are square), so one scale serves both axes. Null when there is nothing to draw, or
 * the box is wholly outside the image.
 * @param {FrameHint | undefined} hint @param {FrameViewport | null} viewport  innerWidth/innerHeight at the capture
 * @param {number} imageWidth @param {number} imageHeight
 * @returns {FrameMark | null}
 */
export function markInImage(hint, viewport, imageWidth, imageHeight) {
  if (!hint || !viewport || !(viewport.width > 0)) return null;
  const scale = imageWidth / viewport.width;
  if (hint.point) {
    const x = hint.point.x * scale;
    const y = hint.point.y * scale;
    if (x < 0 || y < 0 || x > imageWidth || y > imageHeight) return null;
    return { kind: "point", x: tenth(x), y: tenth(y) };
  }
  if (hint.box) {
    const { x, y, width, height } = hint.box;
    if (!(width > 0 && height > 0)) return null;
    const box = { x: x * scale, y: y * scale, width: width * scale, height: height * scale };
    if (box.x + box.width < 0 || box.y + box.height < 0 || box.x > imageWidth || box.y > imageHeight) return null;
    return { kind: "box", x: tenth(box.x), y: tenth(box.y), width: tenth(box.width), height: tenth(box.height) };
  }
  return null;
}

/**
 * The typed text as a frame carries it: a password field's masked, a long text cut.
 * @param {FrameHint | undefined} hint @returns {string | undefined}
 */
export function typedOf(hint) {
  if (!hint || hint.typed === undefined) return undefined;
  if (hint.secret) return MASK;
  return hint.typed.length > TYPED_MAX ? `${hint.typed.slice(0, TYPED_MAX - 1)}…` : hint.typed;
}

/**
 * Chrome's refusal to capture a page (a browser page, the Web Store, another extension's
 * page) as `not_allowed`; any other error as `failed`.
 * @param {unknown} error @returns {"not_allowed" | "failed"}
 */
export function skipOfError(error) {
  const message = error instanceof Error ? error.message : String(error);
  return /cannot access|cannot be scripted|extensions gallery|permission|not allowed|chrome:\/\//i.test(message) ? "not_allowed" : "failed";
}

/** The Turns' tabs already captured once (their `before` frame taken), the latest few hundred. */
export class FirstLooks {
  /** @param {number} [max] */
  constructor(max = 500) {
    this.max = max;
    /** @type {Set<string>} */
    this.seen = new Set();
  }

  /**
   * True the first time the Turn `turnId` captures tab `tabId` (then no more).
   * @param {string} turnId @param {number} tabId
   */
  first(turnId, tabId) {
    const key = `${turnId}\u0000${tabId}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > this.max) this.seen.delete(/** @type {string} */ (this.seen.values().next().value));
    return true;
  }
}

/**
 * Captures spaced so that at most `perSecond` start in any second (Chrome refuses more
 * `captureVisibleTab` calls than MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND, 2): the wait,
 * in ms, before the next one may start, given when the recent ones started.
 * @param {number[]} starts  when the recent captures started (ms), oldest first
 * @param {number} now @param {number} [perSecond] @param {number} [marginMs]
 */
export function captureWait(starts, now, perSecond = 2, marginMs = 25) {
  if (starts.length < perSecond) return 0;
  const limiting = starts[starts.length - perSecond];
  return Math.max(0, limiting + 1000 + marginMs - now);
}
