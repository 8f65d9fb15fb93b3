// Unit tests of the worker's relay pieces with fake Ports (node --test): the browser
// behaviour itself is proven end to end in tests/e2e/.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { causeOfDisconnect } from "../src/causes.js";
import { ChunkAssembler, ChunkError } from "../src/chunks.js";
import { HOST_UNAVAILABLE, HostLink, TIMEOUT } from "../src/host-link.js";
import { Relay } from "../src/relay.js";
import { Shim } from "../src/shim.js";
import { ToolTable } from "../src/tools/table.js";
import { FakePort, installChrome, tick } from "./fakes.mjs";

beforeEach(installChrome);

function linkWith(options = {}) {
  const native = new FakePort("native");
  const statuses = [];
  const notifications = [];
  const link = new HostLink({
    initializeParams: async () => ({ protocolVersion: 1, client: { name: "t", version: "0", profileId: "p1" }, capabilities: { browserTools: [] } }),
    onRequest: options.onRequest ?? (() => {}),
    onNotification: options.onNotification ?? ((method, params) => notifications.push([method, params])),
    onStatus: (status) => statuses.push(status),
    connectNative: () => native,
  });
  return { link, native, statuses, notifications };
}

/** Close the native Port and stop the reconnect timer (so no timer keeps node alive). */
function close(link, native) {
  native.onDisconnect.fire();
  clearTimeout(link.retryTimer);
}

/** Connect and answer initialize. */
async function ready(link, native) {
  const connected = link.connect();
  await tick();
  const init = native.posted.find((m) => m.method === "initialize");
  native.onMessage.fire({ jsonrpc: "2.0", id: init.id, result: { protocolVersion: 1, engine: { name: "panelot-host", version: "x" }, capabilities: { browserTools: [] } } });
  await connected;
}

test("chunks are reassembled in index order, whatever order they come in", () => {
  const chunks = new ChunkAssembler();
  assert.equal(chunks.accept({ chunkId: "a", index: 1, count: 3, data: "b" }), null);
  assert.equal(chunks.accept({ chunkId: "z", index: 0, count: 2, data: "other" }), null);
  assert.equal(chunks.accept({ chunkId: "a", index: 0, count: 3, data: "a" }), null);
  assert.equal(chunks.accept({ chunkId: "a", index: 2, count: 3, data: "c" }), "abc");
  assert.equal(chunks.open.size, 1);
  assert.throws(() => chunks.accept({ chunkId: "z", index: 0, count: 2, data: "again" }), ChunkError);
  assert.throws(() => chunks.accept({ chunkId: "q", index: 2, count: 2, data: "" }), ChunkError);
  assert.equal(chunks.open.size, 0);
});

test("two panels with the same request ids never collide; answers out of order find their panel", async () => {
  const { link, native } = linkWith();
  const relay = new Relay(link);
  await ready(link, native);
  const [a, b] = [new FakePort(), new FakePort()];
  relay.attach(a);
  relay.attach(b);
  a.onMessage.fire({ jsonrpc: "2.0", id: 1, method: "thread.list", params: {} });
  b.onMessage.fire({ jsonrpc: "2.0", id: 1, method: "thread.list", params: { query: "b" } });
  await tick();
  const sent = native.posted.filter((m) => m.method === "thread.list");
  assert.equal(sent.length, 2);
  assert.notEqual(sent[0].id, sent[1].id);
  // the host answers the second first
  native.onMessage.fire({ jsonrpc: "2.0", id: sent[1].id, result: { threads: ["for b"] } });
  native.onMessage.fire({ jsonrpc: "2.0", id: sent[0].id, result: { threads: ["for a"] } });
  await tick();
  assert.deepEqual(a.posted.filter((m) => m.id === 1).map((m) => m.result.threads), [["for a"]]);
  assert.deepEqual(b.posted.filter((m) => m.id === 1).map((m) => m.result.threads), [["for b"]]);
  assert.deepEqual(relay.stats().inflight, 0);
  close(link, native);
});

test("thread events go to the panels that named the thread; thread.updated to all", async () => {
  const { link, native } = linkWith();
  const relay = new Relay(link);
  await ready(link, native);
  const [a, b] = [new FakePort(), new FakePort()];
  relay.attach(a);
  relay.attach(b);
  a.onMessage.fire({ jsonrpc: "2.0", id: 1, method: "thread.open", params: { threadId: "t1" } });
  b.onMessage.fire({ jsonrpc: "2.0", id: 1, method: "thread.open", params: { threadId: "t2" } });
  await tick();
  relay.fromHost("item.delta", { threadId: "t1", seq: 3, delta: { text: "x" } });
  relay.fromHost("thread.updated", { threadId: "t2", seq: 4, thread: { id: "t2" } });
  const events = (port) => port.posted.filter((m) => m.method && m.method !== "$/host.status").map((m) => m.method);
  assert.deepEqual(events(a), ["item.delta", "thread.updated"]);
  assert.deepEqual(events(b), ["thread.updated"]);
  a.onMessage.fire({ jsonrpc: "2.0", method: "$/unsubscribe", params: { threadId: "t1" } });
  relay.fromHost("item.delta", { threadId: "t1", seq: 5, delta: { text: "y" } });
  assert.deepEqual(events(a), ["item.delta", "thread.updated"]);
  close(link, native);
});

test("a panel's $/cancelRequest reaches the host under the host's id", async () => {
  const { link, native } = linkWith();
  const relay = new Relay(link);
  await ready(link, native);
  const panel = new FakePort();
  relay.attach(panel);
  panel.onMessage.fire({ jsonrpc: "2.0", id: "p-7", method: "turn.interrupt", params: { threadId: "t" } });
  await tick();
  const forwarded = native.posted.find((m) => m.method === "turn.interrupt");
  panel.onMessage.fire({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: "p-7" } });
  assert.deepEqual(native.posted.at(-1), { jsonrpc: "2.0", method: "$/cancelRequest", params: { id: forwarded.id } });
  close(link, native);
  await tick();
  assert.equal(panel.posted.find((m) => m.id === "p-7").error.code, HOST_UNAVAILABLE);
});

test("a request the host never answers is answered with a timeout error", async () => {
  const { link, native } = linkWith();
  await ready(link, native);
  await assert.rejects(link.request("thread.list", {}, 20), (error) => error.rpc.code === TIMEOUT && /did not answer thread.list/.test(error.message));
  assert.equal(link.stats().pending, 0);
  close(link, native);
});

test("a closed Port fails what waits with the cause in words, and reconnects with backoff", async () => {
  const { link, native, statuses } = linkWith();
  await ready(link, native);
  const waiting = link.request("thread.list", {}, 10_000);
  globalThis.chrome.runtime.lastError = { message: "Native host has exited." };
  native.onDisconnect.fire();
  globalThis.chrome.runtime.lastError = undefined;
  await assert.rejects(waiting, (error) => error.rpc.code === HOST_UNAVAILABLE && error.rpc.data.cause === "host_exited");
  const down = statuses.at(-1);
  assert.equal(down.state, "disconnected");
  assert.match(down.cause.message, /stopped unexpectedly/);
  assert.match(down.cause.details, /PANELOT_HOME\/logs/);
  assert.deepEqual(down.cause.commands.slice(0, 1), ["panelot-host logs"]);
  assert.equal(down.retryInMs, 500);
  // while waiting for the retry, requests fail at once with the cause
  await assert.rejects(link.connect(), (error) => error.rpc.code === HOST_UNAVAILABLE);
  clearTimeout(link.retryTimer);
});

test("the host's $/chunk parts become one message before anyone sees it", async () => {
  const { link, native, notifications } = linkWith();
  await ready(link, native);
  const whole = JSON.stringify({ jsonrpc: "2.0", method: "item.started", params: { threadId: "t", seq: 1, text: "é".repeat(10) } });
  const cut = [whole.slice(0, 7), whole.slice(7, 30), whole.slice(30)];
  cut.forEach((data, index) => native.onMessage.fire({ jsonrpc: "2.0", method: "$/chunk", params: { chunkId: "c1", index, count: 3, data } }));
  assert.deepEqual(notifications, [["item.started", JSON.parse(whole).params]]);
  assert.equal(link.stats().reassembled, 1);
  close(link, native);
});

test("Chrome's messages map to causes a user can act on", () => {
  const id = "fgopaapjpackdnagfgbbdlkanlmcoohh";
  assert.equal(causeOfDisconnect("Specified native messaging host not found.", id).code, "host_not_found");
  const forbidden = causeOfDisconnect("Access to the specified native messaging host is forbidden.", id);
  assert.equal(forbidden.code, "forbidden");
  assert.match(forbidden.details, new RegExp(`chrome-extension://${id}/`));
  assert.deepEqual(forbidden.commands, [`panelot-host install --extension-id ${id}`]);
  assert.doesNotMatch(`${forbidden.headline} ${forbidden.message} ${forbidden.fix}`, /allowed_origins|chrome-extension|`/);
  assert.equal(causeOfDisconnect("Error when communicating with the native messaging host.", id).code, "communication");
  assert.equal(causeOfDisconnect(undefined, id).code, "unknown");
});

test("$/cancelRequest aborts a running tool and answers cancelled at once", async () => {
  const table = new ToolTable("chrome-extension://x");
  let aborted = false;
  table.register({
    name: "browser_wait_for",
    pageAccess: false,
    run: (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => {
      aborted = true;
      reject(ctx.signal.reason);
    })),
  });
  const answers = [];
  const shim = new Shim(table, (id, answer) => answers.push([id, answer]));
  const running = shim.handle({ jsonrpc: "2.0", id: 9, method: "browser.invoke", params: { callId: "c", tool: "browser_wait_for", args: {} } });
  await tick();
  shim.cancel(9);
  await running;
  assert.equal(aborted, true);
  assert.deepEqual(answers, [[9, { error: { code: -32800, message: "cancelled by the host", data: { kind: "cancelled" } } }]]);
  assert.equal(shim.stats().running, 0);
});

test("an unknown tool is a JSON-RPC error, a tool's own failure a result with isError", async () => {
  const table = new ToolTable("chrome-extension://x");
  table.register({ name: "browser_tabs_list", pageAccess: false, run: async () => { throw new Error("boom"); } });
  const answers = [];
  const shim = new Shim(table, (id, answer) => answers.push(answer));
  await shim.handle({ id: 1, method: "browser.invoke", params: { callId: "c", tool: "browser_nope", args: {} } });
  await shim.handle({ id: 2, method: "browser.invoke", params: { callId: "c", tool: "browser_tabs_list", args: {} } });
  assert.equal(answers[0].error.code, -32601);
  assert.deepEqual(answers[1].result, { content: "browser_tabs_list: boom", isError: true });
});
