// The parts of the conversation's messages, as pure renderers: the model's reasoning
// folded, a notice's label, a message's Fork and Branch buttons, and the branch switcher
// ("2 of 3") of a message sent again from the same place. The conversation list (chat.js)
// puts them in its rows.

import { el, iconButton } from "../dom.js";

/** @typedef {import("../store.js").Item} Item */
/** @typedef {import("../store.js").BranchPoint} BranchPoint */
/** @typedef {import("../controller.js").Controller} Controller */

/**
 * The model's reasoning, folded, its text drawn by `draw` (chat.js: sanitised Markdown,
 * as reasoning summaries are written: "**Planning the search**\n\n...").
 * @param {string} text @param {(target: HTMLElement, text: string) => void} draw
 */
export function thinkingBox(text, draw) {
  const body = el("div", "thinking-text");
  draw(body, text);
  return el("details", "thinking", el("summary", "", "Thinking"), body);
}

/** @param {string} code */
export function noticeLabel(code) {
  return code === "tools_disabled" ? "Tools disabled" : code === "change_approach" ? "Repeated failures" : code === "provider_retry" ? "Retrying" : "Notice";
}

/**
 * Fork and branch buttons of a message (icons, so they add no text to the item).
 * @param {Item} item @param {Pick<Controller, "fork" | "branchBefore">} controller
 */
export function messageActions(item, controller) {
  const bar = el("div", "item-actions");
  const fork = iconButton("fork", "Fork from here");
  fork.addEventListener("click", () => controller.fork(item.id));
  bar.append(fork);
  const parent = /** @type {{parentId?: string}} */ (item).parentId;
  if (item.kind === "user" && parent) {
    const branch = iconButton("branch", "Branch from here");
    branch.addEventListener("click", () => controller.branchBefore(item.id, parent));
    bar.append(branch);
  }
  return bar;
}

/**
 * "2 of 3" with previous / next: the message was sent again from the same place, and each
 * button shows the whole branch of the neighbouring version.
 * @param {BranchPoint} point @param {Pick<Controller, "switchBranch">} controller
 */
export function branchSwitcher(point, controller) {
  const at = point.choices.findIndex((choice) => choice.itemId === point.itemId);
  const group = el("div", "branches");
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "Versions of this message");
  const previous = iconButton("back", "Previous branch");
  const next = iconButton("next", "Next branch");
  previous.disabled = at <= 0;
  next.disabled = at >= point.choices.length - 1;
  previous.addEventListener("click", () => controller.switchBranch(point.choices[at - 1].headItemId));
  next.addEventListener("click", () => controller.switchBranch(point.choices[at + 1].headItemId));
  group.append(previous, el("span", "branch-position", `${at + 1} of ${point.choices.length}`), next);
  return group;
}
