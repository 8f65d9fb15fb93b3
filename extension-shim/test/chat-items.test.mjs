// The conversation's pure item renderers (tool cards, the cards that wait for the user,
// a message's buttons and branch switcher), in the tiny DOM of dom-shim.mjs; the list
// around them (windowing, streaming, scrolling) runs in real Chromium in
// tests/e2e/test_panel_chat.py.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { byClass, byName, findAll, installDom, removeDom } from "./dom-shim.mjs";
import { duration, findImages, questionAsked, shownStatus, toolCard } from "../src/panel/views/tool-card.js";
import { branchSwitcher, messageActions, noticeLabel, thinkingBox } from "../src/panel/views/messages.js";
import { approvalCard, questionCard } from "../src/panel/views/cards.js";

before(installDom);
after(removeDom);

/** A controller that records what the user asked for. */
function recorder() {
  /** @type {[string, ...unknown[]][]} */
  const calls = [];
  const record = (/** @type {string} */ name) => (/** @type {unknown[]} */ ...args) => calls.push([name, ...args]);
  const controller = /** @type {any} */ ({
    fork: record("fork"),
    branchBefore: record("branchBefore"),
    switchBranch: record("switchBranch"),
    resolveUncertain: record("resolveUncertain"),
    answer: record("answer"),
    decide: record("decide"),
  });
  return { calls, controller };
}

/** @param {Record<string, unknown>} fields @returns {any} */
const call = (fields) => ({ id: "itm_1", kind: "toolCall", turnId: "trn_1", name: "browser_click", args: { ref: "e3" }, status: "pending", ...fields });

const shown = (/** @type {any} */ item, /** @type {Record<string, unknown>} */ more = {}) => {
  const { controller } = recorder();
  return toolCard(item, { status: item.status, progress: undefined, times: undefined, controller, openImage: () => {}, ...more });
};

test("a browser step's card says what it did, with no status for a success, and how long it took", () => {
  const target = { origin: "https://shop.example", tabId: 7, element: 'button "Pay now"' };
  const item = call({ status: "succeeded", target, result: { content: "clicked", isError: false }, startedAt: "2026-01-01T00:00:00Z", endedAt: "2026-01-01T00:00:01.5Z" });
  const card = shown(item);
  const summary = card.firstElementChild;
  assert.equal(card.dataset.status, "succeeded");
  assert.equal(summary.textContent, "Clicked the button “Pay now” on shop.example1.5 s");
  assert.equal(byClass(summary, "tool-status").length, 0);
  assert.equal(summary.firstElementChild.getAttribute("title"), "Clicked the button “Pay now” on shop.example");
  assert.equal(byClass(card, "tool-result")[0].textContent, "clicked");
});

test("a call that runs says it is running, and a tool of no browser shows its label and status", () => {
  const running = shown(call({ status: "running" }), { progress: "half way" });
  assert.match(running.firstElementChild.textContent, /^Clicking /);
  assert.equal(byClass(running, "tool-progress")[0].textContent, "half way");
  assert.equal(running.open, false);
  const other = shown(call({ name: "mcp_weather", label: "Weather", status: "failed", result: { content: "no city", isError: true } }));
  assert.deepEqual(other.firstElementChild.children.map((/** @type {any} */ e) => e.textContent), ["Weather", "failed"]);
});

test("a call waits for approval while its card is open, and runs while the run executes a tool", () => {
  const item = call({ status: "pending" });
  assert.equal(shownStatus(item, { approvals: new Map([["apr_1", /** @type {any} */ ({ toolCallId: "itm_1" })]]), run: null }), "awaiting_approval");
  assert.equal(shownStatus(item, { approvals: new Map(), run: { id: "run_1", state: "executing_tool" } }), "running");
  assert.equal(shownStatus(item, { approvals: new Map(), run: null }), "pending");
  assert.equal(shownStatus(call({ status: "failed" }), { approvals: new Map(), run: { id: "run_1", state: "executing_tool" } }), "failed");
});

test("an answered question reads as the user lived it", () => {
  const asked = call({ name: "ask_user", args: { question: "Which size?" }, status: "succeeded", result: { content: "M", isError: false, details: { values: { answer: "M" } } } });
  assert.deepEqual(questionAsked(asked), { question: "Which size?", answer: "You answered: M" });
  const card = shown(asked);
  assert.ok(card.classList.contains("asked"));
  assert.equal(card.firstElementChild.textContent, "Which size?You answered: M");
  assert.equal(questionAsked({ ...asked, result: { content: "", isError: true } })?.answer, "You did not answer");
  assert.equal(questionAsked(call({})), null);
});

test("a call whose outcome is unknown opens with “Did this happen?”, and its answers go to the controller", () => {
  const { calls, controller } = recorder();
  const card = toolCard(call({ status: "uncertain" }), { status: "uncertain", progress: undefined, times: undefined, controller, openImage: () => {} });
  assert.equal(card.open, true);
  assert.match(byClass(card, "card-title")[0].textContent, /^Did this happen\?/);
  byName(card, "It did not happen").click();
  byName(card, "Retry").click();
  assert.deepEqual(calls, [["resolveUncertain", "itm_1", "failed"], ["resolveUncertain", "itm_1", "retry"]]);
});

test("a result's images become thumbnails that open full size, named after the tool", () => {
  const image = { mediaType: "image/png", data: "iVBOR" };
  const item = call({ name: "browser_screenshot", label: "Screenshot", status: "succeeded", result: { content: [{ type: "text", text: "a shot" }], isError: false, details: { shot: image } } });
  /** @type {[string, string][]} */
  const opened = [];
  const card = shown(item, { openImage: (/** @type {string} */ src, /** @type {string} */ label) => opened.push([src, label]) });
  byName(card, "Open Screenshot: image 1 full size").click();
  assert.deepEqual(opened, [["data:image/png;base64,iVBOR", "Screenshot: image 1"]]);
  assert.deepEqual(findImages([{ a: [{ mediaType: "image/svg+xml", data: "x" }] }]), []);
});

test("the technical details show the call as the model made it, folded", () => {
  const card = shown(call({ args: { ref: "e3", trusted: true } }));
  const details = byClass(card, "technical")[0];
  assert.equal(details.firstElementChild.textContent, "Technical details");
  assert.equal(byName(details, "Arguments").textContent, "ref: e3\ntrusted: true");
});

test("a call's duration comes from the host's times, else from what this panel saw", () => {
  assert.equal(duration(call({ startedAt: "2026-01-01T00:00:00Z", endedAt: "2026-01-01T00:00:02Z" }), undefined), 2000);
  assert.equal(duration(call({}), { startedAt: 100, endedAt: 350 }), 250);
  assert.equal(duration(call({}), { startedAt: 100 }), null);
});

test("a message can be forked, and a user message sent after another can be branched", () => {
  const { calls, controller } = recorder();
  const user = /** @type {any} */ ({ id: "itm_2", kind: "user", turnId: "trn_1", text: "Hi", parentId: "itm_1" });
  const bar = messageActions(user, controller);
  byName(bar, "Fork from here").click();
  byName(bar, "Branch from here").click();
  assert.deepEqual(calls, [["fork", "itm_2"], ["branchBefore", "itm_2", "itm_1"]]);
  const answer = messageActions(/** @type {any} */ ({ id: "itm_3", kind: "assistant", turnId: "trn_1", parentId: "itm_2" }), controller);
  assert.equal(findAll(answer, (e) => e.getAttribute("aria-label") === "Branch from here").length, 0);
});

test("the branch switcher says which version is shown and shows the neighbouring one", () => {
  const { calls, controller } = recorder();
  const choices = ["a", "b", "c"].map((x) => ({ itemId: `itm_${x}`, headItemId: `head_${x}` }));
  const group = branchSwitcher(/** @type {any} */ ({ itemId: "itm_b", choices }), controller);
  assert.equal(group.getAttribute("role"), "group");
  assert.equal(group.getAttribute("aria-label"), "Versions of this message");
  assert.equal(byClass(group, "branch-position")[0].textContent, "2 of 3");
  byName(group, "Previous branch").click();
  byName(group, "Next branch").click();
  assert.deepEqual(calls, [["switchBranch", "head_a"], ["switchBranch", "head_c"]]);
  const first = branchSwitcher(/** @type {any} */ ({ itemId: "itm_a", choices }), controller);
  assert.equal(byName(first, "Previous branch").disabled, true);
  assert.equal(byName(first, "Next branch").disabled, false);
});

test("thinking is folded, its text drawn by the renderer given, and a notice is labelled by its code", () => {
  /** @type {[string, string][]} */
  const drawn = [];
  const box = thinkingBox("**Planning**", (target, text) => {
    drawn.push([target.className, text]);
    target.textContent = text.replaceAll("*", "");
  });
  assert.equal(box.tagName, "DETAILS");
  assert.deepEqual(drawn, [["thinking-text", "**Planning**"]]);
  assert.equal(box.textContent, "ThinkingPlanning");
  assert.equal(noticeLabel("change_approach"), "Repeated failures");
  assert.equal(noticeLabel("something_new"), "Notice");
});

test("a question with choices offers them as buttons, and Decline", () => {
  const { calls, controller } = recorder();
  const interaction = /** @type {any} */ ({ interactionId: "int_1", prompt: "Which size?", schema: { properties: { size: { enum: ["S", "M"] } } } });
  const li = questionCard(interaction, controller);
  assert.equal(li.dataset.card, "question");
  byName(li, "M").click();
  byName(li, "Decline").click();
  assert.deepEqual(calls, [["answer", "int_1", { size: "M" }, "accept"], ["answer", "int_1", {}, "decline"]]);
});

test("an approval card is named by its one sentence and says whose tab it acts on", () => {
  const { controller } = recorder();
  const approval = /** @type {any} */ ({
    requestId: "apr_1",
    toolCallId: "itm_1",
    tool: { name: "browser_click", label: "Click" },
    args: { ref: "e3" },
    target: { origin: "https://shop.example", tabId: 7, element: 'button "Pay now"' },
    tabOwner: "your active tab",
    sharesTab: true,
  });
  const li = approvalCard(approval, new Map(), controller);
  const heading = byClass(li, "card-title")[0];
  assert.equal(li.getAttribute("aria-labelledby"), heading.id);
  assert.match(heading.textContent, /^Click the button “Pay now” on shop\.example.*\?$/);
  assert.equal(byName(li, "Whose tab this is").textContent, "This is your active tab, not one of this thread's. Allowing shares it with this thread.");
  for (const name of ["Allow once", "Deny"]) assert.equal(byName(li, name).tagName, "BUTTON");
});

// ---- a turn's timeline (issue 30) ----

import { decisionMark, frameName, skipWords, SKIP_WORDS, timelineOf } from "../src/panel/views/frame-words.js";
import { markShapes } from "../src/panel/views/timeline.js";
import { blobOf, bytesOf, EXPORT_FORMATS } from "../src/panel/exports.js";

/** @param {string} id @param {"before" | "after"} phase @param {Record<string, unknown>} [more] */
const frame = (id, phase, more = {}) => ({ id, phase, width: 400, height: 300, url: "https://shop.example/cart", capturedAt: "2026-12-04T15:00:00.000Z", ...more });
const target = { origin: "https://shop.example", tabId: 4, element: 'button "Pay"' };

test("timelineOf: frames in order, numbered, a before frame first; denied and uncaptured calls as gaps", () => {
  const calls = [
    call({ id: "c1", status: "succeeded", target, frames: [frame("f1", "before"), frame("f2", "after")] }),
    call({ id: "c2", status: "denied", target }),
    call({ id: "c3", status: "succeeded", target, frameSkipped: "background" }),
    call({ id: "c4", status: "succeeded", target, frames: [frame("f3", "after")] }),
    call({ id: "c5", status: "succeeded", target, frameSkipped: "disabled" }),
  ];
  const entries = timelineOf(/** @type {any} */ (calls));
  assert.deepEqual(entries.map((e) => [e.call.id, e.frame?.id ?? null, e.n ?? null]), [
    ["c1", "f1", 1], ["c1", "f2", 2], ["c2", null, null], ["c3", null, null], ["c4", "f3", 3],
  ]);
  assert.equal(frameName(entries[0]), "Frame 1: Before clicking the button “Pay” on shop.example");
  assert.equal(frameName(entries[1]), "Frame 2: Clicked the button “Pay” on shop.example");
  // no frame at all: no timeline (the cards say why)
  assert.deepEqual(timelineOf(/** @type {any} */ ([calls[1], calls[2]])), []);
});

test("decisionMark and skipWords: in words, never a colour alone", () => {
  const decisions = new Map([["c1", "allow"], ["c2", "asked"], ["c3", "deny"]]);
  assert.equal(decisionMark(/** @type {any} */ (call({ id: "c1", status: "succeeded" })), decisions), "Approved");
  assert.equal(decisionMark(/** @type {any} */ (call({ id: "c2", status: "running" })), decisions), "Asked for approval");
  assert.equal(decisionMark(/** @type {any} */ (call({ id: "c3", status: "failed" })), decisions), "Denied");
  assert.equal(decisionMark(/** @type {any} */ (call({ id: "c4", status: "denied" })), decisions), "Denied");
  assert.equal(decisionMark(/** @type {any} */ (call({ id: "c5", status: "uncertain" })), decisions), "Outcome unknown");
  assert.equal(decisionMark(/** @type {any} */ (call({ id: "c6", status: "succeeded" })), decisions), null);
  assert.equal(decisionMark(/** @type {any} */ (call({ id: "c7", status: "succeeded", allowedBy: "grant" })), decisions), "Allowed by your earlier decision");
  assert.equal(decisionMark(/** @type {any} */ (call({ id: "c8", status: "succeeded", allowedBy: "policy" })), decisions), "Allowed by a policy rule");
  assert.equal(skipWords(/** @type {any} */ (call({ frameSkipped: "background" }))), "Not captured: the tab was in the background");
  assert.equal(skipWords(/** @type {any} */ (call({ frameSkipped: "private", frames: [frame("f", "before")] }))), null);
  assert.equal(Object.keys(SKIP_WORDS).length, 6);
});

test("a call not captured says why on its card", () => {
  const card = shown(call({ status: "succeeded", result: { content: "ok", isError: false }, target, frameSkipped: "not_allowed" }));
  assert.equal(byClass(card, "frame-skipped")[0].textContent, "Not captured: Chrome does not let extensions capture this page");
});

test("markShapes: a circle at a point, a rectangle around a box, in image pixels; nothing without a mark", () => {
  const point = markShapes(/** @type {any} */ (frame("f", "after", { mark: { kind: "point", x: 40, y: 30 } })));
  assert.deepEqual(point.map((s) => [s.tagName.toLowerCase(), s.getAttribute("cx"), s.getAttribute("cy")]), [["circle", "40", "30"], ["circle", "40", "30"]]);
  const box = markShapes(/** @type {any} */ (frame("f", "after", { mark: { kind: "box", x: 10, y: 20, width: 100, height: 24 } })));
  assert.deepEqual([box[1].getAttribute("x"), box[1].getAttribute("y"), box[1].getAttribute("width"), box[1].getAttribute("height")], ["10", "20", "100", "24"]);
  assert.deepEqual(markShapes(/** @type {any} */ (frame("f", "after"))), []);
});

test("exports: the four formats by name; base64 data as bytes, text as text", async () => {
  assert.deepEqual(EXPORT_FORMATS.map(([, name]) => name), ["Report (HTML)", "Animation (GIF)", "Data (JSON)", "Transcript (Markdown)"]);
  assert.deepEqual([...bytesOf("R0lGOA==")], [71, 73, 70, 56]);
  const gif = blobOf({ fileName: "t.gif", mime: "image/gif", data: "R0lGOA==" });
  assert.equal(gif.type, "image/gif");
  assert.deepEqual([...new Uint8Array(await gif.arrayBuffer())], [71, 73, 70, 56]);
  assert.equal(await blobOf({ fileName: "t.md", mime: "text/markdown", text: "# Hi" }).text(), "# Hi");
});

test("usage in words names the reasoning part of the output, when there is one", async () => {
  const { usageWords } = await import("../src/panel/dom.js");
  assert.equal(usageWords({ inputTokens: 53, outputTokens: 469, reasoningTokens: 448 }), "53 in · 469 out (448 reasoning)");
  assert.equal(usageWords({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 90, reasoningTokens: 0 }), "10 in · 5 out · 90 cache");
});
