// The browser tabs the panel hands to a thread or shows (issue 26): the tab the user is
// looking at ("Share this tab with the thread", and `turn.submit`'s `shareTab`), and a
// thread's tabs brought to the front.
//
// Which tab is "this tab": the active tab of the panel's window. Chrome's side panel is not
// a tab, so that is the page beside it. Opened as a tab of its own (the end-to-end tests
// open `sidepanel.html` so, as a user may), the panel is itself the active tab; its own
// pages are never shared, and the tab the user was on last (the other tab with the latest
// `lastAccessed`) is taken instead, from the panel's window, else from any window.

/** @typedef {import("../generated/protocol").SharedTab} SharedTab */
/** @typedef {import("../generated/protocol").ThreadTabs} ThreadTabs */
/** @typedef {{id?: number, url?: string, pendingUrl?: string, title?: string, active?: boolean, lastAccessed?: number, windowId?: number}} TabLike */

/**
 * The tab to share among `tabs` (the panel's window's first, then all): the active one
 * that is not a page of this extension, else the one used last; null when there is none.
 * @param {TabLike[]} inWindow @param {TabLike[]} everywhere @param {string} ownOrigin
 * @returns {SharedTab | null}
 */
export function pickSharedTab(inWindow, everywhere, ownOrigin) {
  const theirs = (/** @type {TabLike[]} */ tabs) => tabs.filter((t) => typeof t.id === "number" && !(t.url ?? t.pendingUrl ?? "").startsWith(ownOrigin));
  const local = theirs(inWindow);
  const chosen = local.find((t) => t.active) ?? latest(local) ?? latest(theirs(everywhere));
  if (!chosen || typeof chosen.id !== "number") return null;
  return { tabId: chosen.id, url: chosen.url || chosen.pendingUrl || "", title: chosen.title ?? "" };
}

/** @param {TabLike[]} tabs */
function latest(tabs) {
  return [...tabs].sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0))[0];
}

/** The tab the user is looking at, as `thread.shareTab` and `turn.submit` take it; null when none can be read. */
export async function activeTab() {
  const tabs = globalThis.chrome?.tabs;
  if (!tabs) return null;
  try {
    const [inWindow, everywhere] = await Promise.all([tabs.query({ currentWindow: true }), tabs.query({})]);
    return pickSharedTab(inWindow, everywhere, `chrome-extension://${chrome.runtime.id}/`);
  } catch {
    return null;
  }
}

/**
 * Bring a thread's tabs to the front: its current tab (the first still open) made active
 * and its window focused. False when none is open any more.
 * @param {ThreadTabs | null | undefined} group
 */
export async function showThreadTabs(group) {
  for (const known of group?.tabs ?? []) {
    try {
      const tab = await chrome.tabs.update(known.tabId, { active: true });
      if (tab?.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true });
      return true;
    } catch {
      // closed since the host last heard of it: the next one
    }
  }
  return false;
}

/** "1 tab", "3 tabs". @param {number} n */
export function tabCountWords(n) {
  return n === 1 ? "1 tab" : `${n} tabs`;
}
