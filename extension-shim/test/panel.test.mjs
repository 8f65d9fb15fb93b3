// Unit tests of the panel's controller with a fake client (the panel itself runs in real
// Chromium in tests/e2e/test_panel_*.py).

import assert from "node:assert/strict";
import test from "node:test";

import { Controller } from "../src/panel/controller.js";
import { Store } from "../src/panel/store.js";

/** @param {string} id */
const snapshot = (id) => ({
  thread: { id, title: "New thread" },
  lastSeq: 0,
  items: [],
  turn: null,
  run: null,
  pendingApprovals: [],
  pendingInteractions: [],
  queue: [],
  pendingSteering: [],
});

test("a message sent while a new thread is being created goes to the new thread", async () => {
  /** @type {[string, any][]} */
  const requests = [];
  /** @type {() => void} */
  let createNow = () => {};
  const created = new Promise((resolve) => (createNow = () => resolve(undefined)));
  const client = /** @type {any} */ ({
    /** @param {string} method @param {any} params */
    async request(method, params) {
      requests.push([method, params]);
      if (method === "thread.create") {
        await created;
        return { thread: { id: "thr_new", title: "New thread" } };
      }
      if (method === "thread.open") return snapshot(params.threadId);
      return { turnId: "trn_1" };
    },
    notify() {},
  });
  const store = new Store();
  store.load(/** @type {any} */ (snapshot("thr_before")));
  const controller = new Controller(store, client);
  const creating = controller.newThread(); // "New thread" clicked...
  const again = controller.newThread(); // ...twice: one thread
  const sending = controller.send("Thread C"); // ...and a message sent at once
  createNow();
  assert.equal(await creating, true);
  assert.equal(await again, true);
  assert.equal(await sending, true);
  const submitted = requests.filter(([method]) => method === "turn.submit");
  assert.deepEqual(submitted.map(([, params]) => params.threadId), ["thr_new"]);
  assert.equal(requests.filter(([method]) => method === "thread.create").length, 1);
});

/** A client that records requests and answers `answers[method]` (or `{}`). */
function recordingClient(answers = {}) {
  /** @type {[string, any][]} */
  const requests = [];
  const client = /** @type {any} */ ({
    /** @param {string} method @param {any} params */
    async request(method, params) {
      requests.push([method, params]);
      const answer = answers[method];
      return typeof answer === "function" ? answer(params) : answer ?? {};
    },
    notify() {},
  });
  return { client, requests };
}

test("Stop interrupts the shown thread's turn, never the turn of another thread running beside it", async () => {
  const { client, requests } = recordingClient();
  const store = new Store();
  const controller = new Controller(store, client);
  store.load(/** @type {any} */ ({ ...snapshot("thr_shown"), lastSeq: 3, turn: { id: "trn_shown", status: "running", usage: {}, costUsd: null } }));
  // another thread runs and asks for an approval in the background
  controller.onNotification("thread.updated", { threadId: "thr_other", seq: 9, thread: { id: "thr_other", title: "Other", status: "awaiting_approval" } });
  controller.onNotification("turn.started", { threadId: "thr_other", seq: 10, turnId: "trn_other", runId: "run_other" });
  assert.equal(store.state.turn?.id, "trn_shown");
  assert.equal(store.state.approvals.size, 0);
  await controller.stop();
  assert.deepEqual(requests, [["turn.interrupt", { threadId: "thr_shown", turnId: "trn_shown" }]]);
});

test("Stop pressed while another thread's snapshot is on its way names that thread only, not the turn shown before", async () => {
  /** @type {(value: any) => void} */
  let deliver = () => {};
  const { client, requests } = recordingClient({ "thread.open": () => new Promise((resolve) => (deliver = resolve)) });
  const store = new Store();
  const controller = new Controller(store, client);
  store.load(/** @type {any} */ ({ ...snapshot("thr_a"), turn: { id: "trn_a", status: "running", usage: {}, costUsd: null } }));
  const opening = controller.open("thr_b");
  await controller.stop();
  deliver(snapshot("thr_b"));
  await opening;
  assert.deepEqual(requests.filter(([m]) => m === "turn.interrupt"), [["turn.interrupt", { threadId: "thr_b" }]]);
});
