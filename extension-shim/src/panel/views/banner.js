// Connection state and notices: the status line, the banner that says why the host is
// unreachable and what to do (from the worker's cause), and notices that are not answers
// (a settings change that widened what the agent may do, an action that failed).

import { button, el, iconButton } from "../dom.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */

/** @param {Store} store @param {Controller} controller */
export function mountBanner(store, controller) {
  const connection = /** @type {HTMLElement} */ (document.getElementById("connection"));
  const banner = /** @type {HTMLElement} */ (document.getElementById("banner"));
  const title = /** @type {HTMLElement} */ (document.getElementById("banner-title"));
  const cause = /** @type {HTMLElement} */ (document.getElementById("banner-cause"));
  const fix = /** @type {HTMLElement} */ (document.getElementById("banner-fix"));
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
      title.textContent = host.cause.code === "host_not_found" ? "The Panelot host is not installed" : host.cause.code === "forbidden" ? "The host does not allow this extension" : "The host is unreachable";
      cause.textContent = host.cause.message;
      const retry = host.retryInMs ? ` Retrying in ${Math.ceil(host.retryInMs / 1000)} s.` : "";
      fix.textContent = host.cause.fix + retry;
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
