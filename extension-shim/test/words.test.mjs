// The panel's words for people: actions in three tenses, grants, failures and their fixes.
import { test } from "node:test";
import assert from "node:assert/strict";

import { actionWords, tabOwnerWords } from "../src/panel/views/action-words.js";
import { grantWords } from "../src/panel/views/rule-words.js";
import { providerFix } from "../src/panel/views/error-words.js";
import { failureReason } from "../src/panel/views/result-words.js";

const target = { origin: "https://shop.example", tabId: 7, title: "Cart", element: 'button "Pay now"' };

test("an action reads as a question, as what is happening, and as what happened", () => {
  const say = (tense) => actionWords(tense, "browser_click", "Click", { ref: "e3" }, target);
  assert.equal(say("ask"), "Click the button “Pay now” on shop.example, in the tab “Cart”");
  assert.equal(say("doing"), "Clicking the button “Pay now” on shop.example");
  assert.equal(say("done"), "Clicked the button “Pay now” on shop.example");
});

test("typing names the text it will type, and once done only how much (it may be a secret)", () => {
  const args = { ref: "e4", text: "hunter2", submit: true };
  const field = { ...target, element: 'textbox "Password"' };
  assert.match(actionWords("ask", "browser_type", "Type text", args, field), /^Type “hunter2” into the textbox “Password”/);
  const done = actionWords("done", "browser_type", "Type text", args, field);
  assert.equal(done, "Typed 7 characters into the textbox “Password” on shop.example and pressed Enter");
  assert.ok(!done.includes("hunter2"));
});

test("an http site keeps its scheme, and a ref without a snapshot line is named as it is", () => {
  const plain = { origin: "http://127.0.0.1:8080", tabId: 1 };
  assert.equal(actionWords("done", "browser_hover", "Point at", { ref: "e9" }, plain), "Pointed at the element e9 on http://127.0.0.1:8080");
});

test("an unknown tool falls back on its label", () => {
  assert.equal(actionWords("doing", "mcp_weather", "Weather", {}, {}), "Weather…");
});

test("a grant reads as what it allows and where", () => {
  assert.equal(grantWords({ decision: "allow", tool: "browser_navigate", scope: "origin", origin: "https://shop.example" }), "Allowed: Open pages, on shop.example");
  assert.equal(grantWords({ decision: "allow", tool: "browser_double_click", scope: "thread" }), "Allowed: Click on pages, in one thread");
  assert.equal(grantWords({ decision: "allow", tool: "mcp_x", scope: "global" }), "Allowed: the tool “mcp_x”, everywhere");
});

test("a provider's refusal leads to the setting that fixes it", () => {
  assert.equal(providerFix("Anthropic returned HTTP 400: max_tokens: must be positive").field, "setting-output-limit");
  assert.equal(providerFix("prompt is too long: 250000 tokens").field, "setting-context-window");
  assert.equal(providerFix("HTTP 401: invalid x-api-key").field, "setting-api-key");
  assert.equal(providerFix("model: claude-9 not found").field, "setting-model");
  assert.deepEqual(providerFix("HTTP 500 overloaded").field, null);
});

test("a failure's reason drops the model's tags, the tool's name and the tab's state", () => {
  const raw = '<untrusted-page-content>\nbrowser_click: ref "e999" is not in the latest snapshot. Take a new one. Tab 817541303 is at http://x/ (origin http://x)\n</untrusted-page-content>';
  assert.equal(failureReason(raw), 'Ref "e999" is not in the latest snapshot.');
});

test("an approval on a tab the thread does not own says whose tab it is, and that allowing shares it", () => {
  const approval = { tool: { name: "browser_click", label: "Click", level: 1, effects: [] }, args: { ref: "e3" }, target };
  assert.equal(tabOwnerWords(approval), null);
  assert.equal(tabOwnerWords({ ...approval, tabOwner: "your active tab", sharesTab: true }), "This is your active tab, not one of this thread's. Allowing shares it with this thread.");
  assert.equal(tabOwnerWords({ ...approval, tabOwner: "a tab of the thread “Taxes”" }), "This is a tab of the thread “Taxes”, not one of this thread's.");
});
