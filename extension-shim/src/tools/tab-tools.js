// browser_tabs_list, browser_tab_new, browser_tab_select, browser_navigate.

import { ToolFailure } from "./errors.js";
import { describeTab, findTab, loadIn, webUrl } from "./tabs.js";

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
  async run() {
    const tabs = await chrome.tabs.query({});
    const rows = tabs.map((tab) => ({ ...describeTab(tab), active: tab.active, windowId: tab.windowId }));
    const lines = rows.map((t) => `- tab ${t.tabId}${t.active ? " (active)" : ""}: ${JSON.stringify(t.title)} ${t.url}`);
    return { content: `${rows.length} open tabs:\n${lines.join("\n")}`, isError: false, details: { tabs: rows } };
  },
};

/** @type {BrowserTool} */
export const tabNew = {
  name: "browser_tab_new",
  pageAccess: false,
  async run(args, ctx) {
    if (args.url === undefined) {
      const tab = await chrome.tabs.create({ active: true });
      return loadedResult(tab, true, "Opened");
    }
    const url = webUrl(args.url);
    const { tab, loaded } = await loadIn(() => chrome.tabs.create({ url, active: true }), ctx.signal);
    return loadedResult(tab, loaded, "Opened");
  },
};

/** @type {BrowserTool} */
export const tabSelect = {
  name: "browser_tab_select",
  pageAccess: false,
  async resolve(args) {
    return describeTab(await findTab(args, undefined));
  },
  async run(args) {
    if (typeof args.tabId !== "number") throw new ToolFailure("`tabId` is required");
    const tab = await findTab(args, undefined);
    const selected = await chrome.tabs.update(args.tabId, { active: true });
    await chrome.windows.update(tab.windowId, { focused: true });
    return loadedResult(selected ?? tab, true, "Selected");
  },
};

/** @type {BrowserTool} */
export const navigate = {
  name: "browser_navigate",
  pageAccess: false, // leaving a restricted page is allowed; the destination must be a web page
  async run(args, ctx) {
    const url = webUrl(args.url);
    const tab = await findTab(args, ctx.target);
    const tabId = /** @type {number} */ (tab.id);
    const loaded = await loadIn(async () => (await chrome.tabs.update(tabId, { url })) ?? tab, ctx.signal);
    return loadedResult(loaded.tab, loaded.loaded, "Navigated");
  },
};
