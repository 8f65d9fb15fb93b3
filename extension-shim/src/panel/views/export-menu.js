// The menu of "Export thread" (the thread's header) and "Export turn" (on each finished
// turn), issue 30: a toggle button that shows a group of the formats ("Report (HTML)",
// "Animation (GIF)", "Data (JSON)", "Transcript (Markdown)"), each a button; Escape or a
// click elsewhere closes it, and the focus goes back to the toggle. The group is in the
// page only while it is open (the conversation's rows keep their text).

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
  const id = `export-choices-${++menus}`;
  /** @type {HTMLElement | null} */
  let choices = null;
  toggle.setAttribute("aria-expanded", "false");
  /** @param {boolean} [refocus] */
  const close = (refocus = false) => {
    if (!choices) return;
    choices.remove();
    choices = null;
    toggle.setAttribute("aria-expanded", "false");
    toggle.removeAttribute("aria-controls");
    document.removeEventListener("click", outside, true);
    if (refocus) toggle.focus();
  };
  /** @param {Event} event */
  const outside = (event) => {
    if (!root.contains(/** @type {Node} */ (event.target))) close();
  };
  const open = () => {
    choices = el("div", "export-choices");
    choices.id = id;
    choices.setAttribute("role", "group");
    choices.setAttribute("aria-label", groupName);
    for (const [format, label] of EXPORT_FORMATS) {
      const choice = el("button", "", label);
      choice.type = "button";
      choice.addEventListener("click", async () => {
        close(true);
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
    root.append(choices);
    toggle.setAttribute("aria-expanded", "true");
    toggle.setAttribute("aria-controls", id);
    document.addEventListener("click", outside, true);
    /** @type {HTMLElement | null} */ (choices.querySelector("button"))?.focus();
  };
  toggle.addEventListener("click", () => (choices ? close() : open()));
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && choices) {
      event.stopPropagation();
      event.preventDefault();
      close(true);
    }
  });
  root.append(toggle);
  return root;
}
