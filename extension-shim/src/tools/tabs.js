// Tab helpers shared by the browser tools: finding the target tab, describing it as the
// protocol's BrowserTarget (with its origin), waiting for a load, and which pages no
// extension may touch.

/** @typedef {import("../generated/protocol").BrowserTarget} BrowserTarget */
/** @typedef {import("./table.js").ToolContext} ToolContext */

import { ToolFailure } from "./errors.js";
import { currentTab } from "./thread-tabs.js";

export const LOAD_TIMEOUT_MS = 30_000;
const WEB_STORE = [/^https:\/\/chromewebstore\.google\.com(\/|$)/, /^https:\/\/chrome\.google\.com\/webstore(\/|$)/];
const BROWSER_SCHEMES = ["chrome:", "chrome-untrusted:", "chrome-search:", "devtools:", "edge:", "brave:", "view-source:", "about:", "chrome-error:"];

/**
 * The origin the gatekeeper decides by: the URL's origin, or `scheme://host` for
 * non-web URLs (whose standard origin is the opaque "null").
 * @param {string} url
 */
export function originOf(url) {
  try {
    const parsed = new URL(url);
    if (parsed.origin !== "null") return parsed.origin;
    return parsed.host ? `${parsed.protocol}//${parsed.host}` : parsed.protocol;
  } catch {
    return "";
  }
}

/**
 * Why extensions may not act on a page at `url`, or null when they may.
 * @param {string} url
 * @param {string} ownOrigin this extension's origin, `chrome-extension://<id>`
 * @returns {string | null}
 */
export function restrictionOf(url, ownOrigin) {
  if (url === "" || url === "about:blank") return null;
  if (WEB_STORE.some((pattern) => pattern.test(url))) {
    return "it is a Chrome Web Store page, where Chrome lets no extension act";
  }
  const scheme = url.slice(0, url.indexOf(":") + 1).toLowerCase();
  if (scheme === "chrome-extension:") {
    return originOf(url) === ownOrigin
      ? "it is a page of Panelot itself"
      : "it is another extension's page, which Chrome keeps out of reach of extensions";
  }
  if (BROWSER_SCHEMES.includes(scheme)) {
    return `it is a browser page (${scheme}), which Chrome keeps out of reach of extensions`;
  }
  return null;
}

/**
 * Only web pages may be opened by a tool: a `javascript:` or `chrome:` URL could act
 * outside any page's origin.
 * @param {unknown} url
 * @returns {string}
 */
export function webUrl(url) {
  if (typeof url !== "string" || url === "") throw new ToolFailure("`url` must be an absolute URL");
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolFailure(`${JSON.stringify(url)} is not an absolute URL (e.g. https://example.com/)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:" && url !== "about:blank") {
    throw new ToolFailure(`only http and https pages can be opened; ${JSON.stringify(url)} is a ${parsed.protocol} URL`);
  }
  return parsed.href;
}

/** @param {chrome.tabs.Tab} tab @returns {BrowserTarget} */
export function describeTab(tab) {
  const url = tab.url ?? tab.pendingUrl ?? "";
  return { tabId: tab.id ?? -1, url, origin: originOf(url), title: tab.title ?? "", active: tab.active };
}

/**
 * The tab a tool acts on: `args.tabId`, else the approved target, else the calling
 * thread's current tab (`thread-tabs.js`), else the active tab.
 * @param {{tabId?: unknown}} args @param {BrowserTarget | undefined} target
 * @param {import("../generated/protocol").ThreadTabs | null} [threadTabs]
 * @returns {Promise<chrome.tabs.Tab>}
 */
export async function findTab(args, target, threadTabs) {
  const tabId = typeof args.tabId === "number" ? args.tabId : target?.tabId;
  if (typeof tabId === "number") {
    try {
      return await chrome.tabs.get(tabId);
    } catch {
      throw new ToolFailure(`there is no tab ${tabId}; list the tabs with browser_tabs_list`);
    }
  }
  const own = await currentTab(threadTabs);
  if (own) return own;
  const [active] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  const tab = active ?? (await chrome.tabs.query({ active: true }))[0];
  if (!tab) throw new ToolFailure("no tab is open; open one with browser_tab_new");
  return tab;
}

/**
 * Run `action` (which returns the tab it loads something in) and wait until that tab has
 * finished loading, or `timeoutMs` passed (the result then says it is still loading). The
 * listener is added before the action, so a fast page cannot finish unseen, and always removed.
 * @param {() => Promise<chrome.tabs.Tab>} action @param {AbortSignal} signal
 * @returns {Promise<{tab: chrome.tabs.Tab, loaded: boolean}>}
 */
export async function loadIn(action, signal, timeoutMs = LOAD_TIMEOUT_MS) {
  /** @type {(value: boolean) => void} */
  let finish = () => {};
  const finished = new Promise((resolve) => (finish = resolve));
  /** @type {Set<number>} */
  const completed = new Set();
  /** @type {number | undefined} */
  let tabId;
  /** @param {number} id @param {chrome.tabs.OnUpdatedInfo} change */
  const onUpdated = (id, change) => {
    if (change.status !== "complete") return;
    if (id === tabId) finish(true);
    else completed.add(id);
  };
  const onAbort = () => finish(false);
  chrome.tabs.onUpdated.addListener(onUpdated);
  signal.addEventListener("abort", onAbort);
  const timer = setTimeout(() => finish(false), timeoutMs);
  try {
    const started = await action();
    tabId = started.id;
    if (tabId === undefined) return { tab: started, loaded: false };
    if (completed.has(tabId)) finish(true);
    const loaded = await finished;
    signal.throwIfAborted();
    return { tab: await chrome.tabs.get(tabId), loaded };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    chrome.tabs.onUpdated.removeListener(onUpdated);
  }
}
