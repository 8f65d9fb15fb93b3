// The tabs the user keeps out of timelines (issue 30): marked in the panel ("Keep this tab
// out of timelines"), kept in `chrome.storage.session` by tab id (gone when the browser
// closes), forgotten by the worker when the tab closes, read by the worker before each
// capture (`tools/capture.js`).

const KEY = "privateTabs";

/** @returns {Promise<Record<string, boolean>>} */
async function all() {
  const stored = await chrome.storage.session.get(KEY);
  const tabs = stored[KEY];
  return tabs && typeof tabs === "object" ? /** @type {Record<string, boolean>} */ (tabs) : {};
}

/** Whether the user marked tab `tabId` private. @param {number} tabId */
export async function isPrivateTab(tabId) {
  return (await all())[String(tabId)] === true;
}

/** Mark tab `tabId` private, or not. @param {number} tabId @param {boolean} on */
export async function setPrivateTab(tabId, on) {
  const tabs = await all();
  if (on) tabs[String(tabId)] = true;
  else delete tabs[String(tabId)];
  await chrome.storage.session.set({ [KEY]: tabs });
}

/** A closed tab's mark is forgotten (its id is never reused in the session, but nothing is kept). @param {number} tabId */
export async function forgetPrivateTab(tabId) {
  const tabs = await all();
  if (!(String(tabId) in tabs)) return;
  delete tabs[String(tabId)];
  await chrome.storage.session.set({ [KEY]: tabs });
}

/** Call `listener` whenever the marks change (another panel toggled one). @param {() => void} listener */
export function onPrivateTabsChanged(listener) {
  chrome.storage.session.onChanged.addListener((changes) => {
    if (KEY in changes) listener();
  });
}
