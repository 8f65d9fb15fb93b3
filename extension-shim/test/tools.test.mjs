// Unit tests of the browser tools' pure parts: the snapshot diff, key combinations, the
// ref registry's validity rules, trusted key events. The tools themselves run in real
// Chromium in tests/e2e/test_tools_*.py.

import assert from "node:assert/strict";
import test from "node:test";

import { parseKey } from "../src/page/keys.js";
import { RefRegistry, StaleRef } from "../src/page/refs.js";
import { trustedKey } from "../src/tools/debugger.js";
import { diffLines } from "../src/tools/page-tools.js";
import { settle } from "../src/tools/watch.js";

test("diffLines: lines new and gone as multisets, indentation ignored", () => {
  const before = ["- main [e1]", '  - button "Save" [e2]', '  - link "A" [e3]', '  - link "A" [e3]'];
  const after = ["- main [e1]", '    - button "Save" [e2 disabled]', '  - link "A" [e3]'];
  assert.deepEqual(diffLines(before, after), {
    added: ['- button "Save" [e2 disabled]'],
    removed: ['- button "Save" [e2]', '- link "A" [e3]'],
  });
  assert.deepEqual(diffLines(after, after), { added: [], removed: [] });
});

test("parseKey: modifiers, names and mistakes", () => {
  assert.deepEqual(parseKey("Control+Shift+A"), { key: "A", ctrlKey: true, shiftKey: true, altKey: false, metaKey: false });
  assert.deepEqual(parseKey("Enter"), { key: "Enter", ctrlKey: false, shiftKey: false, altKey: false, metaKey: false });
  assert.equal(parseKey("Space").key, " ");
  assert.equal(parseKey("Control++").key, "+");
  assert.match(/** @type {string} */ (parseKey("Hyper+X")), /unknown modifier hyper/);
});

test("RefRegistry: refs are stable per element, valid only in the latest snapshot", () => {
  const refs = new RefRegistry();
  const a = /** @type {any} */ ({ isConnected: true });
  const b = /** @type {any} */ ({ isConnected: true });
  assert.throws(() => refs.resolve("e1"), (e) => e instanceof StaleRef && /no snapshot of this page/.test(e.message));
  refs.beginSnapshot();
  assert.equal(refs.issue(a), "e1");
  assert.equal(refs.issue(b), "e2");
  assert.equal(refs.resolve("e2"), b);
  refs.beginSnapshot();
  assert.equal(refs.issue(a), "e1"); // the same element keeps its ref
  assert.throws(() => refs.resolve("e2"), /not in the latest snapshot.*take a new snapshot/);
  assert.throws(() => refs.resolve("e77"), /not in the latest snapshot/);
  a.isConnected = false;
  assert.throws(() => refs.resolve("e1"), /no longer on the page/);
});

test("trustedKey: key codes, text only for plain printable keys, modifiers as bits", async () => {
  /** @type {any[]} */
  const sent = [];
  const send = async (/** @type {string} */ method, /** @type {any} */ params) => void sent.push({ method, ...params });
  await trustedKey(send, { key: "Enter", ctrlKey: false, shiftKey: false, altKey: false, metaKey: false });
  await trustedKey(send, { key: "a", ctrlKey: true, shiftKey: false, altKey: false, metaKey: false });
  assert.deepEqual(
    sent.map((e) => [e.type, e.key, e.windowsVirtualKeyCode, e.text, e.modifiers]),
    [
      ["keyDown", "Enter", 13, "\r", 0],
      ["keyUp", "Enter", 13, undefined, 0],
      ["rawKeyDown", "a", 65, undefined, 2],
      ["keyUp", "a", 65, undefined, 2],
    ],
  );
  await assert.rejects(trustedKey(send, { key: "Hyperspace", ctrlKey: false, shiftKey: false, altKey: false, metaKey: false }), /unknown key/);
});

/** A fake chrome.debugger that records attach/detach and can fail a command. */
function fakeDebugger() {
  /** @type {string[]} */
  const calls = [];
  globalThis.chrome = /** @type {any} */ ({
    ...globalThis.chrome,
    debugger: {
      attach: async (/** @type {any} */ target) => void calls.push(`attach ${target.tabId}`),
      detach: async (/** @type {any} */ target) => void calls.push(`detach ${target.tabId}`),
      sendCommand: async (/** @type {any} */ target, /** @type {string} */ method) => {
        calls.push(`${method} ${target.tabId}`);
        if (method === "Boom") throw new Error("boom");
        return {};
      },
    },
  });
  return calls;
}

test("DebuggerSessions: one attachment per call, detached after it even when it fails", async () => {
  const { DebuggerSessions } = await import("../src/tools/debugger.js");
  const calls = fakeDebugger();
  const sessions = new DebuggerSessions();
  const signal = new AbortController().signal;
  await sessions.with(7, { signal }, (send) => send("Page.getLayoutMetrics"));
  await assert.rejects(sessions.with(7, { signal }, (send) => send("Boom")), /Boom failed: boom/);
  assert.deepEqual(calls, ["attach 7", "Page.getLayoutMetrics 7", "detach 7", "attach 7", "Boom 7", "detach 7"]);
  assert.equal(sessions.attached.size, 0);
});

test("DebuggerSessions: browser.detach of a Turn releases what its cancelled calls still hold, not another thread's", async () => {
  const { DebuggerSessions } = await import("../src/tools/debugger.js");
  const calls = fakeDebugger();
  const sessions = new DebuggerSessions();
  /** @type {() => void} */
  let release = () => {};
  const held = new Promise((resolve) => (release = () => resolve(undefined)));
  const signal = new AbortController().signal;
  const mine = sessions.with(3, { signal, turn: { threadId: "th_a", turnId: "tu_1" } }, async () => held);
  const theirs = sessions.with(4, { signal, turn: { threadId: "th_b", turnId: "tu_9" } }, async () => held);
  const earlier = sessions.with(5, { signal, turn: { threadId: "th_a", turnId: "tu_0" } }, async () => held);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual([...sessions.attached.keys()], [3, 4, 5]);
  await sessions.releaseTurn("th_a", "tu_1"); // the host's browser.detach, while the calls still run
  assert.deepEqual(calls, ["attach 3", "attach 4", "attach 5", "detach 3"]);
  assert.deepEqual([...sessions.attached.keys()], [4, 5]);
  release();
  await Promise.all([mine, theirs, earlier]); // each call's own finally detaches what is left
  assert.deepEqual(calls, ["attach 3", "attach 4", "attach 5", "detach 3", "detach 4", "detach 5"]);
});

test("DebuggerSessions: a call whose host named no Turn is released by any browser.detach", async () => {
  const { DebuggerSessions } = await import("../src/tools/debugger.js");
  const calls = fakeDebugger();
  const sessions = new DebuggerSessions();
  /** @type {() => void} */
  let release = () => {};
  const held = new Promise((resolve) => (release = () => resolve(undefined)));
  const running = sessions.with(3, { signal: new AbortController().signal }, async () => held);
  await new Promise((resolve) => setTimeout(resolve, 0));
  await sessions.releaseTurn("th_a", "tu_1");
  assert.deepEqual(calls, ["attach 3", "detach 3"]);
  release();
  await running; // its own finally finds nothing left to detach
  assert.deepEqual(calls, ["attach 3", "detach 3"]);
});

test("settle: waits as long as it is told for a load to start, and a download ends the wait", async () => {
  const signal = new AbortController().signal;
  const watch = () => ({ seen: { loading: false, complete: false, removed: false }, downloads: /** @type {any[]} */ ([]) });
  const late = watch();
  setTimeout(() => Object.assign(late.seen, { loading: true }), 300); // a load the tab reports late
  setTimeout(() => Object.assign(late.seen, { complete: true }), 350);
  assert.equal(await settle(late, signal, 150, 5_000), false); // the short window misses it
  const told = watch();
  setTimeout(() => Object.assign(told.seen, { loading: true }), 300);
  setTimeout(() => Object.assign(told.seen, { complete: true }), 350);
  assert.equal(await settle(told, signal, 3_000, 5_000), true); // told the page is leaving: seen
  assert.equal(told.seen.complete, true);
  const download = watch();
  setTimeout(() => download.downloads.push({ url: "u", filename: "f", mime: "text/csv" }), 50);
  const started = Date.now();
  assert.equal(await settle(download, signal, 3_000, 5_000), false);
  assert.ok(Date.now() - started < 1_000);
});

test("watchTab: a download from a page of another origin is another tab's, one without a referrer counts", async () => {
  const { watchTab } = await import("../src/tools/watch.js");
  /** @type {Array<(item: any) => void>} */
  const created = [];
  const event = () => ({ addListener: () => {}, removeListener: () => {} });
  globalThis.chrome = /** @type {any} */ ({
    ...globalThis.chrome,
    tabs: { onUpdated: event(), onRemoved: event() },
    downloads: { onCreated: { addListener: (/** @type {any} */ f) => created.push(f), removeListener: () => {} } },
  });
  const watch = watchTab(4, "https://shop.example");
  for (const [id, referrer] of [[1, "https://shop.example/cart"], [2, "https://bank.example/"], [3, ""]]) {
    for (const listener of created) listener({ id, url: `https://files.example/${id}`, referrer, mime: "text/csv" });
  }
  watch.stop();
  assert.deepEqual(watch.downloads.map((d) => d.id), [1, 3]);
});
