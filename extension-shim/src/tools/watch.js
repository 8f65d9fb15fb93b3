// Watching a tab while something runs in it: did it start loading, finish, close? And a
// sleep that the tool's signal cuts short.

import { bounded } from "./page.js";
import { originOf } from "./tabs.js";

/** @param {number} ms @param {AbortSignal} signal */
export function sleep(ms, signal) {
  return bounded(new Promise((resolve) => setTimeout(resolve, ms)), signal, ms + 1_000, "a timer");
}

/**
 * What happens to a tab while an action runs: navigation, closing, downloads. A download
 * names no tab: one whose referrer is a page of another origin than `origin` (the tab's, at
 * the start) came from another tab, e.g. another thread's action running meanwhile; one
 * without a referrer cannot be told apart and counts.
 * @param {number} tabId @param {string} [origin]
 */
export function watchTab(tabId, origin) {
  const seen = { loading: false, complete: false, removed: false };
  /** @param {number} id @param {chrome.tabs.OnUpdatedInfo} change */
  const onUpdated = (id, change) => {
    if (id !== tabId) return;
    if (change.status === "loading") Object.assign(seen, { loading: true, complete: false });
    if (change.status === "complete") seen.complete = true;
  };
  /** @param {number} id */
  const onRemoved = (id) => {
    if (id === tabId) seen.removed = true;
  };
  /** @type {{id: number, url: string, mime: string}[]} downloads started meanwhile (they carry no tab id) */
  const downloads = [];
  /** @param {chrome.downloads.DownloadItem} item */
  const onDownload = (item) => {
    if (origin && item.referrer && originOf(item.referrer) !== origin) return;
    downloads.push({ id: item.id, url: item.finalUrl || item.url, mime: item.mime });
  };
  chrome.tabs.onUpdated.addListener(onUpdated);
  chrome.tabs.onRemoved.addListener(onRemoved);
  chrome.downloads?.onCreated.addListener(onDownload);
  return {
    seen,
    downloads,
    stop() {
      chrome.tabs.onUpdated.removeListener(onUpdated);
      chrome.tabs.onRemoved.removeListener(onRemoved);
      chrome.downloads?.onCreated.removeListener(onDownload);
    },
  };
}


/**
 * After something that may navigate `watch`'s tab: wait up to `startMs` for a load to
 * start (a download instead ends the wait: it does not load the tab), then up to `boundMs`
 * for it to finish. Returns whether a load started.
 * @param {ReturnType<typeof watchTab>} watch @param {AbortSignal} signal @param {number} startMs @param {number} boundMs
 */
export async function settle(watch, signal, startMs, boundMs) {
  const startBy = Date.now() + startMs;
  const waiting = () => !watch.seen.loading && !watch.seen.removed && !watch.downloads.length;
  while (waiting() && Date.now() < startBy) await sleep(25, signal);
  if (!watch.seen.loading) return false;
  const until = Date.now() + boundMs;
  while (!watch.seen.complete && !watch.seen.removed && Date.now() < until) await sleep(50, signal);
  return true;
}
