// Control while a turn runs: the run line (state in words, Resume with an optional extra
// budget: "Continue (+$0.25)" when the turn spent its budget in money, extra tokens when
// it used its token budget), the queue (edit, remove; up to 8) and the composer (Enter sends — a steering
// message while a turn runs —, Shift+Enter is a new line, Queue, Stop; Esc stops).

import { el, button, iconButton, dollars } from "../dom.js";
import { amount, continuePresets } from "../money.js";
import { providerFix } from "./error-words.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */

export const QUEUE_LIMIT = 8;

const RUN_WORDS = /** @type {Record<string, string>} */ ({
  queued: "Queued…",
  streaming: "Answering…",
  awaiting_approval: "Waiting for your approval.",
  awaiting_interaction: "Waiting for your answer.",
  executing_tool: "Using a tool…",
  paused_uncertain: "Paused: a browser action may or may not have happened (the host stopped during it). Check the page, then say what happened above.",
  budget_paused: "Paused: this turn used its token budget. Resume to give it the same budget again, or add tokens.",
  interrupted: "This turn was interrupted: the host stopped while it ran. Resume it, or send a new message.",
  failed: "This turn failed.",
});
const RESUMABLE = new Set(["interrupted", "budget_paused"]);

/**
 * A pause for money in words: what the turn spent of which budget, and the ways on.
 * @param {number | null | undefined} spent @param {number | null | undefined} budget
 */
function moneyPauseWords(spent, budget) {
  const of = budget ? ` of its ${amount(budget)} budget` : " its budget";
  const what = typeof spent === "number" ? `has spent ${dollars(spent)}${of}` : `has spent${of}`;
  const again = budget ? `give it ${amount(budget)} again` : "give it the same again";
  return `Paused: this turn ${what}. Continue with more, or Resume to ${again}.`;
}

/** @param {Store} store @param {Controller} controller */
export function mountControls(store, controller) {
  const run = /** @type {HTMLElement} */ (document.getElementById("run"));
  const runState = /** @type {HTMLElement} */ (document.getElementById("run-state"));
  const resume = /** @type {HTMLButtonElement} */ (document.getElementById("resume"));
  const budget = /** @type {HTMLElement} */ (document.getElementById("extra-budget"));
  const budgetInput = /** @type {HTMLInputElement} */ (document.getElementById("extra-tokens"));
  const moreMoney = /** @type {HTMLElement} */ (document.getElementById("more-money"));
  const queue = /** @type {HTMLElement} */ (document.getElementById("queue"));
  const queueList = /** @type {HTMLOListElement} */ (document.getElementById("queue-list"));
  const queueCount = /** @type {HTMLElement} */ (document.getElementById("queue-count"));
  const composer = /** @type {HTMLFormElement} */ (document.getElementById("composer"));
  const message = /** @type {HTMLTextAreaElement} */ (document.getElementById("message"));
  const enqueue = /** @type {HTMLButtonElement} */ (document.getElementById("enqueue"));
  const stop = /** @type {HTMLButtonElement} */ (document.getElementById("stop"));
  const hint = /** @type {HTMLElement} */ (document.getElementById("composer-hint"));
  const runSettings = /** @type {HTMLButtonElement} */ (document.getElementById("run-settings"));
  /** The setting that fixes the shown failure (null: the settings' top). @type {string | null} */
  let fixField = null;
  runSettings.addEventListener("click", () => openSettingsAt(fixField));

  /**
   * Show the settings with the field `id` in view and focused (under Advanced, opened): the
   * view renders once the host answered, so the field is looked for as it appears.
   * @param {string | null} id
   */
  function openSettingsAt(id) {
    controller.showView("settings");
    if (!id) return;
    const reach = () => {
      const field = document.getElementById(id);
      if (!field) return;
      const fold = field.closest("details");
      if (fold) fold.open = true;
      if (document.activeElement !== field) field.focus();
      field.scrollIntoView({ block: "center" });
    };
    reach();
    const root = /** @type {HTMLElement} */ (document.getElementById("settings-view"));
    const watch = new MutationObserver(reach);
    watch.observe(root, { childList: true, subtree: true });
    setTimeout(() => watch.disconnect(), 2000);
  }

  resume.addEventListener("click", () => {
    const extra = Number.parseInt(budgetInput.value, 10);
    controller.resume(Number.isFinite(extra) && extra > 0 ? extra : undefined);
  });
  const send = /** @type {HTMLButtonElement} */ (document.getElementById("send"));
  composer.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = message.value;
    if (!text.trim() || send.disabled) return;
    controller.send(text).then((sent) => {
      if (sent && message.value === text) message.value = "";
      renderRun();
    });
  });
  message.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  enqueue.addEventListener("click", () => {
    const text = message.value;
    if (!text.trim()) return;
    controller.enqueue(text).then((sent) => {
      if (sent && message.value === text) message.value = "";
      renderRun();
    });
  });
  stop.addEventListener("click", () => controller.stop());
  // Esc stops the turn only from the composer: elsewhere (editing a queued message, a
  // card, a dialog) it keeps its own meaning
  composer.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && store.turnLive) {
      event.preventDefault();
      controller.stop();
    }
  });
  message.addEventListener("input", () => renderRun());

  function renderRun() {
    const s = store.state;
    const live = store.turnLive;
    const offline = s.host.state === "disconnected";
    const typed = message.value.trim() !== "";
    // a card that waits for the user says so itself: the status line and the hint stay quiet
    const waitsOnCard = s.run?.state === "awaiting_approval" || s.run?.state === "awaiting_interaction";
    stop.hidden = !live;
    // while a turn runs, an empty box offers only Stop; with text, Send (the agent reads
    // it at its next step) or Queue (it runs after this turn)
    enqueue.hidden = !live || !typed;
    send.hidden = live && !typed;
    // offline, nothing can be sent: say so where the button is, and keep what was typed
    send.disabled = offline;
    enqueue.disabled = offline;
    hint.textContent = offline
      ? "Offline: what you type stays here until Panelot reconnects."
      : !live
        ? "Enter sends, Shift+Enter adds a line."
        : waitsOnCard && !typed
          ? "Answer the card above to go on, or stop the turn (Esc)."
          : typed
          ? "Send: the agent reads it at its next step. Queue: it runs after this turn."
          : "Working… Type to add to this turn, or stop it (Esc).";
    const paused = s.turn?.status === "paused"; // steering waits for the resume
    message.placeholder = !live ? "Ask Panelot…" : paused ? "Steer this turn (read when it resumes)…" : "Steer the running turn…";
    const state = s.run?.state;
    let text = "";
    if (s.turn?.status === "interrupted" && (!state || state === "interrupted")) text = "Stopped.";
    if (state && (live || state === "failed" || state === "interrupted")) text = RUN_WORDS[state] ?? state;
    if (state === "queued" && s.run?.waitReason) text = `Waiting: ${s.run.waitReason}.`;
    const providerFailed = s.turn?.status === "failed" && s.turn.error?.kind === "provider";
    const fix = providerFailed && s.turn?.error ? providerFix(s.turn.error.message) : null;
    if (s.turn?.status === "failed" && s.turn.error) text = `This turn failed: ${s.turn.error.message}`;
    if (fix) text = `This turn failed. ${fix.advice} The server said: ${s.turn?.error?.message}`;
    // while a step runs, the turn's line in the conversation says what it does
    if (state === "executing_tool" && live) text = "";
    if (s.turn?.status === "completed") text = "";
    const resumable = !!state && RESUMABLE.has(state) && s.turn?.status !== "completed" && s.turn?.status !== "failed";
    const moneyPause = state === "budget_paused" && s.turn?.budgetReached === "cost";
    if (moneyPause && text) text = moneyPauseWords(s.turn?.costUsd, s.turn?.costBudgetUsd);
    run.hidden = text === "" || waitsOnCard;
    runState.textContent = text;
    resume.hidden = !resumable;
    renderMoreMoney(moneyPause && resumable ? s.turn?.costBudgetUsd : null);
    // a turn the model's configuration failed: the way to the fix is in the panel
    runSettings.hidden = !fix;
    runSettings.textContent = fix?.label ?? "Open settings";
    fixField = fix?.field ?? null;
    budget.hidden = state !== "budget_paused" || moneyPause;
    run.dataset.state = state ?? "";
  }

  /** The "Continue (+$…)" buttons, scaled from the turn's budget; none when `budget` is null. @param {number | null | undefined} budget */
  function renderMoreMoney(budget) {
    moreMoney.hidden = budget === null;
    const shown = moreMoney.dataset.budget ?? "";
    const wanted = budget === null ? "" : String(budget ?? "unknown");
    if (shown === wanted) return; // keep focus on a button across re-renders
    moreMoney.dataset.budget = wanted;
    moreMoney.replaceChildren(...(budget === null ? [] : continuePresets(budget).map((usd) =>
      button(`Continue (+${amount(usd)})`, () => controller.resume({ usd }), "more-money"))));
  }

  function renderQueue() {
    const entries = store.state.queue;
    queue.hidden = entries.length === 0;
    queueCount.textContent = `${entries.length} queued (max ${QUEUE_LIMIT})`;
    queueList.replaceChildren(...entries.map((entry, n) => {
      const li = el("li");
      const text = el("span", "queue-text", entry.text);
      const edit = iconButton("rename", `Edit queued message ${n + 1}`);
      const remove = iconButton("close", `Remove queued message ${n + 1}`);
      edit.addEventListener("click", () => {
        const input = el("input");
        input.value = entry.text;
        input.setAttribute("aria-label", `Queued message ${n + 1}`);
        const save = button("Save", () => controller.updateQueued(entry.id, input.value));
        const form = el("form", "queue-edit", input, save);
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          controller.updateQueued(entry.id, input.value);
        });
        save.type = "submit";
        li.replaceChildren(form);
        input.focus();
      });
      remove.addEventListener("click", () => controller.removeQueued(entry.id));
      li.append(text, edit, remove);
      return li;
    }));
  }

  store.on("run", renderRun);
  store.on("snapshot", renderRun);
  store.on("host", renderRun);
  store.on("queue", renderQueue);
  renderRun();
  renderQueue();
}
