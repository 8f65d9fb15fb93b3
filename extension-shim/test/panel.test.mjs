// Unit tests of the panel's controller with a fake client (the panel itself runs in real
// Chromium in tests/e2e/test_panel_*.py).

import assert from "node:assert/strict";
import test from "node:test";

import { Controller } from "../src/panel/controller.js";
import { Store } from "../src/panel/store.js";
import { pickSharedTab, tabCountWords } from "../src/panel/tabs.js";
import { emptySnapshot } from "./fakes.mjs";

/** @param {string} id */
const snapshot = (id) => emptySnapshot(id, "New thread");

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

test("a message carries the tab the user looks at, and Share this tab hands it to the shown thread", async () => {
  const panelPage = { id: 1, url: "chrome-extension://fgopaapjpackdnagfgbbdlkanlmcoohh/sidepanel.html", active: true, lastAccessed: 9 };
  const shop = { id: 7, url: "https://shop.example/", title: "Shop", active: false, lastAccessed: 5 };
  globalThis.chrome = /** @type {any} */ ({ runtime: { id: "fgopaapjpackdnagfgbbdlkanlmcoohh" }, tabs: { query: async () => [panelPage, shop] } });
  try {
    const tabGroup = { threadId: "thr_1", title: "New thread", color: "blue", tabs: [{ tabId: 7, url: "https://shop.example/", source: "shared" }] };
    const { client, requests } = recordingClient({ "turn.submit": { turnId: "trn_1" }, "thread.shareTab": { thread: { id: "thr_1", title: "New thread", tabGroup } } });
    const store = new Store();
    store.load(/** @type {any} */ (snapshot("thr_1")));
    const controller = new Controller(store, client);
    assert.equal(await controller.send("Compare prices"), true);
    assert.equal(await controller.shareTab(), true);
    const tab = { tabId: 7, url: "https://shop.example/", title: "Shop" };
    assert.deepEqual(requests[0][1].shareTab, tab);
    assert.equal(requests[1][0], "thread.shareTab");
    assert.deepEqual({ threadId: requests[1][1].threadId, tab: requests[1][1].tab }, { threadId: "thr_1", tab });
    assert.equal(store.state.thread?.tabGroup?.tabs?.length, 1);
  } finally {
    delete globalThis.chrome;
  }
});

test("the other threads waiting for the user are known whatever the list shows", async () => {
  const { client } = recordingClient({ "thread.list": { threads: [{ id: "a", title: "A", status: "awaiting_answer" }, { id: "b", title: "B", status: "idle" }], nextCursor: null } });
  const store = new Store();
  const controller = new Controller(store, client);
  await controller.refreshThreads();
  controller.onThreadUpdated(/** @type {any} */ ({ id: "c", title: "C", status: "awaiting_approval" }));
  assert.deepEqual([...store.state.statuses], [["a", "awaiting_answer"], ["b", "idle"], ["c", "awaiting_approval"]]);
});

const OWN = "chrome-extension://fgopaapjpackdnagfgbbdlkanlmcoohh/";

test("the shared tab is the active one of the panel's window, never the panel's own page", () => {
  const panel = { id: 1, url: `${OWN}sidepanel.html?debug`, active: true, lastAccessed: 30 };
  const shop = { id: 2, url: "https://shop.example/cart", title: "Cart", active: false, lastAccessed: 20 };
  const news = { id: 3, url: "https://news.example/", title: "News", active: false, lastAccessed: 10 };
  // the panel opened as a tab is the active one: the tab used last before it is shared
  assert.deepEqual(pickSharedTab([panel, news, shop], [panel, news, shop], OWN), { tabId: 2, url: "https://shop.example/cart", title: "Cart" });
  // Chrome's side panel is no tab: the window's active tab is the page beside it
  assert.equal(pickSharedTab([{ ...news, active: true }, shop], [], OWN)?.tabId, 3);
  // the panel alone in its window: the tab used last in any window
  assert.equal(pickSharedTab([panel], [panel, news, { ...shop, id: 9 }], OWN)?.tabId, 9);
  assert.equal(pickSharedTab([panel], [panel], OWN), null);
});

test("a thread's tabs are counted in words", () => {
  assert.equal(tabCountWords(1), "1 tab");
  assert.equal(tabCountWords(3), "3 tabs");
});
