// A turn's timeline in words (issue 30): which frames a turn has, in order, each frame's
// name ("Frame 3: Clicked the button “Sign in” on shop.example"), the mark of a call the
// user was asked about, denied, or whose outcome is unknown ("Approved", "Denied",
// "Outcome unknown": words, never a colour alone), and why a call has no frame. Pure:
// unit-tested in `test/chat-items.test.mjs`.

import { doingWords, doneWords } from "./steps.js";

/** @typedef {import("../store.js").Item} Item */
/** @typedef {Extract<Item, {kind: "toolCall"}>} ToolCall */
/** @typedef {import("../../generated/protocol").FrameInfo} FrameInfo */
/** @typedef {NonNullable<ToolCall["frameSkipped"]>} FrameSkip */

/** Why a call has no frame, as its card and the timeline say it. */
export const SKIP_WORDS = /** @type {Record<FrameSkip, string>} */ ({
  disabled: "Not captured: the timeline is off in Settings",
  private: "Not captured: you keep this tab out of timelines",
  incognito: "Not captured: an incognito tab",
  background: "Not captured: the tab was in the background",
  not_allowed: "Not captured: Chrome does not let extensions capture this page",
  failed: "Not captured: the capture failed",
});

/** @param {ToolCall} call @returns {string | null} */
export function skipWords(call) {
  const why = call.frameSkipped;
  if (!why || (call.frames?.length ?? 0) > 0) return null;
  return SKIP_WORDS[why] ?? SKIP_WORDS.failed;
}

/**
 * The mark of a call on its frames: the user denied it, its outcome is unknown, it was
 * approved (asked for approval and allowed), or a standing decision of the user's or a
 * policy rule let it through unasked (`allowedBy`); null for a call that needed no approval.
 * @param {ToolCall} call @param {Map<string, string>} decisions  what the user decided, by tool call id
 * @returns {"Denied" | "Outcome unknown" | "Approved" | "Asked for approval" | "Allowed by your earlier decision" | "Allowed by a policy rule" | null}
 */
export function decisionMark(call, decisions) {
  if (call.status === "denied" || decisions.get(call.id) === "deny") return "Denied";
  if (call.status === "uncertain") return "Outcome unknown";
  const decided = decisions.get(call.id);
  if (decided === "allow") return "Approved";
  if (decided === "asked") return "Asked for approval";
  if (call.allowedBy === "grant") return "Allowed by your earlier decision";
  if (call.allowedBy === "policy") return "Allowed by a policy rule";
  return null;
}

/**
 * @typedef {object} TimelineEntry
 * @property {ToolCall} call
 * @property {FrameInfo} [frame]  a frame; without one, the call is a gap of the timeline (denied, not captured)
 * @property {number} [n]  the frame's number in the turn, from 1
 */

/**
 * A turn's timeline: its calls' frames in order (a `before` frame first), numbered, with the
 * calls that have none where the timeline should say so (denied, or not captured while
 * others were); empty when the turn has no frame.
 * @param {ToolCall[]} calls  the turn's tool calls, in order
 * @returns {TimelineEntry[]}
 */
export function timelineOf(calls) {
  /** @type {TimelineEntry[]} */
  const entries = [];
  let n = 0;
  for (const call of calls) {
    const frames = call.frames ?? [];
    for (const frame of frames) entries.push({ call, frame, n: ++n });
    if (!frames.length && (call.status === "denied" || (call.frameSkipped && call.frameSkipped !== "disabled"))) entries.push({ call });
  }
  return n ? entries : []; // no frame at all: the cards say why, the timeline is not shown
}

/** @param {string} text */
function lowerFirst(text) {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * What a frame shows, in words: the step it followed, or for a `before` frame the step it
 * came before.
 * @param {ToolCall} call @param {FrameInfo} frame
 */
export function frameWords(call, frame) {
  return frame.phase === "before" ? `Before ${lowerFirst(doingWords(call))}` : doneWords(call);
}

/** The frame's button's name: "Frame 3: Clicked the button “Sign in” on shop.example". @param {TimelineEntry} entry */
export function frameName(entry) {
  return `Frame ${entry.n}: ${entry.frame ? frameWords(entry.call, entry.frame) : doneWords(entry.call)}`;
}
