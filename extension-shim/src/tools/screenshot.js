// browser_screenshot of the visible tab (the viewport). A full-page capture needs the
// debugger (level L2) and comes with the browser-tools issue.

import { ToolFailure } from "./errors.js";
import { describeTab } from "./tabs.js";

/** @typedef {import("./table.js").BrowserTool} BrowserTool */

/** @type {BrowserTool} */
export const screenshot = {
  name: "browser_screenshot",
  pageAccess: true,
  async run(args, ctx) {
    const tab = /** @type {chrome.tabs.Tab} */ (ctx.tab);
    if (args.fullPage === true) {
      throw new ToolFailure("full-page screenshots are not available in this version; take one of the viewport (fullPage false)");
    }
    if (!tab.active) {
      throw new ToolFailure(`tab ${tab.id} is not visible; select it first with browser_tab_select`);
    }
    const dataUrl = await chrome.tabs.captureVisibleTab(tab.windowId, { format: "png" });
    ctx.signal.throwIfAborted();
    const data = dataUrl.slice(dataUrl.indexOf(",") + 1);
    const target = describeTab(tab);
    return {
      content: [
        { type: "text", text: `Screenshot of tab ${target.tabId} (${target.url}), the visible part of the page.` },
        { type: "image", mediaType: "image/png", data },
      ],
      isError: false,
      target,
    };
  },
};
