// The conversation list: messages (user and steering as text, answers as sanitised
// Markdown), tool-call cards, notices and errors, and the cards that wait for the user
// (approvals, questions, uncertain writes) — all as items of one list, in the order the
// engine stored them. Pure renderers draw the items (messages.js, compaction.js,
// tool-card.js, cards.js); this list keeps their rows: it renders the newest items of a
// long thread and older ones as the user scrolls up, streams answers into the DOM once per
// animation frame, keeps the newest text in view unless the user scrolled up, and re-draws
// what a change of the run or the cards touches; each turn's timeline (timeline.js) follows
// its last row.

import { el, button, dollars, totalTokens, usageWords } from "../dom.js";
import { renderMarkdown } from "../markdown.js";
import { approvalCard, questionCard } from "./cards.js";
import { isStep, mountSteps } from "./steps.js";
import { branchSwitcher, messageActions, noticeLabel, thinkingBox } from "./messages.js";
import { compactionDivider } from "./compaction.js";
import { shownStatus, toolCard } from "./tool-card.js";
import { mountTimeline } from "./timeline.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../store.js").Item} Item */
/** @typedef {import("../controller.js").Controller} Controller */

const STICK_PX = 48;
/** Items rendered when a thread opens; older ones are added in batches as the user scrolls up. */
const WINDOW = 60;
/** Streaming: a full Markdown render at most once per this many times its own cost. */
const RENDER_COST_FACTOR = 8;
const MIN_RENDER_GAP_MS = 50;
/** A full render that took longer than this is not repeated while the answer streams (the
 * text keeps arriving as plain text; the Markdown is rendered once the item completes). */
const STREAM_RENDER_BUDGET_MS = 12;
/** Older items added per batch when scrolling up (small enough to stay within a frame). */
const EARLIER_BATCH = 20;

/** @param {Store} store @param {Controller} controller */
export function mountChat(store, controller) {
  const log = /** @type {HTMLOListElement} */ (document.getElementById("log"));
  const scroller = /** @type {HTMLElement} */ (document.getElementById("scroller"));
  const latest = /** @type {HTMLButtonElement} */ (document.getElementById("jump-latest"));
  const viewer = /** @type {HTMLDialogElement} */ (document.getElementById("image-viewer"));
  /** @type {Map<string, HTMLLIElement>} */
  const rows = new Map();
  const steps = mountSteps(store, log);
  const timeline = mountTimeline(store, controller, log, scroller);
  /** @type {Set<string>} */
  const dirty = new Set();
  let frame = 0;
  let stick = true;
  /** Index (in the thread's items) of the oldest rendered item. */
  let shownFrom = 0;
  /** Counts full renders: a batch of older items started before one is dropped. */
  let shownGeneration = 0;
  let loading = false;
  /** Streaming answers: when and at what cost the last full Markdown render ran, and how much text it showed. @type {Map<string, {at: number, cost: number, shown: number, tail: Text | null}>} */
  const streaming = new Map();
  const earlier = /** @type {HTMLButtonElement} */ (document.getElementById("earlier"));
  earlier.addEventListener("click", () => showEarlier());
  new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) showEarlier();
  }, { root: scroller, rootMargin: "400px 0px 0px 0px" }).observe(earlier);

  scroller.addEventListener("scroll", () => {
    stick = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < STICK_PX;
    if (stick) latest.hidden = true;
  });
  latest.addEventListener("click", () => {
    stick = true;
    latest.hidden = true;
    scroller.scrollTop = scroller.scrollHeight;
  });
  viewer.addEventListener("click", (event) => {
    if (event.target === viewer) viewer.close();
  });

  /** An image of a result, full size in the viewer. @param {string} src @param {string} label */
  function openImage(src, label) {
    const full = el("img");
    full.src = src;
    full.alt = label;
    viewer.replaceChildren(full, button("Close", () => viewer.close()));
    viewer.showModal();
  }

  function followNewest() {
    if (stick) scroller.scrollTop = scroller.scrollHeight;
    else latest.hidden = false;
  }

  function renderAll() {
    rows.clear();
    dirty.clear();
    const s = store.state;
    streaming.clear();
    const items = [...s.items.values()];
    shownFrom = Math.max(0, items.length - WINDOW);
    shownGeneration += 1;
    log.replaceChildren(...items.slice(shownFrom).map(row));
    steps.regroupAll();
    timeline.placeAll();
    updateEarlier();
    renderCards();
    renderSteering();
    renderUsage();
    stick = true;
    latest.hidden = true;
    scroller.scrollTop = scroller.scrollHeight;
  }

  function updateEarlier() {
    earlier.hidden = shownFrom === 0;
    earlier.textContent = `Show ${shownFrom} earlier ${shownFrom === 1 ? "item" : "items"}`;
  }

  /**
   * Render older items above the shown ones, in idle time (as many per idle period as fit,
   * so scrolling keeps its frames), keeping the view still; go on while the button that
   * marks the top is near the view.
   */
  function showEarlier() {
    if (loading || shownFrom === 0) return;
    loading = true;
    const generation = shownGeneration;
    let wanted = EARLIER_BATCH;
    /** @param {IdleDeadline} deadline */
    const step = (deadline) => {
      if (generation !== shownGeneration) {
        loading = false;
        return;
      }
      const items = [...store.state.items.values()];
      /** @type {HTMLLIElement[]} */
      const batch = [];
      while (wanted > 0 && shownFrom > 0 && (batch.length === 0 || deadline.timeRemaining() > 3)) {
        shownFrom -= 1;
        wanted -= 1;
        batch.unshift(row(items[shownFrom]));
      }
      const before = scroller.scrollHeight;
      log.prepend(...batch);
      steps.regroupAll();
      timeline.placeAll();
      scroller.scrollTop += scroller.scrollHeight - before;
      updateEarlier();
      if (wanted > 0 && shownFrom > 0) {
        requestIdleCallback(step, { timeout: 200 });
        return;
      }
      loading = false;
      const near = earlier.getBoundingClientRect().bottom > scroller.getBoundingClientRect().top - 400;
      if (!earlier.hidden && near) showEarlier();
    };
    requestIdleCallback(step, { timeout: 200 });
  }

  /** @param {Item} item */
  function row(item) {
    const li = el("li");
    li.dataset.kind = item.kind;
    rows.set(item.id, li);
    fill(li, item);
    return li;
  }

  /** @param {HTMLLIElement} li @param {Item} item */
  function fill(li, item) {
    const s = store.state;
    li.dataset.turn = item.turnId;
    switch (item.kind) {
      case "user":
      case "steering": {
        li.replaceChildren(el("div", "text", item.text), messageActions(item, controller));
        const point = s.branches.get(item.id);
        if (point) li.append(branchSwitcher(point, controller));
        break;
      }
      case "assistant": {
        const body = el("div", "md");
        renderMarkdown(body, item.text ?? "");
        li.replaceChildren(body, messageActions(item, controller));
        if (item.thinking) li.prepend(thinkingBox(item.thinking, renderMarkdown));
        li.hidden = !item.text && !item.thinking; // an answer that starts with a tool call has no text
        if (item.interrupted) li.dataset.interrupted = "true";
        break;
      }
      case "toolCall": {
        const status = shownStatus(item, s);
        li.replaceChildren(toolCard(item, { status, progress: s.progress.get(item.id), times: s.toolTimes.get(item.id), controller, openImage }));
        if (isStep(item)) li.dataset.step = "true";
        // a question and an action whose outcome is unknown stay in view when steps fold
        if (!isStep(item) || item.status === "uncertain") li.dataset.keep = "true";
        else delete li.dataset.keep;
        break;
      }
      case "notice":
        // the user's words when the engine stored them apart from what it told the model
        li.replaceChildren(el("span", "notice-label", noticeLabel(item.code)), el("span", "", item.userText ?? item.text));
        break;
      case "compaction":
        li.replaceChildren(compactionDivider(item));
        break;
    }
  }

  /** Re-draw the cards of unsettled calls (their shown status follows the run). */
  function refreshUnsettled() {
    for (const item of store.state.items.values()) {
      if (item.kind === "toolCall" && !item.result) {
        const li = rows.get(item.id);
        if (li) fill(li, item);
      }
    }
  }

  /** @param {string} id */
  function upsert(id) {
    const item = store.state.items.get(id);
    if (!item) return;
    const known = rows.get(id);
    streaming.delete(id);
    if (known) fill(known, item);
    else {
      const li = row(item);
      const firstCard = log.querySelector(":scope > li[data-card]");
      log.insertBefore(li, firstCard);
    }
    steps.regroup(item.turnId);
    timeline.place(item.turnId);
    if (store.state.pendingSteering.has(id)) renderSteering();
    followNewest();
  }

  function flush() {
    frame = 0;
    for (const id of dirty) {
      const item = store.state.items.get(id);
      const li = rows.get(id);
      if (!item || !li || item.kind !== "assistant") continue;
      const body = /** @type {HTMLElement | null} */ (li.querySelector(":scope > .md"));
      if (body) streamInto(id, body, item.text ?? "");
      if (item.thinking) {
        const shown = /** @type {HTMLElement | null} */ (li.querySelector(":scope > .thinking > .thinking-text"));
        if (shown) renderMarkdown(shown, item.thinking);
        else li.prepend(thinkingBox(item.thinking, renderMarkdown));
      }
      li.hidden = !item.text && !item.thinking;
    }
    dirty.clear();
    followNewest();
  }

  /**
   * Show streamed text at once: the new text is appended as plain text after the last
   * render, and the whole answer is rendered as Markdown again only when that is cheap
   * enough (at most once per RENDER_COST_FACTOR times its own cost), and always when the
   * item completes.
   * @param {string} id @param {HTMLElement} body @param {string} text
   */
  function streamInto(id, body, text) {
    const now = performance.now();
    const state = streaming.get(id);
    const due = state && state.cost <= STREAM_RENDER_BUDGET_MS && now - state.at >= Math.max(MIN_RENDER_GAP_MS, state.cost * RENDER_COST_FACTOR);
    if (!state || due) {
      renderMarkdown(body, text);
      void body.offsetHeight; // the cost of a render includes its layout
      streaming.set(id, { at: performance.now(), cost: performance.now() - now, shown: text.length, tail: null });
      return;
    }
    if (text.length <= state.shown) return;
    const added = text.slice(state.shown);
    state.shown = text.length;
    if (state.tail?.isConnected) state.tail.appendData(added);
    else {
      state.tail = document.createTextNode(added);
      const block = body.lastElementChild;
      (block && !block.classList.contains("code") ? block : body).append(state.tail);
    }
  }

  /** @param {string | undefined} id */
  function onDelta(id) {
    if (!id) return;
    const item = store.state.items.get(id);
    if (item?.kind === "toolCall") return upsert(id);
    if (!rows.has(id)) return upsert(id);
    dirty.add(id);
    if (!frame) frame = requestAnimationFrame(flush);
  }

  /**
   * Approvals and questions at the end of the list, in arrival order. A card still pending
   * is kept as it is (files picked, an answer half typed); a new one is built.
   */
  function renderCards() {
    const s = store.state;
    /** @type {Map<string, HTMLElement>} */
    const kept = new Map();
    for (const old of /** @type {NodeListOf<HTMLElement>} */ (log.querySelectorAll(":scope > li[data-card]"))) {
      kept.set(old.dataset.key ?? "", old);
      old.remove();
    }
    /** @param {string} key @param {() => HTMLElement} make */
    const card = (key, make) => {
      const li = kept.get(key) ?? make();
      li.dataset.key = key;
      return li;
    };
    for (const approval of s.approvals.values()) log.append(card(`approval:${approval.requestId}`, () => approvalCard(approval, store.state.items, controller)));
    for (const interaction of s.interactions.values()) log.append(card(`question:${interaction.interactionId}`, () => questionCard(interaction, controller)));
    followNewest();
  }

  /** Steering messages acknowledged but not yet read by the model, after the items. */
  function renderSteering() {
    for (const old of log.querySelectorAll(":scope > li[data-pending]")) old.remove();
    const s = store.state;
    for (const [id, steer] of s.pendingSteering) {
      if (s.items.has(id)) continue; // admitted: it is in the list where the engine put it
      const li = el("li", "", el("div", "text", steer.text), el("span", "badge", "pending"));
      li.dataset.kind = "steering";
      li.dataset.pending = "true";
      log.insertBefore(li, log.querySelector(":scope > li[data-card]"));
    }
    followNewest();
  }

  /** Each finished turn's tokens and dollars after its last item (CSS, not item text). */
  function renderUsage() {
    const s = store.state;
    for (const [turnId, usage] of s.turnUsage) {
      const last = [...log.querySelectorAll(`:scope > li[data-turn="${CSS.escape(turnId)}"]`)].filter((li) => !(/** @type {HTMLElement} */ (li).hidden)).pop();
      if (!last) continue;
      // a turn that made no model call (it failed first) used nothing: say so, not "$0.0000"
      // in money, as people count; a turn that made no model call (it failed first) cost nothing
      /** @type {HTMLElement} */ (last).dataset.usage = totalTokens(usage.usage) ? `This turn: ${dollars(usage.costUsd)}` : "This turn: no model call";
      /** @type {HTMLElement} */ (last).dataset.tokens = usageWords(usage.usage);
    }
  }

  /** A card or the run changed: only the live turn's line can change (not every turn's). */
  function regroupShownTurn() {
    const turnId = store.state.turn?.id;
    if (turnId) steps.regroup(turnId);
  }

  store.on("snapshot", renderAll);
  store.on("item", (id) => id && upsert(id));
  store.on("delta", onDelta);
  store.on("cards", () => {
    renderCards();
    refreshUnsettled();
    regroupShownTurn();
    timeline.placeAll(); // an approval decided: the timeline's marks
  });
  store.on("steering", renderSteering);
  store.on("run", () => {
    renderUsage();
    refreshUnsettled();
    regroupShownTurn();
    timeline.placeAll(); // a turn ended: its "Export turn"
  });
}

