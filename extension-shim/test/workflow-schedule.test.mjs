// The worker's scheduled workflows: due runs started in their thread, missed runs only
// reported, the alarm armed at the next due time, outcomes said in notifications.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ALARM, WorkflowScheduler, missedWords, outcomeWords } from "../src/workflow-schedule.js";

function fakes(answers) {
  const sent = [];
  const alarms = { created: [], cleared: [], create(name, info) { this.created.push([name, info]); }, clear(name) { this.cleared.push(name); } };
  const notifications = { shown: [], create(id, options) { this.shown.push([id, options.message]); } };
  const link = {
    send(method, params) {
      sent.push([method, params]);
      const answer = answers[method];
      return { id: sent.length, done: answer instanceof Error ? Promise.reject(answer) : Promise.resolve(typeof answer === "function" ? answer(params) : answer) };
    },
  };
  let n = 0;
  const scheduler = new WorkflowScheduler({ link, alarms, notifications, now: () => 1_000_000, newId: () => `c${++n}` });
  return { scheduler, sent, alarms, notifications };
}

test("what is due runs in its thread on schedule; what was missed is reported, never run", async () => {
  const { scheduler, sent, alarms, notifications } = fakes({
    "workflow.due": {
      due: [{ workflowId: "w1", name: "Order lamps", threadId: "t1", dueAt: "2026-12-04T08:00:00Z" }, { workflowId: "w2", name: "Check prices", threadId: null, dueAt: "2026-12-04T08:00:00Z" }],
      missed: [{ workflowId: "w3", name: "Weekly report", count: 3, firstAt: "2026-12-01T08:00:00Z", lastAt: "2026-12-03T08:00:00Z" }],
      nextDueAt: "2026-12-05T08:00:00Z",
    },
    "workflow.run": (params) => ({ threadId: params.threadId ?? "t2", turnId: `u-${params.workflowId}` }),
  });
  await scheduler.check();
  assert.deepEqual(sent.map(([m]) => m), ["workflow.due", "workflow.run", "workflow.run"]);
  assert.deepEqual(sent[0][1], { commandId: "c1", now: 1_000_000 });
  assert.deepEqual(sent[1][1], { commandId: "c2", workflowId: "w1", trigger: "schedule", threadId: "t1" });
  assert.deepEqual(sent[2][1], { commandId: "c3", workflowId: "w2", trigger: "schedule" });
  assert.equal(sent.filter(([m, p]) => m === "workflow.run" && p.workflowId === "w3").length, 0);
  assert.deepEqual(notifications.shown, [["panelot-missed-w3-2026-12-03T08:00:00Z", "3 runs of “Weekly report” were missed while the browser was closed; they were not run afterwards."]]);
  assert.deepEqual(alarms.created, [[ALARM, { when: Date.parse("2026-12-05T08:00:00Z") }]]);

  scheduler.onEvent("approval.request", { threadId: "t1", requestId: "r1" });
  scheduler.onEvent("turn.complete", { threadId: "t1", turnId: "u-w1", status: "completed" });
  scheduler.onEvent("turn.complete", { threadId: "t2", turnId: "u-w2", status: "failed", error: { kind: "provider_error", message: "The shop did not answer" } });
  scheduler.onEvent("turn.complete", { threadId: "t9", turnId: "x", status: "completed" }); // not a scheduled run
  assert.deepEqual(notifications.shown.slice(1).map(([, m]) => m), [
    "“Order lamps” asks for your approval. Open Panelot to answer.",
    "“Order lamps” ran on schedule and finished.",
    "“Check prices” failed: The shop did not answer.",
  ]);
  assert.equal(scheduler.running.size, 0);
});

test("nothing scheduled clears the alarm; a due time already past is armed a second ahead", async () => {
  const none = fakes({ "workflow.due": { due: [], missed: [], nextDueAt: null } });
  await none.scheduler.check();
  assert.deepEqual(none.alarms.cleared, [ALARM]);
  const past = fakes({ "workflow.schedule.list": { schedules: [], nextDueAt: new Date(500_000).toISOString() } });
  await past.scheduler.rearm();
  assert.deepEqual(past.alarms.created, [[ALARM, { when: 1_001_000 }]]);
});

test("a run that cannot start is a notification; one check runs at a time", async () => {
  const { scheduler, sent, notifications } = fakes({
    "workflow.due": { due: [{ workflowId: "w1", name: "Order lamps", threadId: null, dueAt: "d" }], missed: [], nextDueAt: null },
    "workflow.run": new Error("The Panelot host is not connected."),
  });
  await Promise.all([scheduler.check(), scheduler.check()]);
  assert.equal(sent.filter(([m]) => m === "workflow.due").length, 1);
  assert.deepEqual(notifications.shown.map(([, m]) => m), ["“Order lamps” could not start on schedule: The Panelot host is not connected."]);
});

test("the words", () => {
  assert.equal(missedWords({ workflowId: "w", name: "X", count: 1, firstAt: "a", lastAt: "a" }), "1 run of “X” was missed while the browser was closed; it was not run afterwards.");
  assert.equal(outcomeWords("X", "turn.paused", { reason: "needs_model" }), "“X” paused: it needs a model to continue where the page changed. Open Panelot to continue.");
  assert.equal(outcomeWords("X", "turn.complete", { status: "interrupted" }), "“X” was stopped.");
  const denied = { status: "completed", workflow: { workflowId: "w", deniedAt: 2, divergedAt: null, handedOver: false } };
  assert.equal(outcomeWords("X", "turn.complete", denied), "“X” stopped at step 3: its call was denied, so the steps after it were not done.");
  const handed = { status: "completed", workflow: { workflowId: "w", divergedAt: 1, handedOver: true } };
  assert.equal(outcomeWords("X", "turn.complete", handed), "“X” ran on schedule and finished; the page had changed at step 2, so the model did the rest.");
  assert.equal(outcomeWords("X", "turn.complete", { status: "completed", workflow: { workflowId: "w", replayedSteps: [0, 1] } }), "“X” ran on schedule and finished.");
});
