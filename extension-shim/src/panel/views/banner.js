// Connection state and notices: the status line, the banner that says why the host is
// unreachable and what to do (from the worker's cause), and notices that are not answers
// (a settings change that widened what the agent may do, an action that failed).

import { button, el, iconButton } from "../dom.js";
import { copyButton } from "../markdown.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */

/** @param {Store} store @param {Controller} controller */
export function mountBanner(store, controller) {
  const connection = /** @type {HTMLElement} */ (document.getElementById("connection"));
  const banner = /** @type {HTMLElement} */ (document.getElementById("banner"));
  const title = /** @type {HTMLElement} */ (document.getElementById("banner-title"));
  const cause = /** @type {HTMLElement} */ (document.getElementById("banner-cause"));
  const fix = /** @type {HTMLElement} */ (document.getElementById("banner-fix"));
  const commands = /** @type {HTMLElement} */ (document.getElementById("banner-commands"));
  const details = /** @type {HTMLDetailsElement} */ (document.getElementById("banner-details"));
  const detailsText = /** @type {HTMLElement} */ (document.getElementById("banner-details-text"));
  const notices = /** @type {HTMLElement} */ (document.getElementById("notices"));
  /** @type {HTMLButtonElement} */ (document.getElementById("retry")).addEventListener("click", () => controller.reconnect());

  function renderHost() {
    const { host, hostWasConnected } = store.state;
    connection.dataset.state = host.state;
    if (host.state === "connected") connection.textContent = "Connected";
    else if (host.state === "connecting") connection.textContent = hostWasConnected ? "Reconnecting…" : "Connecting to the host…";
    else connection.textContent = "Offline";
    if (host.state === "disconnected" && host.cause) {
      banner.hidden = false;
      const why = host.cause;
      // a plain headline and sentence; each command a block to copy; ids and files under Details
      title.textContent = why.headline ?? "The Panelot host is unreachable";
      cause.replaceChildren(...withCode(why.message));
      const retry = host.retryInMs ? ` Panelot tries again in ${Math.ceil(host.retryInMs / 1000)} s.` : "";
      fix.textContent = why.fix + retry;
      commands.replaceChildren(...(why.commands ?? []).map((command) => {
        const code = el("pre", "", el("code", "", command));
        return el("div", "code command", code, copyButton(() => command, "Copy command"));
      }));
      const technical = [why.details, why.chromeMessage ? `Chrome said: ${why.chromeMessage}` : ""].filter(Boolean).join(" ");
      detailsText.textContent = technical;
      details.hidden = technical === "";
    } else if (host.state === "connected") {
      banner.hidden = true;
    }
  }

  function renderNotices() {
    notices.replaceChildren(...store.state.notices.map((notice) => {
      const close = iconButton("close", "Dismiss notice");
      close.addEventListener("click", () => store.dismiss(notice.id));
      const label = notice.kind === "authority" ? "Permissions widened" : notice.kind === "error" ? "Error" : "Note";
      // label and text flow as one paragraph: side by side they took half of a narrow panel
      const text = el("span", "notice-text", el("strong", "", `${label}: `), notice.text);
      if (notice.action) {
        const { label: name, run } = notice.action;
        const fix = button(name, () => {
          store.dismiss(notice.id);
          run();
        });
        fix.classList.add("notice-fix");
        text.append(" ", fix);
      }
      if (notice.details) text.append(el("details", "notice-details", el("summary", "", "Details"), el("p", "", notice.details)));
      return el("div", `notice ${notice.kind}`, text, close);
    }));
  }

  store.on("host", renderHost);
  store.on("notices", renderNotices);
  renderHost();
}

/**
 * Text with its `backquoted` spans as code (a command named in a sentence).
 * @param {string} text @returns {(string | HTMLElement)[]}
 */
export function withCode(text) {
  return text.split("`").map((part, i) => (i % 2 === 1 ? el("code", "", part) : part)).filter((part) => part !== "");
}
