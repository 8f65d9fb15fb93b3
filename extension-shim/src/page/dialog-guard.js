// The dialog guard: runs in the page's own (MAIN) world of every top frame at
// document_start, before the page's scripts (manifest `content_scripts`), and stays for the
// document's life. While an action of the agent runs, the page's alert/confirm/prompt are
// answered at once (OK, Cancel, no text) and recorded, so a dialog never blocks the page or
// the tool (`tools/page.js` arms and disarms it).
//
// What the page can learn of it (issue 25): that it is there, as on every page, never when
// an action starts. Nothing is installed or replaced at that moment: arming flips a variable
// in this closure. The record lives in the closure too, so a page cannot forge entries, and
// the control object is frozen on a non-configurable, non-writable property that the page
// cannot replace. The built-ins it uses are taken before any page script runs. A page can
// call the control itself, which only changes how its own dialogs are answered.
(() => {
  const KEY = "__panelotDialogGuard";
  const page = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (window));
  const { apply, defineProperty, getOwnPropertyDescriptor } = Reflect;
  if (getOwnPropertyDescriptor(page, KEY)) return;
  const freeze = Object.freeze;
  const toText = String;
  let armed = false;
  /** @type {string[][]} */
  let seen = [];
  /** @type {Record<string, unknown>} how the armed guard answers: OK, Cancel, no text */
  let answers = { alert: undefined, confirm: false, prompt: null };
  /** @param {unknown} value @returns {string} */
  const said = (value) => (value === undefined ? "OK" : value === true ? "OK" : value === false ? "Cancel" : value === null ? "Cancel (no text)" : `OK with ${JSON.stringify(value)}`);
  for (const kind of ["alert", "confirm", "prompt"]) {
    const original = /** @type {(...args: unknown[]) => unknown} */ (page[kind]);
    if (typeof original !== "function") continue;
    // a Proxy keeps the original's name, length and string form
    const guarded = new Proxy(original, {
      apply(target, self, args) {
        if (!armed) return apply(target, self, args);
        const entry = [kind, args.length ? toText(args[0] ?? "") : "", said(answers[kind])];
        // an own property, not a push: no setter the page put on Array.prototype runs
        defineProperty(seen, seen.length, { value: entry, writable: true, enumerable: true, configurable: true });
        return answers[kind];
      },
    });
    defineProperty(page, kind, { value: guarded, writable: true, configurable: true, enumerable: true });
  }
  const control = freeze({
    /**
     * Answer and record dialogs from now on: OK, Cancel, no text; or, as the agent was told
     * for this action (`browser_handle_dialog`), OK to a confirm and a prompt's text. Only
     * own properties are read: no getter of the page runs.
     * @param {unknown} [next]
     */
    arm(next) {
      const own = (/** @type {string} */ name) => (next && typeof next === "object" ? getOwnPropertyDescriptor(next, name)?.value : undefined);
      const accept = own("accept") === true;
      const text = own("promptText");
      answers = { alert: undefined, confirm: accept, prompt: accept ? (typeof text === "string" ? text : "") : null };
      armed = true;
      seen = [];
    },
    /** Stop, and give what was recorded since `arm`. @returns {string[][]} */
    disarm() {
      armed = false;
      const taken = seen;
      seen = [];
      return taken;
    },
  });
  defineProperty(page, KEY, { value: control, writable: false, configurable: false, enumerable: false });
})();
