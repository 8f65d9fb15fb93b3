// Panelot's service worker: the one client of one host (README.md, "one worker, one host"). It holds
// the native Port, relays the protocol for every side panel, and plays the shim for
// browser tools. All state lives in the host; Chrome may stop this worker at any time and
// the next panel action starts it again.

import { ToolbarBadge } from "./src/attention.js";
import { causeOfDisconnect } from "./src/causes.js";
import { HostLink } from "./src/host-link.js";
import { profileId } from "./src/profile.js";
import { PANEL_PORT, Relay } from "./src/relay.js";
import { Shim } from "./src/shim.js";
import { createToolTable } from "./src/tools/catalog.js";
import { STAGE_FILES, StagedUploads } from "./src/tools/uploads.js";
import { versionParams } from "./src/versions.js";
import { ALARM, WorkflowScheduler } from "./src/workflow-schedule.js";

const ownOrigin = `chrome-extension://${chrome.runtime.id}`;
const uploads = new StagedUploads();
const table = createToolTable(ownOrigin, uploads);
// the number of threads waiting for the user, on the toolbar action (issue 26)
const badge = new ToolbarBadge(chrome.action, chrome.runtime.getManifest().action?.default_title ?? "Panelot");

const link = new HostLink({
  initializeParams: async () => ({
    ...versionParams(),
    client: { name: "panelot-extension", version: chrome.runtime.getManifest().version, profileId: await profileId() },
    capabilities: { browserTools: table.names() },
  }),
  onRequest: (message) => void shim.handle(message),
  onNotification: (method, params) => {
    if (method === "$/cancelRequest") shim.cancel(params?.id);
    else if (method === "browser.detach") table.detach(params?.threadId, params?.turnId);
    else {
      if (method === "thread.updated") void badge.update(params?.thread);
      scheduler.onEvent(method, params);
      relay.fromHost(method, params);
    }
  },
  onStatus: (status) => {
    if (status.state === "disconnected") shim.abortAll();
    if (status.state === "connected") {
      seedBadge();
      void scheduler.check().catch((error) => console.warn("panelot: could not check the scheduled workflows", error));
    }
    relay.broadcastStatus(status);
  },
  explain: (message) => causeOfDisconnect(message, chrome.runtime.id),
});
// scheduled workflows (issue 29): due runs at each connect and alarm, missed ones reported
const scheduler = new WorkflowScheduler({ link, alarms: chrome.alarms, notifications: chrome.notifications });
const shim = new Shim(table, (id, answer) => link.answer(id, answer));
const relay = new Relay(link)
  .serve(STAGE_FILES, (params) => uploads.stage(params?.callId, params?.files))
  .watch((method, params) => {
    if (method === "thread.delete" && typeof params?.threadId === "string") void badge.forget(params.threadId);
    if (method === "workflow.schedule.set" || method === "workflow.delete") {
      void scheduler.rearm().catch((error) => console.warn("panelot: could not arm the workflow alarm", error));
    }
  });

/** Each thread's status anew once the host is connected: a restarted worker knew none. */
function seedBadge() {
  link.send("thread.list", { limit: 200 }, 30_000).done.then(
    (result) => badge.seed(result?.threads ?? []),
    (error) => console.warn("panelot: could not list the threads for the toolbar badge", error),
  );
}

chrome.runtime.onConnect.addListener((port) => {
  if (port.name === PANEL_PORT && port.sender?.id === chrome.runtime.id) relay.attach(port);
});
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name !== ALARM) return;
  // connect first (an alarm may start the worker); the connect itself checks what is due
  if (link.status.state === "connected") void scheduler.check().catch((error) => console.warn("panelot:", error));
  else link.connect().catch(() => {});
});
// the browser started: the host is asked what came due (and what was missed) while it was closed
chrome.runtime.onStartup.addListener(() => void link.connect().catch(() => {}));
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
    badge,
    scheduler,
    stats: () => ({ ...link.stats(), ...relay.stats(), ...shim.stats(), status: link.status.state }),
  },
});
