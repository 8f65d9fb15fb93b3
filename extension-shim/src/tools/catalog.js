// The browser tools this extension can run, in one table, with the state they share: the
// latest snapshot of each tab (refs are only valid in the document they came from), its
// latest screenshot (browser_click_at takes points of it), the timeline's frames (`capture.js`) and the debugger attachments of
// L2 calls (by tab, each owned by the Turn of its call).

import { actTools } from "./act-tools.js";
import { FrameCapture } from "./capture.js";
import { forgetPrivateTab } from "../private-tabs.js";
import { DebuggerSessions } from "./debugger.js";
import { downloadsTool } from "./downloads.js";
import { SnapshotRecords } from "./page.js";
import { pageTools } from "./page-tools.js";
import { ScreenshotRecords, screenshotTool } from "./screenshot.js";
import { navigate, navigateBack, tabCloseTool, tabNew, tabSelect, tabsList } from "./tab-tools.js";
import { ToolTable } from "./table.js";

/** @typedef {import("./uploads.js").StagedUploads} StagedUploads */

/** @param {string} ownOrigin @param {StagedUploads} uploads the files users picked for uploads @returns {ToolTable} */
export function createToolTable(ownOrigin, uploads) {
  const records = new SnapshotRecords();
  const debuggers = new DebuggerSessions();
  const shots = new ScreenshotRecords();
  chrome.tabs.onRemoved.addListener((tabId) => {
    records.forget(tabId);
    shots.forget(tabId);
    void forgetPrivateTab(tabId).catch(() => {});
  });
  chrome.debugger.onDetach.addListener((source) => debuggers.lost(source));
  const table = new ToolTable(ownOrigin)
    .register(tabsList)
    .register(tabNew)
    .register(tabSelect)
    .register(tabCloseTool(records))
    .register(navigate)
    .register(navigateBack)
    .register(screenshotTool(debuggers, shots))
    .register(downloadsTool);
  for (const tool of [...pageTools(records), ...actTools(records, debuggers, shots, uploads)]) table.register(tool);
  table.capture = new FrameCapture(ownOrigin);
  table.onDetach((threadId, turnId) => void debuggers.releaseTurn(threadId, turnId));
  return table;
}
