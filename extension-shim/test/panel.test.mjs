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
