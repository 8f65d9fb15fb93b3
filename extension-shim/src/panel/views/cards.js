// The cards that wait for the user, as pure renderers of what they show: an approval (one
// sentence, the model's reason, the choices; an upload's file picker), a question of the
// model, and the "Did this happen?" card of a call whose outcome is unknown. Each returns
// its element; the conversation list (chat.js) places and keeps them.

import { el, button } from "../dom.js";
import { approvalSentence, reasonFor, tabOwnerWords } from "./action-words.js";
import { argumentLines, scrollable } from "./tool-text.js";

/** @typedef {import("../store.js").Item} Item */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {import("../store.js").ApprovalRequest} ApprovalRequest */
/** @typedef {import("../store.js").InteractionRequest} InteractionRequest */

/** The "Did this happen?" card of a call whose outcome is unknown. @param {Extract<Item, {kind: "toolCall"}>} item @param {Controller} controller */
export function uncertainCard(item, controller) {
  const box = el("div", "card uncertain");
  const evidence = /** @type {{evidence?: {attempted?: unknown, target?: {url?: string, origin?: string, currentUrl?: string}, lastKnown?: {url?: string, title?: string}}}} */ (item).evidence;
  box.append(el("p", "card-title", "Did this happen? The host stopped while this action ran, so its outcome is unknown."));
  const target = evidence?.target;
  // a navigation's target is where it was going; the tab was elsewhere then
  if (target?.url && target.currentUrl) box.append(el("p", "", `It was taking the tab from ${target.currentUrl} to ${target.url}.`));
  else if (target?.url) box.append(el("p", "", `It ran on ${target.url}.`));
  if (evidence?.lastKnown?.url) box.append(el("p", "", `The tab now shows ${evidence.lastKnown.title ?? ""} (${evidence.lastKnown.url}).`));
  box.append(el("p", "muted", "Check the page, then tell Panelot what happened; the turn continues by itself."));
  const choices = el("div", "choices");
  for (const [name, outcome] of /** @type {const} */ ([["It happened", "succeeded"], ["It did not happen", "failed"], ["Retry", "retry"]])) {
    choices.append(button(name, () => controller.resolveUncertain(item.id, outcome)));
  }
  box.append(choices);
  return box;
}

/**
 * An approval card: one sentence, the model's reason, where content flows, the choices
 * (Allow once primary beside Deny, standing grants below) and the raw call folded.
 * @param {ApprovalRequest} approval @param {Map<string, Item>} items @param {Controller} controller
 */
export function approvalCard(approval, items, controller) {
  const li = el("li", "card approval");
  li.dataset.card = "approval";
  li.dataset.kind = "approval";
  const origin = approval.target?.origin;
  const leaving = approval.target?.currentOrigin;
  const headingId = `approval-${approval.requestId}`;
  // one sentence: what will happen, where, in which tab; the raw call under Technical details
  const heading = el("p", "card-title", `${approvalSentence(approval)}?`);
  heading.id = headingId;
  li.setAttribute("aria-labelledby", headingId);
  li.append(heading);
  const reason = reasonFor(items, approval.toolCallId);
  if (reason) {
    const why = el("p", "approval-reason", el("span", "muted", "Why: "), reason);
    why.setAttribute("role", "note");
    why.setAttribute("aria-label", "The model's reason");
    li.append(why);
  }
  const whose = tabOwnerWords(approval);
  if (whose) {
    // a permission for the site is not one to take over someone else's tab: say whose it is
    const owner = el("p", "tab-owner", whose);
    owner.setAttribute("role", "note");
    owner.setAttribute("aria-label", "Whose tab this is");
    li.append(owner);
  }
  if (leaving && leaving !== origin) li.append(el("p", "navigation-place", `The tab is now on ${leaving}; this leaves it for ${origin}.`));
  const carried = approval.carried ?? [];
  if (carried.length) {
    const box = el("div", "carried");
    box.setAttribute("role", "note");
    box.setAttribute("aria-label", "Text this address sends");
    box.append(el("p", "carried-title", `This address sends text read from a page to ${origin ?? "another site"}:`));
    const list = el("ul", "carried-list");
    for (const text of carried) list.append(el("li", "", text));
    box.append(list);
    li.append(box);
  }
  const readFrom = approval.readFrom ?? [];
  if (readFrom.length) {
    // content of other sites would flow into this one: no site grant covers that
    const listed = readFrom.length > 1 ? `${readFrom.slice(0, -1).join(", ")} and ${readFrom.at(-1)}` : readFrom[0];
    const flow = el("p", "provenance", `This turn read content from ${listed}; this call ${approval.delivers ?? "acts on"} ${origin ?? "another site"}.`);
    flow.setAttribute("role", "note");
    flow.setAttribute("aria-label", "Where this turn's content came from");
    li.append(flow);
  }
  const technical = el("details", "technical", el("summary", "", "Technical details"));
  technical.append(el("p", "muted", `${approval.tool.name} · level ${approval.tool.level} · ${(approval.tool.effects ?? []).join(", ") || "no effects"}${origin ? ` · ${origin}` : ""}`));
  technical.append(scrollable(el("pre", "tool-args compact", argumentLines(approval.args)), "Arguments"));
  if (approval.userSupplies === "files") {
    li.append(uploadChoices(approval, headingId, origin ?? undefined, controller), technical);
    return li;
  }
  /** @type {[string, "allow" | "deny", "once" | "thread" | "origin", string][]} */
  const options = [
    ["Allow once", "allow", "once", "Just this call; ask again next time."],
    ["Deny", "deny", "once", "Don't run it; the model is told you said no."],
    ["Allow for this thread", "allow", "thread", "Don't ask again in this conversation."],
    ["Allow for this site", "allow", "origin", leaving ? "Don't ask again before going to this site, in any conversation." : "Don't ask again on this site, in any conversation."],
  ];
  // Allow once (the primary) and Deny side by side, always in view; standing grants below
  const main = el("div", "choices-main");
  const more = el("div", "choices");
  for (const [name, decision, scope, meaning] of options) {
    if (scope === "origin" && !origin) continue;
    if ((carried.length || readFrom.length) && scope !== "once") continue; // no standing permission covers sending page text, or one site's content to another
    const id = `${headingId}-${scope}-${decision}`;
    const standing = scope !== "once";
    const kind = decision === "deny" ? "deny" : standing ? "allow secondary" : "allow primary";
    const choice = button(name, () => controller.approve(approval.requestId, decision, scope), kind);
    choice.setAttribute("aria-describedby", id);
    const help = el("span", standing ? "choice-help" : "choice-help visually-hidden", meaning);
    help.id = id;
    if (standing) more.append(el("div", "choice", choice, help));
    else main.append(choice, help);
  }
  li.append(main);
  if (more.childElementCount) li.append(more);
  li.append(technical);
  return li;
}

/**
 * An upload's card: the user picks the files here, for this call only; Allow once is
 * enabled when files are picked (they go to the worker, never to the host or the model).
 * @param {ApprovalRequest} approval @param {string} headingId @param {string | undefined} origin
 * @param {Controller} controller
 */
function uploadChoices(approval, headingId, origin, controller) {
  const box = el("div", "upload-pick");
  const picker = el("input");
  picker.type = "file";
  picker.multiple = true;
  picker.setAttribute("aria-label", "Files to upload");
  const help = el("p", "choice-help", `Pick the files to give ${origin ?? "the page"}; only they are uploaded, and only for this call.`);
  help.id = `${headingId}-files`;
  picker.setAttribute("aria-describedby", help.id);
  const allow = button("Allow once", () => {
    if (picker.files?.length) void controller.allowUpload(approval.requestId, approval.callId ?? "", [...picker.files]);
  }, "allow primary");
  allow.disabled = true;
  picker.addEventListener("change", () => {
    allow.disabled = !picker.files?.length;
  });
  const deny = button("Deny", () => controller.approve(approval.requestId, "deny", "once"), "deny");
  box.append(help, picker, el("div", "choices-main upload-actions", allow, deny));
  return box;
}

/** A question of the model (ask_user, MCP elicitation): choices, or fields to answer. @param {InteractionRequest} interaction @param {Controller} controller */
export function questionCard(interaction, controller) {
  const li = el("li", "card question");
  li.dataset.card = "question";
  li.dataset.kind = "question";
  const headingId = `question-${interaction.interactionId}`;
  const heading = el("p", "card-title", interaction.prompt);
  heading.id = headingId;
  li.setAttribute("aria-labelledby", headingId);
  li.append(heading);
  const props = /** @type {Record<string, {enum?: unknown[], description?: string}>} */ (/** @type {{properties?: object}} */ (interaction.schema ?? {}).properties ?? {});
  const names = Object.keys(props);
  const choices = el("div", "choices");
  if (names.length === 1 && Array.isArray(props[names[0]].enum)) {
    for (const option of /** @type {unknown[]} */ (props[names[0]].enum)) {
      choices.append(button(String(option), () => controller.answer(interaction.interactionId, { [names[0]]: option }, "accept")));
    }
  } else {
    const form = el("form", "answer");
    /** @type {[string, HTMLTextAreaElement][]} */
    const fields = [];
    for (const name of names.length ? names : ["answer"]) {
      const input = el("textarea");
      input.rows = 2;
      input.setAttribute("aria-label", names.length > 1 ? `Your answer: ${name}` : "Your answer");
      fields.push([name, input]);
      form.append(input);
    }
    const submit = el("button", "primary", "Answer");
    submit.type = "submit";
    form.append(submit);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      controller.answer(interaction.interactionId, Object.fromEntries(fields.map(([n, f]) => [n, f.value])), "accept");
    });
    li.append(form);
  }
  choices.append(button("Decline", () => controller.answer(interaction.interactionId, {}, "decline")));
  li.append(choices);
  return li;
}

