// A tool call's card in the conversation, as a pure renderer of what it shows: a browser
// step in words ("Clicked the button “Sign in” on shop.example"), an answered question as
// the user lived it, the status in words, how long it took, its progress, its result for
// people and its images, the raw call under "Technical details", and the "Did this
// happen?" card of a call whose outcome is unknown. The conversation list (chat.js) keeps
// the card's row and re-draws it when the call or the run changes.

import { el } from "../dom.js";
import { uncertainCard } from "./cards.js";
import { argumentLines, scrollable } from "./tool-text.js";
import { doingWords, doneWords } from "./steps.js";
import { resultForPeople } from "./result-words.js";
import { skipWords } from "./frame-words.js";

/** @typedef {import("../store.js").State} State */
/** @typedef {import("../store.js").Item} Item */
/** @typedef {Extract<Item, {kind: "toolCall"}>} ToolCall */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {{mediaType: string, data: string}} Image */
/** @typedef {(src: string, label: string) => void} OpenImage  shows an image full size */

export const STATUS_WORDS = /** @type {Record<string, string>} */ ({
  pending: "pending",
  awaiting_approval: "waiting for approval",
  running: "running",
  succeeded: "succeeded",
  failed: "failed",
  denied: "denied",
  uncertain: "outcome unknown",
  interrupted: "interrupted",
});

/**
 * The card of a tool call.
 * @param {ToolCall} item
 * @param {{status: string, progress: unknown, times: {startedAt: number, endedAt?: number} | undefined, controller: Controller, openImage: OpenImage}} shown
 *   `status` as `shownStatus` tells it, the call's progress and the times this panel saw it run
 */
export function toolCard(item, { status, progress, times, controller, openImage }) {
  const card = el("details", "tool");
  card.dataset.status = status;
  const label = /** @type {{label?: string}} */ (item).label ?? item.name;
  const asked = questionAsked(item);
  if (asked) card.classList.add("asked");
  card.append(cardSummary(item, status, label, asked, duration(item, times)));
  if (progress !== undefined && !item.result) {
    card.append(el("p", "tool-progress", typeof progress === "string" ? progress : JSON.stringify(progress)));
  }
  const forPeople = resultForPeople(item);
  if (forPeople) card.append(forPeople);
  const notCaptured = skipWords(item); // the timeline's gap, said on the step too
  if (notCaptured) card.append(el("p", "frame-skipped", notCaptured));
  if (item.result) {
    const images = findImages([item.result.content, item.result.details]);
    if (images.length) card.append(el("div", "thumbs", ...images.map((image, n) => thumbnail(image, `${label}: image ${n + 1}`, openImage))));
  }
  card.append(technicalDetails(item));
  if (item.status === "uncertain") {
    card.open = true;
    card.append(uncertainCard(item, controller));
  }
  if (item.status === "running" || item.status === "awaiting_approval") card.open = false;
  return card;
}

/**
 * The card's line: the question and its answer; or what a browser step does or did (a
 * success needs no chip); or the tool's label and status. Then how long it took.
 * @param {ToolCall} item @param {string} status @param {string} label
 * @param {{question: string, answer: string} | null} asked @param {number | null} took
 */
function cardSummary(item, status, label, asked, took) {
  const browser = item.name.startsWith("browser_");
  const running = !item.result && status === "running";
  const settled = item.result || status === "denied" || status === "uncertain";
  const words = browser ? (running ? doingWords(item) : settled ? doneWords(item) : null) : null;
  const marked = status !== "succeeded" && !running;
  const statusWords = STATUS_WORDS[status] ?? status;
  const summary = asked
    ? el("summary", "", el("span", "tool-label", asked.question), el("span", "tool-answer", asked.answer))
    : words
      ? el("summary", "", el("span", "tool-label done", words), ...(marked ? [el("span", "tool-status", statusWords)] : []))
      : el("summary", "", el("span", "tool-label", label), el("span", "tool-status", statusWords));
  if (words) summary.firstElementChild?.setAttribute("title", words);
  if (took !== null && !asked) summary.append(el("span", "tool-time", `${(took / 1000).toFixed(1)} s`));
  // a workflow run's step: replayed by the workflow, or decided by the model where it diverged
  const by = /** @type {{decidedBy?: string | null}} */ (item).decidedBy;
  if (by) summary.append(el("span", "tool-decider", by === "workflow" ? "replayed" : "by the model"));
  return summary;
}

/**
 * The host stores `running` when a call starts but sends no event for it: an unsettled
 * call is shown waiting for approval while its card is open, running while the run
 * executes a tool.
 * @param {ToolCall} item @param {Pick<State, "approvals" | "run">} state
 */
export function shownStatus(item, state) {
  if (item.result || (item.status !== "pending" && item.status !== "awaiting_approval")) return item.status;
  for (const approval of state.approvals.values()) if (approval.toolCallId === item.id) return "awaiting_approval";
  return state.run?.state === "executing_tool" ? "running" : item.status;
}

/**
 * The call as the model made it and its result as the model read it: the tool's name,
 * its arguments and the raw text (with its untrusted-content tags), folded.
 * @param {ToolCall} item
 */
export function technicalDetails(item) {
  const box = el("details", "technical", el("summary", "", "Technical details"));
  box.append(el("p", "tool-name", item.name));
  box.append(scrollable(el("pre", "tool-args compact", argumentLines(item.args)), "Arguments"));
  if (item.result) {
    const content = item.result.content;
    const text = typeof content === "string" ? content : content.filter((b) => b.type === "text").map((b) => /** @type {{text: string}} */ (b).text).join("\n");
    box.append(scrollable(el("pre", item.result.isError ? "tool-result error" : "tool-result", text), "Result"));
  }
  return box;
}

/**
 * An answered `ask_user` call, as the user lived it: the question and what they said
 * (the question card is gone once answered; its call stays in the conversation).
 * @param {ToolCall} item
 * @returns {{question: string, answer: string} | null}
 */
export function questionAsked(item) {
  if (item.name !== "ask_user" || !item.result) return null;
  const args = /** @type {{question?: unknown}} */ (item.args ?? {});
  const values = /** @type {{values?: {answer?: unknown}}} */ (item.result.details ?? {}).values;
  const answer = typeof values?.answer === "string" && !item.result.isError ? `You answered: ${values.answer}` : "You did not answer";
  return { question: typeof args.question === "string" ? args.question : "A question", answer };
}

/**
 * An image of a result as a button that opens it full size.
 * @param {Image} image @param {string} label @param {OpenImage} openImage
 */
export function thumbnail(image, label, openImage) {
  const open = el("button", "thumb");
  open.type = "button";
  open.setAttribute("aria-label", `Open ${label} full size`);
  const img = el("img");
  img.src = `data:${image.mediaType};base64,${image.data}`;
  img.alt = "";
  open.append(img);
  open.addEventListener("click", () => openImage(img.src, label));
  return open;
}

/**
 * How long a settled call ran, in ms: from the times the host stored with it (calls loaded
 * from history too), else as this panel saw it run; null while it runs or never ran.
 * @param {ToolCall} item
 * @param {{startedAt: number, endedAt?: number} | undefined} seen
 */
export function duration(item, seen) {
  const started = item.startedAt ? Date.parse(item.startedAt) : NaN;
  const ended = item.endedAt ? Date.parse(item.endedAt) : NaN;
  if (Number.isFinite(started) && Number.isFinite(ended)) return Math.max(0, ended - started);
  return seen?.endedAt ? seen.endedAt - seen.startedAt : null;
}

/**
 * Images anywhere in a tool result's content or details: objects with a base64 `data` and
 * an image `mediaType`.
 * @param {unknown[]} roots @returns {Image[]}
 */
export function findImages(roots) {
  /** @type {Image[]} */
  const found = [];
  /** @param {unknown} node @param {number} depth */
  const visit = (node, depth) => {
    if (!node || typeof node !== "object" || depth > 4 || found.length >= 8) return;
    const value = /** @type {Record<string, unknown>} */ (node);
    if (typeof value.data === "string" && typeof value.mediaType === "string" && /^image\/(png|jpeg|gif|webp)$/.test(value.mediaType)) {
      found.push({ mediaType: value.mediaType, data: value.data });
      return;
    }
    for (const child of Array.isArray(node) ? node : Object.values(value)) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return found;
}
