// The browser tools this extension can run, in one table.

import { screenshot } from "./screenshot.js";
import { navigate, tabNew, tabSelect, tabsList } from "./tab-tools.js";
import { ToolTable } from "./table.js";

/** @param {string} ownOrigin @returns {ToolTable} */
export function createToolTable(ownOrigin) {
  return new ToolTable(ownOrigin)
    .register(tabsList)
    .register(tabNew)
    .register(tabSelect)
    .register(navigate)
    .register(screenshot);
}
