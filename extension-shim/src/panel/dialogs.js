// Modal questions the panel asks the user itself (rename, delete), on the page's one
// <dialog>: keyboard-accessible, Esc cancels, focus returns to where it was.

import { el } from "./dom.js";

/** @param {HTMLDialogElement} dialog */
export function makeDialogs(dialog) {
  /**
   * @param {string} title @param {Node[]} body @param {string} action @param {HTMLElement | null} focus
   * @returns {Promise<boolean>}
   */
  function ask(title, body, action, focus) {
    const returnTo = /** @type {HTMLElement | null} */ (document.activeElement);
    const heading = el("h2", "", title);
    heading.id = "dialog-title";
    dialog.setAttribute("aria-labelledby", "dialog-title");
    const form = el("form", "dialog-form");
    form.method = "dialog";
    const cancel = el("button", "", "Cancel");
    cancel.value = "cancel";
    const confirm = el("button", action === "Delete" ? "danger" : "primary", action);
    confirm.value = "ok";
    form.append(...body, el("div", "dialog-buttons", cancel, confirm));
    dialog.replaceChildren(heading, form);
    dialog.returnValue = "";
    dialog.showModal();
    (focus ?? confirm).focus();
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => {
        returnTo?.focus();
        resolve(dialog.returnValue === "ok");
      }, { once: true });
    });
  }

  return {
    /** @param {string} title @param {string} body @param {string} action */
    confirm: (title, body, action) => ask(title, [el("p", "", body)], action, null),
    /** @param {string} title @param {string} label @param {string} value */
    prompt: async (title, label, value) => {
      const input = el("input");
      input.value = value;
      input.id = "dialog-input";
      input.maxLength = 200;
      const lab = el("label", "", label);
      lab.htmlFor = "dialog-input";
      const ok = await ask(title, [lab, input], "Rename", input);
      return ok ? input.value : null;
    },
  };
}
