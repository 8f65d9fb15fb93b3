// The threads view: search box, the list (newest first, title, status — a live dot while
// it runs, a badge while it waits for the user —, turns, tokens, cost, highlighted search
// snippets), the count of the other threads that need the user on the "Threads" button,
// and the shown thread's header (title, usage, its tabs with "Share this tab" and "Keep
// this tab out of timelines", rename, fork, delete, back to the previous branch).

import { needsYou, needsYouWords } from "../../attention.js";
import { el, iconButton, tokens, dollars, totalTokens, usageWords } from "../dom.js";
import { activeTab, showThreadTabs, tabCountWords } from "../tabs.js";
import { isPrivateTab, onPrivateTabsChanged, setPrivateTab } from "../../private-tabs.js";
import { savableTurn } from "../workflows.js";
import { saveExport } from "../exports.js";
import { exportMenu } from "./export-menu.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {import("../store.js").Thread} Thread */

/** A thread's status in words (`Thread.status`; a value this panel does not know yet reads "running"). */
const STATUS_WORDS = /** @type {Record<string, string>} */ ({
  idle: "idle",
  running: "running",
  waiting: "waiting its turn",
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
  const tabsRow = /** @type {HTMLElement} */ (document.getElementById("thread-tabs"));
  const count = /** @type {HTMLElement} */ (document.getElementById("threads-count"));
  const attention = /** @type {HTMLElement} */ (document.getElementById("threads-attention"));

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
  // a finished turn that acted in the browser can be kept as a workflow (issue 29)
  const saveWorkflow = iconButton("workflow", "Save as workflow");
  saveWorkflow.addEventListener("click", () => {
    const turnId = savableTurn(store);
    if (turnId) void controller.workflows.propose(turnId);
  });
  // the thread as a file: a report, an animation of its timeline, its data, a transcript (issue 30)
  const exportThread = exportMenu(iconButton("export", "Export thread"), "Export this thread as", (format) =>
    store.state.threadId ? saveExport(controller, store.state.threadId, null, format) : Promise.resolve());
  actions.append(back, exportThread, saveWorkflow, rename, fork, remove);

  // the thread's tabs: "3 tabs" brings them to the front; "Share this tab" hands over the
  // tab the user is looking at (tabs.js says which one that is)
  const showTabs = el("button", "tab-group-chip");
  showTabs.type = "button";
  const groupDot = el("span", "group-dot");
  groupDot.setAttribute("aria-hidden", "true");
  const tabCount = el("span", "", "");
  showTabs.append(groupDot, el("span", "visually-hidden", "Show this thread's "), tabCount);
  showTabs.addEventListener("click", async () => {
    if (!(await showThreadTabs(store.state.thread?.tabGroup))) store.notify("info", "This thread's tabs are closed.");
  });
  const share = el("button", "share-tab", "Share this tab", el("span", "visually-hidden", " with the thread"));
  share.type = "button";
  share.title = "The tab you are looking at joins this thread's tabs: the thread works in it.";
  share.addEventListener("click", () => controller.shareTab());
  // the tab the user looks at kept out of timelines (issue 30): the worker captures no frame of it
  const keepOut = el("button", "private-tab", "Keep this tab out of timelines");
  keepOut.type = "button";
  keepOut.setAttribute("aria-pressed", "false");
  keepOut.title = "No picture of the tab you are looking at is kept in any thread's timeline, until you close it.";
  /** @type {number | null} */
  let lookedAt = null;
  keepOut.addEventListener("click", async () => {
    if (lookedAt === null) return;
    await setPrivateTab(lookedAt, keepOut.getAttribute("aria-pressed") !== "true");
    await renderPrivate();
  });
  async function renderPrivate() {
    const tab = await activeTab();
    lookedAt = tab?.tabId ?? null;
    const on = lookedAt !== null && (await isPrivateTab(lookedAt).catch(() => false));
    keepOut.disabled = lookedAt === null;
    keepOut.setAttribute("aria-pressed", String(on));
  }
  if (globalThis.chrome?.tabs && globalThis.chrome?.storage?.session) {
    chrome.tabs.onActivated.addListener(() => void renderPrivate());
    chrome.windows?.onFocusChanged?.addListener(() => void renderPrivate());
    onPrivateTabsChanged(() => void renderPrivate());
    void renderPrivate();
  }
  tabsRow.append(showTabs, share, keepOut);

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
    // motion says it runs, the word says it too (never the colour or the dot alone)
    if (isRunning(status)) badge.prepend(liveDot());
    open.append(el("span", "thread-title", thread.title || "Untitled"), el("span", "thread-meta", badge, ` · ${meta}`));
    if (needsYou(status)) {
      open.dataset.attention = "true";
      const flag = el("span", "row-badge", "!");
      flag.setAttribute("aria-hidden", "true"); // its words are the status: "needs approval"
      open.append(flag);
    }
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

  /** The "Threads" button's count: the other threads that wait for the user (the shown one's card is in view). */
  function renderCount() {
    const s = store.state;
    let n = 0;
    for (const [id, status] of s.statuses) if (id !== s.threadId && needsYou(status)) n += 1;
    count.hidden = n === 0;
    count.textContent = n ? String(n) : "";
    attention.textContent = n ? needsYouWords(n) : "";
  }

  function renderTabs() {
    const s = store.state;
    const tabs = s.thread?.tabGroup?.tabs ?? [];
    tabsRow.hidden = s.host.state !== "connected" && !s.thread;
    showTabs.hidden = tabs.length === 0;
    tabCount.textContent = tabCountWords(tabs.length);
    groupDot.dataset.color = s.thread?.tabGroup?.color ?? "grey";
    showTabs.title = s.thread?.tabGroup ? `In the tab group “${s.thread.tabGroup.title}”` : "";
  }

  function renderHead() {
    const s = store.state;
    const thread = s.thread;
    renderTabs();
    renderCount();
    title.textContent = thread ? thread.title || "Untitled" : "New conversation";
    title.title = title.textContent; // the whole title, when two lines cut it
    actions.hidden = !thread;
    back.hidden = !s.previousHead;
    saveWorkflow.hidden = savableTurn(store) === null;
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
  store.on("run", () => {
    renderList();
    saveWorkflow.hidden = savableTurn(store) === null;
  });
  store.on("item", () => {
    saveWorkflow.hidden = savableTurn(store) === null;
  });
  store.on("host", () => {
    renderList();
    renderTabs();
  });
  renderList();
  renderHead();
}

/** A status shown as running: `running`, and any this panel does not know yet. @param {string} status */
function isRunning(status) {
  return !(status in STATUS_WORDS) || status === "running";
}

function liveDot() {
  const dot = el("span", "live-dot");
  dot.setAttribute("aria-hidden", "true");
  return dot;
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
