// browser_tabs_list, browser_tab_new, browser_tab_select, browser_navigate.

import { ToolFailure } from "./errors.js";
import { bounded, PAGE_CALL_BOUND_MS } from "./page.js";
import { describeTab, findTab, LOAD_TIMEOUT_MS, loadIn, originOf, webUrl } from "./tabs.js";
import { owns } from "./thread-tabs.js";
import { settle, watchTab } from "./watch.js";

const BACK_START_MS = 1_500; // no load started by then: there was no earlier page

/** @typedef {import("./table.js").BrowserTool} BrowserTool */
/** @typedef {import("../generated/protocol").BrowserInvokeResult} BrowserInvokeResult */

/** @param {chrome.tabs.Tab} tab @param {boolean} loaded @param {string} verb */
function loadedResult(tab, loaded, verb) {
  const target = describeTab(tab);
  const state = loaded ? "" : " (still loading)";
  return {
    content: `${verb} tab ${target.tabId}: ${target.url}${state}, origin ${target.origin}, title ${JSON.stringify(target.title)}`,
    isError: false,
    target,
  };
}

/** @type {BrowserTool} */
export const tabsList = {
  name: "browser_tabs_list",
  pageAccess: false,
  tabless: true,
  async run(_args, ctx) {
    const tabs = await chrome.tabs.query({});
    const rows = tabs.map((tab) => ({ ...describeTab(tab), active: tab.active, windowId: tab.windowId, yours: owns(ctx.threadTabs, tab.id) }));
    const lines = rows.map((t) => `- tab ${t.tabId}${t.yours ? " (this thread's)" : ""}${t.active ? " (active)" : ""}: ${JSON.stringify(t.title)} ${t.url}`);
    return { content: `${rows.length} open tabs:\n${lines.join("\n")}`, isError: false, details: { tabs: rows } };
  },
};

/**
 * The URL a navigation loads, checked against the decision: the host decided the call by
 * the destination's origin (its own parse of the URL); this browser's parser must agree,
 * or nothing is loaded (a parser difference must never send the tab elsewhere).
 * @param {unknown} url @param {import("./table.js").ToolContext} ctx
 */
function approvedDestination(url, ctx) {
  const href = webUrl(url);
  const decided = ctx.target?.origin;
  if (decided !== undefined && originOf(href) !== decided) {
    throw new ToolFailure(`${href} is on ${originOf(href)}, but the decision was for ${decided}; nothing was loaded`);
  }
  return href;
}

/** @type {BrowserTool} */
export const tabNew = {
  name: "browser_tab_new",
  pageAccess: false,
  tabless: true,
  // in the background unless the user asked to see it: a thread never takes the user's focus
  async run(args, ctx) {
    const active = args.focus === true;
    if (args.url === undefined) {
      const tab = await chrome.tabs.create({ active });
      return shownOrNot(loadedResult(tab, true, "Opened"), active);
    }
    const url = approvedDestination(args.url, ctx);
    const { tab, loaded } = await loadIn(() => chrome.tabs.create({ url, active }), ctx.signal);
    return shownOrNot(loadedResult(tab, loaded, "Opened"), active);
  },
};

/**
 * The result of opening or selecting a tab, saying whether the user sees it.
 * @param {BrowserInvokeResult} result @param {boolean} shown
 * @returns {BrowserInvokeResult}
 */
function shownOrNot(result, shown) {
  const tabId = result.target?.tabId;
  const note = shown
    ? " It is the active tab the user sees."
    : ` It is in the background (the user's view is unchanged): act on it with tabId ${tabId}.`;
  return { ...result, content: `${result.content}.${note}`, details: { shown } };
}

/** @type {BrowserTool} */
export const tabSelect = {
  name: "browser_tab_select",
  pageAccess: false,
  async resolve(args) {
    return describeTab(await findTab(args, undefined));
  },
  // the call's target, reported; shown to the user (active, its window focused) only with `focus`
  async run(args) {
    const tab = await findTab(args, undefined);
    if (args.focus !== true) return shownOrNot(loadedResult(tab, tab.status !== "loading", "Selected"), false);
    const selected = await chrome.tabs.update(args.tabId, { active: true });
    await chrome.windows.update(tab.windowId, { focused: true });
    return shownOrNot(loadedResult(selected ?? tab, true, "Selected"), true);
  },
};

/** @type {BrowserTool} */
export const navigate = {
  name: "browser_navigate",
  pageAccess: false, // leaving a restricted page is allowed; the destination must be a web page
  async run(args, ctx) {
    const url = approvedDestination(args.url, ctx);
    const tab = await findTab(args, ctx.target);
    const tabId = /** @type {number} */ (tab.id);
    const loaded = await loadIn(async () => (await chrome.tabs.update(tabId, { url })) ?? tab, ctx.signal);
    return loadedResult(loaded.tab, loaded.loaded, "Navigated");
  },
};

/** @param {import("./page.js").SnapshotRecords} records @returns {BrowserTool} */
export function tabCloseTool(records) {
  return {
    name: "browser_tab_close",
    pageAccess: false,
    async resolve(args) {
      return describeTab(await findTab(args, undefined));
    },
    async run(args) {
      const tab = await findTab(args, undefined);
      const closed = describeTab(tab);
      await chrome.tabs.remove(args.tabId);
      records.forget(args.tabId);
      const [active] = await chrome.tabs.query({ active: true, windowId: tab.windowId }).catch(() => []);
      const now = active ? ` The active tab is now ${active.id}: ${active.url ?? active.pendingUrl ?? ""}.` : "";
      return {
        content: `Closed tab ${closed.tabId} (${closed.url}, origin ${closed.origin}).${now}`,
        isError: false,
        target: closed,
        details: { closed: true },
      };
    },
  };
}

/**
 * browser_navigate_back. In a web page, through the page's own `history.back()`: Chrome's
 * back button (and `chrome.tabs.goBack`) skips entries of pages that navigated without a
 * user gesture, which is every page a tool navigated away from.
 * @type {BrowserTool}
 */
export const navigateBack = {
  name: "browser_navigate_back",
  pageAccess: false,
  async run(args, ctx) {
    const tab = await findTab(args, ctx.target);
    const tabId = /** @type {number} */ (tab.id);
    const watch = watchTab(tabId);
    let started;
    try {
      try {
        await bounded(chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: () => history.back() }), ctx.signal, PAGE_CALL_BOUND_MS, `the page in tab ${tabId}`);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        await chrome.tabs.goBack(tabId).catch(() => undefined); // a page scripts cannot reach
      }
      started = await settle(watch, ctx.signal, BACK_START_MS, LOAD_TIMEOUT_MS);
    } finally {
      watch.stop();
    }
    if (!started) throw new ToolFailure(`tab ${tabId} has no earlier page in its history (it stays at ${tab.url})`);
    const after = await chrome.tabs.get(tabId).catch(() => {
      throw new ToolFailure(`tab ${tabId} was closed`);
    });
    return loadedResult(after, after.status === "complete", "Went back in");
  },
};
