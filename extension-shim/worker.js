// Panelot's service worker: the one client of one host (README.md, "one worker, one host"). It holds
// the native Port, relays the protocol for every side panel, and plays the shim for
// browser tools. All state lives in the host; Chrome may stop this worker at any time and
// the next panel action starts it again.

import { causeOfDisconnect } from "./src/causes.js";
import { HostLink } from "./src/host-link.js";
import { profileId } from "./src/profile.js";
import { PANEL_PORT, Relay } from "./src/relay.js";
import { Shim } from "./src/shim.js";
import { createToolTable } from "./src/tools/catalog.js";
import { STAGE_FILES, StagedUploads } from "./src/tools/uploads.js";

const ownOrigin = `chrome-extension://${chrome.runtime.id}`;
const uploads = new StagedUploads();
const table = createToolTable(ownOrigin, uploads);

const link = new HostLink({
  initializeParams: async () => ({
    protocolVersion: 1,
    client: { name: "panelot-extension", version: chrome.runtime.getManifest().version, profileId: await profileId() },
    capabilities: { browserTools: table.names() },
  }),
  onRequest: (message) => void shim.handle(message),
  onNotification: (method, params) => {
    if (method === "$/cancelRequest") shim.cancel(params?.id);
    else if (method === "browser.detach") table.detach(params?.threadId, params?.turnId);
    else relay.fromHost(method, params);
  },
  onStatus: (status) => {
    if (status.state === "disconnected") shim.abortAll();
    relay.broadcastStatus(status);
  },
  explain: (message) => causeOfDisconnect(message, chrome.runtime.id),
});
const shim = new Shim(table, (id, answer) => link.answer(id, answer));
const relay = new Relay(link).serve(STAGE_FILES, (params) => uploads.stage(params?.callId, params?.files));

chrome.runtime.onConnect.addListener((port) => {
  if (port.name === PANEL_PORT && port.sender?.id === chrome.runtime.id) relay.attach(port);
});
chrome.runtime.onInstalled.addListener(() => {
  chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch((error) => console.warn("panelot:", error));
});

/** For tests and benchmarks (`sw.evaluate("panelot.stats()")`): routing tables and pending work. */
Object.assign(globalThis, {
  panelot: {
    link,
    relay,
    shim,
    table,
    stats: () => ({ ...link.stats(), ...relay.stats(), ...shim.stats(), status: link.status.state }),
  },
});
