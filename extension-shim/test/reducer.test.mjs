// The panel's state from the shown thread's events (src/panel/reducer.js through
// Store.apply): sequence gaps, deltas, pauses, the queue, cards and steering.
import assert from "node:assert/strict";
import test from "node:test";

import { Store } from "../src/panel/store.js";
import { emptySnapshot } from "./fakes.mjs";

/** A store showing thread `thr_1` at seq 0, with whatever the snapshot holds. */
function shown(more = {}) {
  const store = new Store();
  store.load(/** @type {any} */ (emptySnapshot("thr_1", "T", more)));
  /** @type {[string, string | undefined][]} */
  const emitted = [];
  for (const topic of ["item", "delta", "run", "cards", "queue", "steering"]) {
    store.on(/** @type {any} */ (topic), (detail) => emitted.push([topic, detail]));
  }
  let seq = 0;
  /** @param {string} method @param {object} params */
  const send = (method, params) => store.apply(method, { threadId: "thr_1", seq: ++seq, ...params });
  return { store, s: store.state, emitted, send, skip: () => (seq += 1) };
}

const text = (id, body) => ({ id, kind: "assistant", turnId: "trn_1", createdAt: "", text: body });

test("events apply in order; one already in the snapshot or of another thread changes nothing", () => {
  const { store, s, send } = shown();
  assert.equal(send("turn.started", { turnId: "trn_1", runId: "run_1", userItemId: "u" }), true);
  assert.deepEqual(s.turn, { id: "trn_1", status: "running", runId: "run_1" });
  assert.equal(store.apply("run.updated", { threadId: "thr_1", seq: 1, runId: "run_1", state: "executing_tool" }), true);
  assert.equal(s.run?.state, "streaming"); // seq 1 again: dropped
  assert.equal(store.apply("run.updated", { threadId: "thr_2", seq: 2, runId: "x", state: "failed" }), true);
  assert.equal(s.run?.state, "streaming");
  assert.equal(s.lastSeq, 1);
});

test("a gap in the sequence asks for a fresh snapshot and applies nothing", () => {
  const { s, send, skip } = shown();
  skip();
  assert.equal(send("turn.started", { turnId: "trn_1", runId: "run_1", userItemId: "u" }), false);
  assert.equal(s.turn, null);
  assert.equal(s.lastSeq, 0);
});

test("text and thinking deltas append; an answer started again keeps its streamed text", () => {
  const { s, send, emitted } = shown();
  send("item.started", { turnId: "trn_1", item: text("a1", "") });
  send("item.delta", { turnId: "trn_1", itemId: "a1", delta: { text: "Hel" } });
  send("item.delta", { turnId: "trn_1", itemId: "a1", delta: { text: "lo" } });
  send("item.delta", { turnId: "trn_1", itemId: "a1", delta: { thinking: "hmm" } });
  send("item.started", { turnId: "trn_1", item: text("a1", "") });
  assert.equal(s.items.get("a1")?.text, "Hello");
  assert.equal(/** @type {any} */ (s.items.get("a1")).thinking, undefined); // started again: as sent, text kept
  assert.deepEqual(emitted.filter(([t]) => t === "delta").length, 3);
  send("item.completed", { turnId: "trn_1", item: text("a1", "Hello!") });
  assert.equal(s.items.get("a1")?.text, "Hello!");
});

test("a delta for an answer the snapshot did not hold shows what follows", () => {
  const { s, send } = shown();
  send("item.delta", { turnId: "trn_1", itemId: "a9", delta: { text: "…rest" } });
  assert.equal(s.items.get("a9")?.text, "…rest");
  send("item.delta", { turnId: "trn_1", itemId: "a8", delta: { progress: "50%" } });
  assert.equal(s.items.has("a8"), false);
});

test("a tool call's progress, start and end as the panel saw them", () => {
  const { s, store } = shown();
  const call = { id: "c1", kind: "toolCall", turnId: "trn_1", createdAt: "", callId: "x", name: "browser_click", args: {}, status: "pending" };
  store.apply("item.started", { threadId: "thr_1", seq: 1, turnId: "trn_1", item: call });
  store.apply("item.updated", { threadId: "thr_1", seq: 2, turnId: "trn_1", item: { ...call, status: "running", target: { origin: "https://a.example", tabId: 3 } } });
  store.apply("item.delta", { threadId: "thr_1", seq: 3, turnId: "trn_1", itemId: "c1", delta: { progress: { step: 1 } } });
  store.apply("item.completed", { threadId: "thr_1", seq: 4, turnId: "trn_1", item: { ...call, status: "succeeded", result: { content: "ok", isError: false } } });
  assert.deepEqual(s.progress.get("c1"), { step: 1 });
  assert.equal(/** @type {any} */ (s.items.get("c1")).status, "succeeded");
  const times = s.toolTimes.get("c1");
  assert.ok(times && typeof times.endedAt === "number" && times.endedAt >= times.startedAt);
});

test("a budget pause keeps what the turn spent; the run going on resumes the turn", () => {
  const { s, send } = shown();
  send("turn.started", { turnId: "trn_1", runId: "run_1", userItemId: "u" });
  send("turn.paused", { turnId: "trn_1", reason: "budget", runId: "run_1", budgetReached: "cost", costBudgetUsd: 0.1, costUsd: 0.12 });
  assert.equal(s.turn?.status, "paused");
  assert.equal(s.turn?.budgetReached, "cost");
  assert.equal(s.turn?.costUsd, 0.12);
  assert.equal(s.run?.state, "budget_paused");
  send("run.updated", { runId: "run_1", state: "budget_paused" });
  assert.equal(s.turn?.status, "paused");
  send("run.updated", { runId: "run_1", state: "streaming" });
  assert.equal(s.turn?.status, "running");
  send("turn.complete", { turnId: "trn_1", status: "completed", usage: { inputTokens: 1, outputTokens: 2 }, costUsd: 0.2 });
  assert.equal(s.run?.state, "completed");
  assert.equal(s.turnUsage.get("trn_1")?.costUsd, 0.2);
});

test("cards come and go; the queue is replaced; an admitted steering message is no longer pending", () => {
  const { s, send, emitted } = shown({ pendingSteering: [{ id: "st1", kind: "steering", turnId: "trn_1", createdAt: "", text: "faster" }] });
  send("approval.request", { requestId: "apr_1", toolCallId: "c1", tool: { name: "browser_click", label: "Click", level: "L1", effects: [] }, args: {} });
  send("interaction.request", { interactionId: "int_1", prompt: "Which?", schema: {} });
  assert.deepEqual([s.approvals.size, s.interactions.size], [1, 1]);
  send("approval.resolved", { requestId: "apr_1", toolCallId: "c1", tool: { name: "browser_click", label: "Click", level: "L1", effects: [] }, args: {}, decision: "allow", scope: "once" });
  send("interaction.resolved", { interactionId: "int_1", prompt: "Which?", schema: {} });
  assert.deepEqual([s.approvals.size, s.interactions.size], [0, 0]);
  send("queue.updated", { queue: [{ id: "q1", text: "next" }] });
  assert.deepEqual(s.queue.map((e) => e.id), ["q1"]);
  assert.ok(s.pendingSteering.has("st1"));
  send("item.completed", { turnId: "trn_1", item: { id: "st1", kind: "steering", turnId: "trn_1", createdAt: "", text: "faster" } });
  assert.equal(s.pendingSteering.has("st1"), false);
  assert.ok(emitted.some(([t]) => t === "steering"));
  assert.ok(emitted.filter(([t]) => t === "cards").length === 4);
});
