// Threads that need the user (issue 26): counted from each thread's latest status, shown on
// the toolbar action's badge by the worker.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ToolbarBadge, countNeedingYou, needsYouWords } from "../src/attention.js";

/** A fake chrome.action that keeps what was set. */
function fakeAction() {
  const set = { text: undefined, title: undefined, color: undefined };
  return {
    set,
    async setBadgeText({ text }) {
      set.text = text;
    },
    async setBadgeBackgroundColor({ color }) {
      set.color = color;
    },
    async setTitle({ title }) {
      set.title = title;
    },
  };
}

test("only threads waiting for an approval or an answer count as needing the user", () => {
  const statuses = ["idle", "running", "awaiting_approval", "awaiting_answer", "budget_paused", "failed", undefined, "waiting"];
  assert.equal(countNeedingYou(statuses), 2);
  assert.equal(needsYouWords(1), "1 thread needs you");
  assert.equal(needsYouWords(3), "3 threads need you");
});

test("the toolbar badge counts the threads that need the user from their latest status", async () => {
  const action = fakeAction();
  const badge = new ToolbarBadge(action, "Open Panelot");
  await badge.seed([{ id: "a", status: "running" }, { id: "b", status: "awaiting_answer" }, { id: "c" }]);
  assert.deepEqual(action.set, { text: "1", title: "Panelot: 1 thread needs you", color: "#b3261e" });
  await badge.update({ id: "a", status: "awaiting_approval" });
  assert.equal(action.set.text, "2");
  assert.equal(action.set.title, "Panelot: 2 threads need you");
  await badge.update({ id: "b", status: "running" }); // answered
  await badge.forget("a"); // deleted while it asked
  assert.equal(action.set.text, "");
  assert.equal(action.set.title, "Open Panelot");
});

test("a restarted worker's list replaces what it knew of every thread", async () => {
  const action = fakeAction();
  const badge = new ToolbarBadge(action, "Open Panelot");
  await badge.update({ id: "gone", status: "awaiting_approval" });
  assert.equal(action.set.text, "1");
  await badge.seed([{ id: "x", status: "idle" }]);
  assert.equal(action.set.text, "");
});

test("Chrome's refusal to set the badge is logged, never thrown", async () => {
  const badge = new ToolbarBadge({ ...fakeAction(), setBadgeText: async () => { throw new Error("no"); } }, "t");
  const warn = console.warn;
  console.warn = () => {};
  try {
    await badge.update({ id: "a", status: "awaiting_approval" });
  } finally {
    console.warn = warn;
  }
});
