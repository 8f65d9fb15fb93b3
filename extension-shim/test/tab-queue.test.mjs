// The per-tab line of tool calls (src/tools/tab-queue.js) and its use by the tool table:
// calls on one tab one after the other in arrival order, calls on different tabs side by side.

import assert from "node:assert/strict";
import test from "node:test";

import { TabQueue } from "../src/tools/tab-queue.js";
import { ToolTable } from "../src/tools/table.js";

/** A promise and the functions that settle it. */
function gate() {
  /** @type {(value?: any) => void} */
  let open = () => {};
  /** @type {Promise<any>} */
  const opened = new Promise((resolve) => (open = resolve));
  return { open, opened };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Work that logs its start and end, and ends when its gate opens.
 * @param {string[]} log @param {string} name
 */
function gated(log, name) {
  const { open, opened } = gate();
  const work = async () => {
    log.push(`start ${name}`);
    await opened;
    log.push(`end ${name}`);
    return name;
  };
  return { open, work };
}

test("two calls on the same tab run one after the other, in the order they came", async () => {
  const queue = new TabQueue();
  /** @type {string[]} */
  const log = [];
  const first = gated(log, "first");
  const second = gated(log, "second");
  const third = gated(log, "third");
  const never = new AbortController().signal;
  const done = [queue.run(1, never, first.work), queue.run(1, never, second.work), queue.run(1, never, third.work)];
  await tick();
  assert.deepEqual(log, ["start first"]);
  assert.equal(queue.waiting(1), 2);
  third.open(); // the last one is ready first: it still waits its turn
  second.open();
  await tick();
  assert.deepEqual(log, ["start first"]);
  first.open();
  assert.deepEqual(await Promise.all(done), ["first", "second", "third"]);
  assert.deepEqual(log, ["start first", "end first", "start second", "end second", "start third", "end third"]);
  assert.equal(queue.lines.size, 0);
});

test("calls on different tabs run side by side", async () => {
  const queue = new TabQueue();
  /** @type {string[]} */
  const log = [];
  const onOne = gated(log, "tab 1");
  const onTwo = gated(log, "tab 2");
  const never = new AbortController().signal;
  const done = [queue.run(1, never, onOne.work), queue.run(2, never, onTwo.work)];
  await tick();
  assert.deepEqual(log, ["start tab 1", "start tab 2"]);
  onTwo.open();
  assert.equal(await done[1], "tab 2");
  assert.deepEqual(log, ["start tab 1", "start tab 2", "end tab 2"]);
  onOne.open();
  await done[0];
});

test("a call aborted while it waits leaves the line without running; the next one runs", async () => {
  const queue = new TabQueue();
  /** @type {string[]} */
  const log = [];
  const first = gated(log, "first");
  const aborted = gated(log, "aborted");
  const last = gated(log, "last");
  const never = new AbortController().signal;
  const cancel = new AbortController();
  const running = queue.run(1, never, first.work);
  const waiting = queue.run(1, cancel.signal, aborted.work);
  const after = queue.run(1, never, last.work);
  await tick();
  cancel.abort(new Error("cancelled by the host"));
  await assert.rejects(waiting, /cancelled by the host/);
  assert.equal(queue.waiting(1), 1);
  aborted.open();
  last.open();
  first.open();
  await Promise.all([running, after]);
  assert.deepEqual(log, ["start first", "end first", "start last", "end last"]);
});

test("a call already aborted never takes a place; a failing call lets the next one run", async () => {
  const queue = new TabQueue();
  const cancel = new AbortController();
  cancel.abort(new Error("gone"));
  await assert.rejects(queue.run(1, cancel.signal, async () => "ran"), /gone/);
  assert.equal(queue.lines.size, 0);
  const never = new AbortController().signal;
  const failing = queue.run(1, never, async () => {
    throw new Error("boom");
  });
  const next = queue.run(1, never, async () => "next");
  await assert.rejects(failing, /boom/);
  assert.equal(await next, "next");
});

test("the tool table lines up calls by tab: same tab in turn, other tabs and tab-less calls at once", async () => {
  /** @type {string[]} */
  const log = [];
  /** @type {Map<string, () => void>} */
  const gates = new Map();
  const tool = (/** @type {any} */ name, tabless = false) => ({
    name,
    pageAccess: false,
    tabless,
    async run(/** @type {Record<string, any>} */ args) {
      const key = `${name} ${args.tabId ?? "-"} ${args.n}`;
      log.push(`start ${key}`);
      await new Promise((resolve) => gates.set(key, () => resolve(undefined)));
      log.push(`end ${key}`);
      return { content: key, isError: false };
    },
  });
  const table = new ToolTable("chrome-extension://x").register(tool("browser_scroll")).register(tool("browser_tabs_list", true));
  const never = new AbortController().signal;
  const call = (/** @type {string} */ name, /** @type {Record<string, any>} */ args, /** @type {any} */ target = null) =>
    table.invoke({ callId: "c", tool: name, args, target }, never);
  const done = [
    call("browser_scroll", { tabId: 1, n: 1 }),
    call("browser_scroll", { n: 2 }, { tabId: 1, url: "", origin: "" }), // the approved target's tab
    call("browser_scroll", { tabId: 2, n: 3 }),
    call("browser_tabs_list", { n: 4 }),
  ];
  await tick();
  assert.deepEqual(log.toSorted(), ["start browser_scroll 1 1", "start browser_scroll 2 3", "start browser_tabs_list - 4"]);
  for (const key of ["browser_scroll 2 3", "browser_tabs_list - 4", "browser_scroll 1 1"]) gates.get(key)?.();
  await tick();
  assert.ok(log.includes("start browser_scroll - 2"));
  gates.get("browser_scroll - 2")?.();
  await Promise.all(done);
  assert.ok(log.indexOf("end browser_scroll 1 1") < log.indexOf("start browser_scroll - 2"));
});
