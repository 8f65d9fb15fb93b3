// The thread list as a drawer: closed at first, so the conversation has the panel's height;
// "Threads" opens it over the conversation (focus goes to its search box), and picking a
// thread, starting a new one, Esc or a click beside it closes it again (focus returns to
// the button that opened it).

/**
 * @param {HTMLButtonElement} toggle @param {HTMLElement} drawer @param {HTMLElement} scrim
 * @param {HTMLElement} search
 */
export function mountThreadDrawer(toggle, drawer, scrim, search) {
  /** @param {boolean} open @param {{focus?: boolean}} [how] */
  function show(open, how = {}) {
    toggle.setAttribute("aria-expanded", String(open));
    drawer.hidden = !open;
    scrim.hidden = !open;
    if (open) search.focus();
    else if (how.focus) toggle.focus();
  }
  show(false);
  toggle.addEventListener("click", () => show(toggle.getAttribute("aria-expanded") !== "true"));
  scrim.addEventListener("click", () => show(false, { focus: true }));
  drawer.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.stopPropagation(); // Esc closes the drawer; it does not stop a turn
    show(false, { focus: true });
  });
  drawer.addEventListener("click", (event) => {
    const picked = /** @type {HTMLElement} */ (event.target).closest?.("button.thread");
    if (picked) show(false);
  });
  return { close: () => show(false) };
}
