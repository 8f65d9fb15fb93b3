// One browser-tool contract: the extension's tool table runs exactly the tools the host
// declares in schema/browser-tools.json (tsc already refuses a name the host does not know;
// this also finds a declared tool no handler runs).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import test from "node:test";

import { FakeEvent } from "./fakes.mjs";

test("the tool table runs every tool the host declares, and no other", async () => {
  globalThis.chrome = /** @type {any} */ ({
    runtime: { id: "fgopaapjpackdnagfgbbdlkanlmcoohh", lastError: undefined },
    tabs: { onRemoved: new FakeEvent(), onUpdated: new FakeEvent() },
    debugger: { onDetach: new FakeEvent(), onEvent: new FakeEvent() },
    downloads: { onCreated: new FakeEvent(), onChanged: new FakeEvent() },
  });
  const { createToolTable } = await import("../src/tools/catalog.js");
  const { StagedUploads } = await import("../src/tools/uploads.js");
  const table = createToolTable("chrome-extension://fgopaapjpackdnagfgbbdlkanlmcoohh", new StagedUploads());
  const declared = Object.keys(JSON.parse(await readFile(new URL("../../schema/browser-tools.json", import.meta.url), "utf8")).tools);
  assert.deepEqual([...table.tools.keys()].sort(), [...declared].sort());
});
