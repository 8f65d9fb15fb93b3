// Version skew (issue 28): the refusal of a host that negotiates, and of hosts from before
// negotiation, read as which side to update and how; the worker's retry for an old host;
// the panel's About lines.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";

import { causeOfInitializeFailure } from "../src/causes.js";
import { HostLink } from "../src/host-link.js";
import { aboutLines, aboutSection } from "../src/panel/views/about.js";
import { withCode } from "../src/panel/views/banner.js";
import { DEFAULT_HOST_UPDATE, PROTOCOL_VERSIONS, retryVersion, versionParams, versionSkew } from "../src/versions.js";
import { byClass, installDom, removeDom } from "./dom-shim.mjs";
import { installChrome, linkWithFakeHost, tick } from "./fakes.mjs";

beforeEach(installChrome);
before(installDom);
after(removeDom);

const TWO_TO_THREE = { oldest: 2, newest: 3 };

/** The refusal of a host that negotiates (host/panelot_host/server/handshake.py). */
function newHostRefusal(update, command = "uv tool upgrade panelot-host") {
  return {
    code: -32602,
    message: "unsupported protocol version: the client speaks versions 2 to 3, this host 0.1.0 speaks version 1; this host is older than the client, update the host: uv tool upgrade panelot-host",
    data: {
      kind: "invalid_params",
      errors: [{ path: "$.params.protocolVersion", message: "this host speaks protocol version 1" }],
      protocolVersions: { oldest: 1, newest: 1 },
      hostVersion: "0.1.0",
      update,
      hostUpdateCommand: command,
    },
  };
}

/** The refusal of every host before negotiation, word for word. */
const OLD_HOST_REFUSAL = {
  code: -32602,
  message: "unsupported protocol version",
  data: { kind: "invalid_params", errors: [{ path: "$.params.protocolVersion", message: "this host speaks protocol version 1" }] },
};

test("the extension speaks one range, and sends its oldest only when the range is wider", () => {
  assert.deepEqual(versionParams(), { protocolVersion: PROTOCOL_VERSIONS.newest });
  assert.deepEqual(versionParams(TWO_TO_THREE), { protocolVersion: 3, minProtocolVersion: 2 });
});

test("an older host that negotiates: update the host with the command it names", () => {
  const cause = causeOfInitializeFailure(newHostRefusal("host"), TWO_TO_THREE, "0.3.0");
  assert.equal(cause.code, "version_skew");
  assert.equal(cause.message, "The Panelot host is older than this extension: run `uv tool upgrade panelot-host`.");
  assert.deepEqual(cause.commands, ["uv tool upgrade panelot-host"]);
  assert.match(cause.details, /This extension \(0\.3\.0\) speaks protocol versions 2 to 3; the host \(0\.1\.0\) speaks protocol version 1/);
});

test("an older host from before negotiation: update the host with the default command", () => {
  const skew = versionSkew(OLD_HOST_REFUSAL, TWO_TO_THREE);
  assert.deepEqual(skew, { update: "host", host: { oldest: 1, newest: 1 }, spoken: TWO_TO_THREE, hostVersion: null, command: DEFAULT_HOST_UPDATE });
  const cause = causeOfInitializeFailure(OLD_HOST_REFUSAL, TWO_TO_THREE);
  assert.equal(cause.message, "The Panelot host is older than this extension: run `pipx upgrade panelot-host`.");
  // the same refusal with its details lost still says "update the host"
  const bare = { code: -32602, message: "unsupported protocol version", data: { kind: "invalid_params" } };
  assert.equal(versionSkew(bare, TWO_TO_THREE)?.update, "host");
});

test("an older extension: update the extension, from its folder or the store", () => {
  const refusal = newHostRefusal("extension");
  refusal.data.protocolVersions = { oldest: 4, newest: 5 };
  const cause = causeOfInitializeFailure(refusal, TWO_TO_THREE, "0.1.0");
  assert.equal(cause.code, "version_skew");
  assert.equal(cause.message, "This extension is older than the Panelot host: update the extension (reload it from the folder `panelot-host extension path` prints, or update it from the Chrome Web Store).");
  assert.deepEqual(cause.commands, ["panelot-host extension path"]);
  // which side is older follows from the ranges when the host does not say
  delete refusal.data.update;
  assert.equal(versionSkew(refusal, TWO_TO_THREE)?.update, "extension");
});

test("a refusal for another reason is no skew", () => {
  const lease = { code: -32004, message: "another Panelot host holds this profile", data: { kind: "invalid_state" } };
  assert.equal(versionSkew(lease), null);
  assert.equal(causeOfInitializeFailure(lease).code, "initialize_failed");
  const params = { code: -32602, message: "Invalid params: 1 violation", data: { kind: "invalid_params", errors: [{ path: "$.params.client.name", message: "required field missing" }] } };
  assert.equal(versionSkew(params), null);
  assert.equal(retryVersion(params, TWO_TO_THREE), null);
});

test("a host from before negotiation that shares a version is asked again with it", () => {
  const unknownField = { code: -32602, message: "Invalid params: 1 violation", data: { kind: "invalid_params", errors: [{ path: "$.params.minProtocolVersion", message: "unknown field" }] } };
  assert.equal(retryVersion(unknownField, { oldest: 1, newest: 2 }), 1);
  assert.equal(retryVersion(unknownField, TWO_TO_THREE), null);
  assert.equal(versionSkew(unknownField, TWO_TO_THREE)?.update, "host");
  // a host that negotiates has chosen already: never asked again
  assert.equal(retryVersion(newHostRefusal("host"), { oldest: 1, newest: 2 }), null);
});

test("the worker retries initialize once with the old host's version, without the range", async () => {
  const { link, native, statuses } = linkWithFakeHost(HostLink, { protocolVersion: 2, minProtocolVersion: 1, client: { name: "t", version: "0.2.0" }, capabilities: { browserTools: [] } });
  const connected = link.connect();
  await tick();
  const first = native.posted.find((m) => m.method === "initialize");
  native.onMessage.fire({ jsonrpc: "2.0", id: first.id, error: { code: -32602, message: "Invalid params: 1 violation", data: { kind: "invalid_params", errors: [{ path: "$.params.minProtocolVersion", message: "unknown field" }] } } });
  await tick();
  const second = native.posted.filter((m) => m.method === "initialize")[1];
  assert.deepEqual(second.params, { protocolVersion: 1, client: { name: "t", version: "0.2.0" }, capabilities: { browserTools: [] } });
  native.onMessage.fire({ jsonrpc: "2.0", id: second.id, result: { protocolVersion: 1, engine: { name: "panelot-host", version: "0.1.0" } } });
  assert.equal((await connected).protocolVersion, 1);
  assert.equal(statuses.at(-1).state, "connected");
});

test("the worker reports a skew as the disconnect cause, with the side to update", async () => {
  const { link, native, statuses } = linkWithFakeHost(HostLink, { protocolVersion: 3, minProtocolVersion: 2, client: { name: "t", version: "0.3.0" } });
  const connected = link.connect();
  await tick();
  const init = native.posted.find((m) => m.method === "initialize");
  native.onMessage.fire({ jsonrpc: "2.0", id: init.id, error: OLD_HOST_REFUSAL });
  await assert.rejects(connected);
  clearTimeout(link.retryTimer);
  const last = statuses.at(-1);
  assert.equal(last.state, "disconnected");
  assert.equal(last.cause.code, "version_skew");
  assert.equal(last.cause.headline, "Update the Panelot host");
});

test("a command in a banner's sentence is shown as code", () => {
  const parts = withCode("The Panelot host is older than this extension: run `pipx upgrade panelot-host`.");
  assert.equal(parts.length, 3);
  assert.equal(parts[0], "The Panelot host is older than this extension: run ");
  assert.equal(/** @type {any} */ (parts[1]).textContent, "pipx upgrade panelot-host");
});

test("About says the extension's, the host's and the protocol's versions", () => {
  const host = { protocolVersion: 1, engine: { name: "panelot-host", version: "0.1.0" } };
  assert.deepEqual(aboutLines("0.2.0", host), ["Extension 0.2.0", "Host 0.1.0", "Protocol 1"]);
  assert.deepEqual(aboutLines("0.2.0", null), ["Extension 0.2.0", "Host not connected", `Protocol ${PROTOCOL_VERSIONS.newest}`]);
  const section = aboutSection("0.2.0", host);
  assert.equal(section.getAttribute("aria-labelledby"), "settings-about");
  assert.deepEqual(byClass(section, "about-line").map((line) => line.textContent), ["Extension 0.2.0", "Host 0.1.0", "Protocol 1"]);
});
