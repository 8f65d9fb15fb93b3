// The threads view: search box, the list (newest first, title, status, turns, tokens, cost,
// highlighted search snippets), and the shown thread's header (title, usage, rename, fork,
// delete, back to the previous branch).

import { el, iconButton, tokens, dollars, totalTokens, usageWords } from "../dom.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {import("../store.js").Thread} Thread */

/** A thread's status in words (`Thread.status`; a value this panel does not know yet reads "running"). */
const STATUS_WORDS = /** @type {Record<string, string>} */ ({
  idle: "idle",
  running: "running",
  awaiting_approval: "needs approval",
  awaiting_answer: "needs an answer",
  budget_paused: "paused: budget",
  paused_uncertain: "needs a decision",
  interrupted: "stopped",
  failed: "failed",
});

/** @param {Store} store @param {Controller} controller */
export function mountThreads(store, controller) {
  const list = /** @type {HTMLUListElement} */ (document.getElementById("threads"));
  const search = /** @type {HTMLInputElement} */ (document.getElementById("thread-search"));
  const title = /** @type {HTMLElement} */ (document.getElementById("thread-title"));
  const usage = /** @type {HTMLElement} */ (document.getElementById("thread-usage"));
  const actions = /** @type {HTMLElement} */ (document.getElementById("thread-actions"));
  const empty = /** @type {HTMLElement} */ (document.getElementById("threads-empty"));

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let debounce;
  search.addEventListener("input", () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => controller.search(search.value), 150);
  });

  const rename = iconButton("rename", "Rename thread");
  rename.addEventListener("click", () => controller.renameThread());
  const fork = iconButton("fork", "Fork thread");
  fork.addEventListener("click", () => controller.fork(null));
  const remove = iconButton("delete", "Delete thread");
  remove.addEventListener("click", () => controller.deleteThread());
  const back = el("button", "link", "Back to the previous branch");
  back.type = "button";
  back.addEventListener("click", () => controller.backToPreviousBranch());
  actions.append(back, rename, fork, remove);

  function renderList() {
    const s = store.state;
    empty.hidden = s.threads.length > 0;
    empty.textContent = s.query
      ? `No thread matches “${s.query}”.`
      : s.host.state === "connected" ? "No threads yet. Send a message to start one." : "Your threads appear once the host is reachable.";
    list.replaceChildren(...s.threads.map((thread) => threadRow(thread)));
  }

  /** @param {Thread} thread */
  function threadRow(thread) {
    const s = store.state;
    const current = thread.id === s.threadId;
    const open = el("button", "thread");
    open.type = "button";
    open.setAttribute("aria-current", String(current));
    const status = thread.status ?? (current && store.turnLive ? (s.turn?.status === "paused" ? "budget_paused" : "running") : "idle");
    // people count in money, not tokens: the tokens are in the header's tooltip
    const meta = [
      `${thread.stats?.turns ?? 0} ${thread.stats?.turns === 1 ? "turn" : "turns"}`,
      spent(thread),
    ].filter(Boolean).join(" · ");
    const badge = el("span", "thread-status", STATUS_WORDS[status] ?? "running");
    badge.dataset.status = status;
    open.append(el("span", "thread-title", thread.title || "Untitled"), el("span", "thread-meta", badge, ` · ${meta}`));
    const match = s.matches.get(thread.id);
    if (match && match.source === "message") open.append(highlighted(match.text, match.highlights));
    else if (match) open.firstChild?.replaceWith(highlighted(match.text, match.highlights, "thread-title"));
    open.addEventListener("click", () => controller.open(thread.id));
    const li = el("li", "", open);
    return li;
  }

  /** What a thread cost, in money; before its first model call, that nothing was spent. @param {Thread} thread */
  function spent(thread) {
    return totalTokens(thread.stats) ? dollars(thread.stats?.costUsd) : "nothing spent yet";
  }

  function renderHead() {
    const s = store.state;
    const thread = s.thread;
    title.textContent = thread ? thread.title || "Untitled" : "New conversation";
    title.title = title.textContent; // the whole title, when two lines cut it
    actions.hidden = !thread;
    back.hidden = !s.previousHead;
    if (!thread) {
      usage.textContent = "";
      usage.title = "";
      return;
    }
    usage.textContent = `This thread: ${spent(thread)}`;
    usage.title = `${tokens(totalTokens(thread.stats))} tokens: ${usageWords(thread.stats)}`;
  }

  store.on("threads", () => {
    renderList();
    renderHead();
  });
  store.on("snapshot", renderHead);
  store.on("thread", () => {
    renderList();
    renderHead();
  });
  store.on("run", renderList);
  store.on("host", renderList);
  renderList();
  renderHead();
}

/**
 * Text with the given spans wrapped in <mark> (text nodes only, never HTML).
 * @param {string} text @param {{start: number, end: number}[]} spans @param {string} [className]
 */
export function highlighted(text, spans, className = "snippet") {
  const node = el("span", className);
  let at = 0;
  for (const { start, end } of [...spans].sort((a, b) => a.start - b.start)) {
    if (start < at || end > text.length) continue;
    node.append(text.slice(at, start), el("mark", "", text.slice(start, end)));
    at = end;
  }
  node.append(text.slice(at));
  return node;
}
