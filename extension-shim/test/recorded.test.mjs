// This panel against older hosts: the frames recorded from older releases
// (tests/protocol/recorded/*.jsonl, written by record.py there) read by the panel's own
// code: the worker's initialize, the About lines, and the shown thread's store, which
// applies every recorded event after the first snapshot and ends where the older host's
// last snapshot says. (The schema side of it: tests/protocol/test_recorded.py.)
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { beforeEach, test } from "node:test";

import { HostLink } from "../src/host-link.js";
import { aboutLines } from "../src/panel/views/about.js";
import { Store } from "../src/panel/store.js";
import { installChrome, linkWithFakeHost, tick } from "./fakes.mjs";

const FOLDER = new URL("../../tests/protocol/recorded/", import.meta.url);
const SESSIONS = readdirSync(FOLDER).filter((name) => name.endsWith(".jsonl")).sort();

beforeEach(installChrome);

/** @param {string} name @returns {{dir: "client" | "host", frame: any}[]} */
function framesOf(name) {
  return readFileSync(new URL(name, FOLDER), "utf-8").trim().split("\n").slice(1).map((line) => JSON.parse(line));
}

/** The host's answers to the client's requests of `method`, in order. @param {ReturnType<typeof framesOf>} frames @param {string} method */
function answersTo(frames, method) {
  const ids = new Set(frames.filter((f) => f.dir === "client" && f.frame.method === method).map((f) => f.frame.id));
  return frames.filter((f) => f.dir === "host" && !f.frame.method && ids.has(f.frame.id)).map((f) => f.frame);
}

test("sessions of older releases are recorded", () => {
  assert.ok(SESSIONS.length >= 3, SESSIONS.join(", "));
});

for (const name of SESSIONS) {
  test(`${name}: the worker connects with the older host's initialize answer`, async () => {
    const [answer] = answersTo(framesOf(name), "initialize");
    const { link, native, statuses } = linkWithFakeHost(HostLink, { protocolVersion: 1, client: { name: "t", version: "0.1.0" } });
    const connected = link.connect();
    await tick();
    const init = native.posted.find((m) => m.method === "initialize");
    native.onMessage.fire({ ...answer, id: init.id });
    const result = await connected;
    assert.equal(statuses.at(-1).state, "connected");
    assert.deepEqual(aboutLines("0.2.0", result), ["Extension 0.2.0", `Host ${answer.result.engine.version}`, "Protocol 1"]);
  });

  test(`${name}: the panel's store follows the older host's events to its last snapshot`, () => {
    const frames = framesOf(name);
    const snapshots = answersTo(frames, "thread.open").filter((a) => a.result).map((a) => a.result);
    const first = snapshots[0];
    const last = snapshots.at(-1);
    const store = new Store();
    store.load(first);
    const threadId = first.thread.id;
    const start = frames.findIndex((f) => f.frame.result === first);
    let applied = 0;
    for (const { dir, frame } of frames.slice(start + 1)) {
      if (dir !== "host" || !frame.method || frame.id !== undefined || frame.params?.threadId !== threadId) continue;
      if (frame.params.seq !== undefined && frame.params.seq <= store.state.lastSeq) continue;
      assert.equal(store.apply(frame.method, frame.params), true, `${frame.method} seq ${frame.params.seq}: a gap`);
      applied += 1;
    }
    assert.ok(applied > 10, `only ${applied} events applied`);
    assert.equal(store.state.lastSeq, last.lastSeq);
    const shown = [...store.state.items.values()].map((item) => [item.id, item.kind, item.text ?? null]);
    const stored = last.items.map((/** @type {any} */ item) => [item.id, item.kind, item.text ?? null]);
    assert.deepEqual(shown, stored);
    assert.equal(store.state.turn?.status, "completed");
  });
}
