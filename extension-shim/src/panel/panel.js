// The side panel's entry: one store, one controller speaking the protocol to the worker,
// and one module per view (threads, conversation, controls, settings, connection).
// Model and page text is rendered as sanitised Markdown or as text, never as HTML.

import { PanelClient } from "./client.js";
import { Controller } from "./controller.js";
import { makeDialogs } from "./dialogs.js";
import { Store } from "./store.js";
import { mountBanner } from "./views/banner.js";
import { mountChat } from "./views/chat.js";
import { mountControls } from "./views/controls.js";
import { mountThreadDrawer } from "./views/drawer.js";
import { mountSettings } from "./views/settings.js";
import { mountSetup } from "./views/setup.js";
import { mountThreads } from "./views/threads.js";
import { mountWorkflows } from "./views/workflows.js";

const store = new Store();
/** @type {Controller} */
let controller;
const client = new PanelClient((method, params) => controller.onNotification(method, params), () => controller.attempt(() => controller.reopen()));
controller = new Controller(store, client);
controller.dialogs = makeDialogs(/** @type {HTMLDialogElement} */ (document.getElementById("dialog")));

mountBanner(store, controller);
mountThreads(store, controller);
mountChat(store, controller);
mountControls(store, controller);
mountSettings(store, controller);
mountSetup(store, controller);
mountWorkflows(store, controller);

const chatView = /** @type {HTMLElement} */ (document.getElementById("chat-view"));
const settingsView = /** @type {HTMLElement} */ (document.getElementById("settings-view"));
const setupView = /** @type {HTMLElement} */ (document.getElementById("setup-view"));
const workflowsView = /** @type {HTMLElement} */ (document.getElementById("workflows-view"));
const workflowsButton = /** @type {HTMLButtonElement} */ (document.getElementById("open-workflows"));
const settingsButton = /** @type {HTMLButtonElement} */ (document.getElementById("open-settings"));
const threadsToggle = /** @type {HTMLButtonElement} */ (document.getElementById("toggle-threads"));
const threadsPanel = /** @type {HTMLElement} */ (document.getElementById("threads-panel"));
document.getElementById("new-thread")?.addEventListener("click", () => controller.newThread());
settingsButton.addEventListener("click", () => controller.showView(store.state.view === "settings" ? "chat" : "settings"));
document.getElementById("close-settings")?.addEventListener("click", () => controller.showView("chat"));
workflowsButton.addEventListener("click", () => (store.state.view === "workflows" ? controller.showView("chat") : void controller.workflows.show()));
document.getElementById("close-workflows")?.addEventListener("click", () => controller.showView("chat"));
const drawer = mountThreadDrawer(
  threadsToggle,
  threadsPanel,
  /** @type {HTMLElement} */ (document.getElementById("threads-scrim")),
  /** @type {HTMLElement} */ (document.getElementById("thread-search")),
);
document.getElementById("new-thread")?.addEventListener("click", () => drawer.close());
store.on("view", () => {
  const { view } = store.state;
  chatView.hidden = view !== "chat";
  settingsView.hidden = view !== "settings";
  setupView.hidden = view !== "setup";
  workflowsView.hidden = view !== "workflows";
  workflowsButton.setAttribute("aria-expanded", String(view === "workflows"));
  settingsButton.setAttribute("aria-expanded", String(view === "settings"));
  const focus = { chat: "message", settings: "settings-heading", setup: "setup-heading", workflows: "workflows-heading" }[view];
  document.getElementById(focus)?.focus();
});

client.connect();
controller.attempt(() => controller.refreshThreads());

// For tests, benchmarks and debugging, and only when the panel is opened with `?debug`
// (`sidepanel.html?debug`, as the e2e harness does): the shown thread, the store, the
// controller and the Port's client. Chrome's side panel opens it without, so a user's
// panel exposes nothing to the console.
if (new URLSearchParams(location.search).has("debug")) {
  Object.assign(globalThis, {
    panelot: {
      store,
      controller,
      client,
      get threadId() {
        return store.state.threadId;
      },
      get causesShown() {
        return controller.causesShown;
      },
    },
  });
}
