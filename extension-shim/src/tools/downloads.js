// browser_downloads: what Chrome downloaded during the turn. The worker lists the items
// (chrome.downloads); the host reads a finished one from the file Chrome wrote, which an
// extension cannot open. Only downloads started since the time the host gives are listed:
// the turn's, never the user's earlier ones.

import { ToolFailure } from "./errors.js";
import { describeTab, findTab, originOf } from "./tabs.js";

/** @typedef {import("./table.js").BrowserTool} BrowserTool */

/** What the host needs of an item: where it came from, where Chrome wrote it, how far it got. @param {chrome.downloads.DownloadItem} item */
export function describeDownload(item) {
  return {
    id: item.id,
    url: item.finalUrl || item.url,
    filename: item.filename,
    mime: item.mime,
    state: item.state,
    error: item.error ?? null,
    danger: item.danger,
    bytesReceived: item.bytesReceived,
    totalBytes: item.totalBytes,
    exists: item.exists,
    startTime: item.startTime,
  };
}

/** @param {Record<string, any>} args */
function startedAfter(args) {
  const since = args.startedAfter;
  if (typeof since !== "string" || Number.isNaN(Date.parse(since))) {
    throw new ToolFailure("the host gave no valid startedAfter time (an ISO 8601 string)");
  }
  return since;
}

/** @type {BrowserTool} */
export const downloadsTool = {
  name: "browser_downloads",
  pageAccess: false,
  tabless: true,
  /** Reading one is decided by the origin it came from; the list like any read of the active tab. */
  async resolve(args, threadTabs) {
    if (args.id === undefined) return describeTab(await findTab(args, undefined, threadTabs));
    const [item] = await chrome.downloads.search({ id: args.id });
    if (!item) throw new ToolFailure(`there is no download ${args.id}`);
    const url = item.finalUrl || item.url;
    return { url, origin: originOf(url) };
  },
  async run(args) {
    const items = await chrome.downloads.search({ startedAfter: startedAfter(args), orderBy: ["startTime"] });
    return {
      content: `${items.length} download${items.length === 1 ? "" : "s"}`,
      isError: false,
      details: { downloads: items.map(describeDownload) },
    };
  },
};
