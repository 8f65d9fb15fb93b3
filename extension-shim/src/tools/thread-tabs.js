// The tabs a thread owns, as the browser has them (issue 26). The host keeps the record
// (`threadTabs` in browser.resolveTarget / browser.invoke / browser.threadTabs); this module
// finds those tabs in the browser, after a restart too (Chrome gives tabs and groups new
// ids: the group is found again by its title and colour, its tabs by URL), keeps them in
// one tab group named after the thread, and reports what it found. A tab the user takes
// out of the group is the user's again; a tab that joins the group (a page's popup, a tab
// the user drags in) is the thread's.

/** @typedef {import("../generated/protocol").ThreadTabs} ThreadTabs */
/** @typedef {import("../generated/protocol").ThreadTab} ThreadTab */
/** @typedef {import("../generated/protocol").BrowserInvokeResult} BrowserInvokeResult */

const NO_GROUP = -1; // chrome.tabGroups.TAB_GROUP_ID_NONE

/** @param {number} tabId @returns {Promise<chrome.tabs.Tab | null>} */
async function liveTab(tabId) {
  try {
    return await chrome.tabs.get(tabId);
  } catch {
    return null;
  }
}

/** The URL without its fragment: a restored tab keeps its URL, a page may change its hash. @param {string | undefined} url */
function page(url) {
  return (url ?? "").split("#")[0];
}

/**
 * The thread's group in this browser: the one it had (same id, this browser session),
 * else a group with its title and colour (restored after a restart), the one holding
 * most of its URLs when several match.
 * @param {ThreadTabs} record @returns {Promise<chrome.tabGroups.TabGroup | null>}
 */
async function findGroup(record) {
  if (typeof record.groupId === "number" && record.groupId !== NO_GROUP) {
    try {
      const group = await chrome.tabGroups.get(record.groupId);
      if (group.color === record.color) return group;
    } catch {
      // gone, or the browser restarted: look for it by its title and colour
    }
  }
  const candidates = await chrome.tabGroups.query({ title: record.title, color: record.color });
  if (candidates.length <= 1) return candidates[0] ?? null;
  const urls = new Set((record.tabs ?? []).map((t) => page(t.url)));
  let best = null;
  let bestScore = -1;
  for (const group of candidates) {
    const tabs = await chrome.tabs.query({ groupId: group.id });
    const score = tabs.filter((t) => urls.has(page(t.url))).length;
    if (score > bestScore) [best, bestScore] = [group, score];
  }
  return best;
}

/** @param {chrome.tabs.Tab} tab @param {ThreadTab["source"]} source @param {boolean} grouped @returns {ThreadTab} */
function row(tab, source, grouped) {
  return { tabId: tab.id ?? NO_GROUP, url: tab.url ?? tab.pendingUrl ?? "", title: tab.title ?? "", source, grouped };
}

/**
 * Put `tabs` (not yet in it) in the thread's group, made when there is none, and give
 * the group the thread's title and colour. Never activates a tab or focuses a window.
 * @param {Array<{tab: chrome.tabs.Tab, entry: ThreadTab}>} tabs
 * @param {chrome.tabGroups.TabGroup | null} group @param {ThreadTabs} record
 * @returns {Promise<number | null>} the group's id
 */
async function groupTabs(tabs, group, record) {
  const windowId = group?.windowId ?? tabs[0]?.tab.windowId;
  const loose = tabs.filter(({ tab }) => tab.groupId !== group?.id && !tab.pinned && tab.windowId === windowId);
  let groupId = group?.id ?? null;
  if (loose.length) {
    const tabIds = /** @type {[number, ...number[]]} */ (loose.map(({ tab }) => tab.id ?? NO_GROUP));
    try {
      groupId = groupId === null
        ? await chrome.tabs.group({ tabIds, createProperties: { windowId } })
        : await chrome.tabs.group({ groupId, tabIds });
      for (const item of loose) item.tab.groupId = groupId;
    } catch (error) {
      console.warn("panelot: could not group the thread's tabs", error);
    }
  }
  if (groupId !== null && (group === null || group.title !== record.title || group.color !== record.color)) {
    try {
      await chrome.tabGroups.update(groupId, { title: record.title, color: record.color });
    } catch (error) {
      console.warn("panelot: could not name the thread's tab group", error);
    }
  }
  for (const item of tabs) item.entry.grouped = groupId !== null && item.tab.groupId === groupId;
  return groupId;
}

/**
 * `browser.threadTabs`: the thread's tabs as they are in the browser now, in the record's
 * order (the current tab first), grouped.
 * @param {ThreadTabs} record @returns {Promise<ThreadTabs>}
 */
export async function findThreadTabs(record) {
  const group = await findGroup(record);
  const members = group ? await chrome.tabs.query({ groupId: group.id }) : [];
  /** @type {Set<number>} */
  const taken = new Set();
  /** @type {Array<{tab: chrome.tabs.Tab, entry: ThreadTab}>} */
  const found = [];
  for (const known of record.tabs ?? []) {
    let tab = await liveTab(known.tabId);
    if (tab && group && known.grouped && tab.groupId !== group.id && !tab.pinned) continue; // taken out: the user's again
    if (!tab && group) tab = members.find((m) => !taken.has(m.id ?? NO_GROUP) && page(m.url) === page(known.url)) ?? null;
    if (!tab || tab.id === undefined || taken.has(tab.id)) continue;
    taken.add(tab.id);
    found.push({ tab, entry: row(tab, known.source ?? "opened", Boolean(known.grouped)) });
  }
  for (const member of members) {
    if (member.id === undefined || taken.has(member.id)) continue;
    taken.add(member.id);
    found.push({ tab: member, entry: row(member, "opened", true) }); // joined the group
  }
  const groupId = await groupTabs(found, group, record);
  return { ...record, groupId, tabs: found.map(({ entry }) => entry) };
}

/**
 * The thread's tabs after a call: a tab it opened first, else the tab it acted on when it
 * owns it, then the others; found again as `findThreadTabs` does.
 * @param {ThreadTabs} record @param {string} tool @param {BrowserInvokeResult} result
 * @returns {Promise<ThreadTabs>}
 */
export async function tabsAfterCall(record, tool, result) {
  const tabs = [...(record.tabs ?? [])];
  const acted = result.target?.tabId;
  if (typeof acted === "number") {
    const index = tabs.findIndex((t) => t.tabId === acted);
    if (index >= 0) tabs.unshift(...tabs.splice(index, 1));
    else if (tool === "browser_tab_new" && !result.isError) {
      const url = result.target?.url ?? "";
      tabs.unshift({ tabId: acted, url, title: result.target?.title ?? "", source: "opened", grouped: false });
    }
  }
  return findThreadTabs({ ...record, tabs });
}

/**
 * The tab a call that names none acts on: the thread's current tab while it is open.
 * @param {ThreadTabs | null | undefined} record @returns {Promise<chrome.tabs.Tab | null>}
 */
export async function currentTab(record) {
  for (const known of record?.tabs ?? []) {
    const tab = await liveTab(known.tabId);
    if (tab) return tab;
  }
  return null;
}

/** @param {ThreadTabs | null | undefined} record @param {number | undefined} tabId */
export function owns(record, tabId) {
  return tabId !== undefined && (record?.tabs ?? []).some((t) => t.tabId === tabId);
}
