// A turn's browser steps, folded under one line. While the turn runs the line says what the
// agent is doing now ("Step 7 · Clicking the button “Sign in” on shop.example") with a chip
// for the tab it works in (favicon, title, site; clicking it shows that tab); once the
// turn ended it counts the steps and the failed ones ("12 steps · 1 failed"), and the
// final answer says "1 step failed". The steps (and the model's narration between them)
// unfold under the line; questions, notices and steps whose outcome is unknown stay in view.

import { el, button } from "../dom.js";
import { actionWords, siteOf } from "./action-words.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../store.js").Item} Item */
/** @typedef {Extract<Item, {kind: "toolCall"}>} ToolCall */
/** @typedef {import("./action-words.js").ActionTarget} ActionTarget */

/** Steps that act on no tab: the line's chip shows the tab of another step. */
const ON_NO_TAB = new Set(["browser_tabs_list", "browser_downloads"]);

/** A tool call that is a step of the turn's work (a question to the user is a conversation). @param {Item} item */
export function isStep(item) {
  return item.kind === "toolCall" && item.name !== "ask_user";
}

/** @param {ToolCall} call */
function unsettled(call) {
  return !call.result && (call.status === "pending" || call.status === "running" || call.status === "awaiting_approval");
}

/** A step that went wrong (one the user denied did not: it is counted apart). @param {ToolCall} call */
function failed(call) {
  return call.status === "failed" || call.status === "uncertain";
}

/** @param {number} n @param {string} one */
function count(n, one) {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

/**
 * What a step is doing now, in the live line's words.
 * @param {ToolCall} call
 */
export function doingWords(call) {
  const label = /** @type {{label?: string | null}} */ (call).label ?? call.name;
  return actionWords("doing", call.name, label, /** @type {Record<string, any>} */ (call.args ?? {}), call.target ?? {});
}

/**
 * What a settled step did, in the past tense; a failed step says what it tried.
 * @param {ToolCall} call
 */
export function doneWords(call) {
  const label = /** @type {{label?: string | null}} */ (call).label ?? call.name;
  const args = /** @type {Record<string, any>} */ (call.args ?? {});
  const target = call.target ?? {};
  return call.status !== "succeeded" ? actionWords("ask", call.name, label, args, { ...target, tabId: null }) : actionWords("done", call.name, label, args, target);
}

/**
 * The chip of the tab a step works in: favicon, title and site; clicking it shows the tab.
 * @param {ActionTarget & {url?: string | null}} target
 */
export function tabChip(target) {
  const tabId = target.tabId;
  const site = target.origin ? siteOf(target.origin) : "";
  const title = target.title || site || "a tab";
  const chip = el("button", "tab-chip");
  chip.type = "button";
  chip.title = "Show this tab";
  const icon = el("img", "favicon");
  icon.alt = "";
  icon.width = 16;
  icon.height = 16;
  const page = target.url || target.origin;
  if (page) icon.src = chrome.runtime.getURL(`/_favicon/?pageUrl=${encodeURIComponent(page)}&size=16`);
  // its name is what it shows, after what it does: "Show the tab Counter shop.example"
  chip.append(el("span", "visually-hidden", "Show the tab "), icon, el("span", "tab-chip-title", title));
  if (site && site !== title) chip.append(el("span", "tab-chip-site", site));
  chip.addEventListener("click", async () => {
    if (typeof tabId !== "number") return;
    try {
      const tab = await chrome.tabs.update(tabId, { active: true });
      if (tab?.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true });
    } catch {
      chip.disabled = true;
      chip.title = "This tab is closed.";
    }
  });
  return chip;
}

/**
 * Folds each turn's steps under its line, in the conversation list `log` (its rows carry
 * `data-turn`, `data-kind`, and `data-step` / `data-keep` for tool calls).
 * @param {Store} store @param {HTMLOListElement} log
 */
export function mountSteps(store, log) {
  /** Turns the user unfolded (all are folded at first). @type {Set<string>} */
  const unfolded = new Set();

  /** @param {string} turnId */
  function toggle(turnId) {
    if (unfolded.has(turnId)) unfolded.delete(turnId);
    else unfolded.add(turnId);
    regroup(turnId);
  }

  /** @param {string} turnId */
  function lineOf(turnId) {
    const known = /** @type {HTMLLIElement | null} */ (log.querySelector(`:scope > li[data-steps-of="${CSS.escape(turnId)}"]`));
    if (known) return known;
    const li = el("li", "steps-line");
    li.dataset.kind = "steps";
    li.dataset.stepsOf = turnId;
    return li;
  }

  /** Lay out one turn: its line before its first step, the rows between folded or not. @param {string} turnId */
  function regroup(turnId) {
    const s = store.state;
    /** @type {ToolCall[]} */
    const steps = [];
    for (const item of s.items.values()) if (item.turnId === turnId && isStep(item)) steps.push(/** @type {ToolCall} */ (item));
    const turnRows = /** @type {HTMLLIElement[]} */ ([...log.querySelectorAll(`:scope > li[data-turn="${CSS.escape(turnId)}"]`)]);
    const stepRows = turnRows.filter((li) => li.dataset.step === "true");
    const line = log.querySelector(`:scope > li[data-steps-of="${CSS.escape(turnId)}"]`);
    if (!steps.length || !stepRows.length) {
      line?.remove();
      for (const li of turnRows) delete li.dataset.folded;
      return;
    }
    const live = s.turn?.id === turnId && store.turnLive;
    const open = unfolded.has(turnId);
    const first = turnRows.indexOf(stepRows[0]);
    const last = turnRows.indexOf(stepRows[stepRows.length - 1]);
    turnRows.forEach((li, n) => {
      const inside = n >= first && n <= last;
      const keep = li.dataset.kind === "notice" || li.dataset.keep === "true"; // questions, unknown outcomes
      if (inside && !keep && !open) li.dataset.folded = "true";
      else delete li.dataset.folded;
    });
    const row = lineOf(turnId);
    if (row.nextSibling !== turnRows[first] || !row.isConnected) log.insertBefore(row, turnRows[first]);
    fillLine(row, turnId, steps, live, open);
    markAnswer(turnRows, last, steps, live, turnId);
  }

  /**
   * @param {HTMLLIElement} row @param {string} turnId @param {ToolCall[]} steps
   * @param {boolean} live @param {boolean} open
   */
  function fillLine(row, turnId, steps, live, open) {
    const failures = steps.filter(failed).length;
    const current = steps.findIndex(unsettled);
    const unknown = steps.findIndex((step) => step.status === "uncertain");
    const paused = live && store.state.turn?.status === "paused";
    let words;
    if (live && unknown >= 0) words = `Step ${unknown + 1} · outcome unknown: answer “Did this happen?” below`;
    else if (paused) words = `${count(steps.length, "step")} so far · paused`;
    else if (live && current >= 0) words = `Step ${current + 1} · ${doingWords(withTarget(steps[current]))}`;
    else if (live) words = `${count(steps.length, "step")} so far · working out the next one`;
    else {
      const denied = steps.filter((step) => step.status === "denied").length;
      words = `${count(steps.length, "step")}${failures ? ` · ${failures} failed` : ""}${denied ? ` · ${denied} denied` : ""}`;
    }
    const toggle = button(words, () => toggleFrom(turnId), "steps-toggle");
    toggle.setAttribute("aria-expanded", String(open));
    toggle.title = open ? "Hide the steps" : "Show each step";
    /** @type {HTMLElement[]} */
    const parts = [toggle];
    if (live && !paused) {
      const motion = el("span", "working");
      motion.setAttribute("aria-hidden", "true");
      parts.unshift(motion);
    }
    const where = [...steps].reverse().map(withTarget).find((step) => !ON_NO_TAB.has(step.name) && typeof step.target?.tabId === "number");
    row.replaceChildren(...parts, ...(where?.target ? [tabChip(where.target)] : []));
    row.dataset.live = String(live);
    row.dataset.failed = String(failures);
  }

  /**
   * A step with what it acts on: its own target once it runs, before that the target its
   * approval card names.
   * @param {ToolCall} step @returns {ToolCall}
   */
  function withTarget(step) {
    if (step.target) return step;
    for (const approval of store.state.approvals.values()) {
      if (approval.toolCallId === step.id && approval.target) return { ...step, target: approval.target };
    }
    return step;
  }

  /** @param {string} turnId */
  function toggleFrom(turnId) {
    toggle(turnId);
    /** @type {HTMLElement | null} */ (log.querySelector(`:scope > li[data-steps-of="${CSS.escape(turnId)}"] .steps-toggle`))?.focus();
  }

  /**
   * The answer after the turn's last step says how many steps failed, with a way to see them.
   * @param {HTMLLIElement[]} turnRows @param {number} last @param {ToolCall[]} steps
   * @param {boolean} live @param {string} turnId
   */
  function markAnswer(turnRows, last, steps, live, turnId) {
    for (const old of turnRows.flatMap((li) => [...li.querySelectorAll(":scope > .steps-failed")])) old.remove();
    const failures = steps.filter(failed).length;
    const answer = turnRows.slice(last + 1).filter((li) => li.dataset.kind === "assistant" && !li.hidden).pop();
    if (live || !failures || !answer) return;
    const note = el("p", "steps-failed", `${count(failures, "step")} failed. `);
    note.append(button(unfolded.has(turnId) ? "Hide the steps" : "Show the steps", () => toggleFrom(turnId), "link"));
    answer.append(note);
  }

  function regroupAll() {
    const turns = new Set();
    for (const li of /** @type {NodeListOf<HTMLLIElement>} */ (log.querySelectorAll(":scope > li[data-turn]"))) turns.add(li.dataset.turn ?? "");
    for (const line of /** @type {NodeListOf<HTMLLIElement>} */ (log.querySelectorAll(":scope > li[data-steps-of]"))) {
      if (!turns.has(line.dataset.stepsOf)) line.remove();
    }
    for (const turnId of turns) if (turnId) regroup(turnId);
  }

  return { regroup, regroupAll };
}
