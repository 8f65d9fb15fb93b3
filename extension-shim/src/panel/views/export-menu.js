// The menu of "Export thread" (the thread's header) and "Export turn" (under each finished
// turn), issue 30: a toggle button that shows a group of the formats ("Report (HTML)",
// "Animation (GIF)", "Data (JSON)", "Transcript (Markdown)"), each a button; Escape or a
// click elsewhere closes it, and the focus goes back to the toggle.

import { el } from "../dom.js";
import { EXPORT_FORMATS } from "../exports.js";

/** @typedef {import("../exports.js").ExportFormat} ExportFormat */

let menus = 0;

/**
 * @param {HTMLButtonElement} toggle  the button that opens it (its name says what is exported)
 * @param {string} groupName  the group's name: "Export this thread as"
 * @param {(format: ExportFormat) => Promise<unknown>} pick
 * @returns {HTMLElement}
 */
export function exportMenu(toggle, groupName, pick) {
  const root = el("span", "export-menu");
  const choices = el("div", "export-choices");
  choices.id = `export-choices-${++menus}`;
  choices.setAttribute("role", "group");
  choices.setAttribute("aria-label", groupName);
  choices.hidden = true;
  toggle.setAttribute("aria-expanded", "false");
  toggle.setAttribute("aria-controls", choices.id);
  /** @param {boolean} open @param {boolean} [refocus] */
  const show = (open, refocus = false) => {
    choices.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    if (open) /** @type {HTMLElement | null} */ (choices.querySelector("button"))?.focus();
    else if (refocus) toggle.focus();
  };
  toggle.addEventListener("click", () => show(choices.hidden));
  for (const [format, label] of EXPORT_FORMATS) {
    const choice = el("button", "", label);
    choice.type = "button";
    choice.addEventListener("click", async () => {
      show(false, true);
      toggle.disabled = true;
      toggle.setAttribute("aria-busy", "true");
      try {
        await pick(format);
      } finally {
        toggle.disabled = false;
        toggle.removeAttribute("aria-busy");
      }
    });
    choices.append(choice);
  }
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !choices.hidden) {
      event.stopPropagation();
      event.preventDefault();
      show(false, true);
    }
  });
  document.addEventListener("click", (event) => {
    if (!choices.hidden && !root.contains(/** @type {Node} */ (event.target))) show(false);
  });
  root.append(toggle, choices);
  return root;
}
