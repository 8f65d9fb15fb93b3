// The conversation view: messages (user and steering as text, answers as sanitised
// Markdown), tool-call cards, notices and errors, and the cards that wait for the user
// (approvals, questions, uncertain writes; rendered by cards.js) — all as items of one list, in the order the
// engine stored them. Streams into the DOM once per animation frame and keeps the newest
// text in view unless the user scrolled up.

import { el, button, iconButton, dollars, totalTokens, usageWords } from "../dom.js";
import { renderMarkdown } from "../markdown.js";
import { approvalCard, questionCard, uncertainCard } from "./cards.js";
import { argumentLines, scrollable } from "./tool-text.js";
import { doingWords, doneWords, isStep, mountSteps } from "./steps.js";
import { resultForPeople } from "./result-words.js";

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

const STATUS_WORDS = /** @type {Record<string, string>} */ ({
  pending: "pending",
  awaiting_approval: "waiting for approval",
  running: "running",
  succeeded: "succeeded",
  failed: "failed",
  denied: "denied",
  uncertain: "outcome unknown",
  interrupted: "interrupted",
});

/** @param {Store} store @param {Controller} controller */
export function mountChat(store, controller) {
  const log = /** @type {HTMLOListElement} */ (document.getElementById("log"));
  const scroller = /** @type {HTMLElement} */ (document.getElementById("scroller"));
  const latest = /** @type {HTMLButtonElement} */ (document.getElementById("jump-latest"));
  const viewer = /** @type {HTMLDialogElement} */ (document.getElementById("image-viewer"));
  /** @type {Map<string, HTMLLIElement>} */
  const rows = new Map();
  const steps = mountSteps(store, log);
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
        li.replaceChildren(el("div", "text", item.text), messageActions(item));
        const point = s.branches.get(item.id);
        if (point) li.append(branchSwitcher(point));
        break;
      }
      case "assistant": {
        const body = el("div", "md");
        renderMarkdown(body, item.text ?? "");
        li.replaceChildren(body, messageActions(item));
        if (item.thinking) li.prepend(thinkingBox(item.thinking));
        li.hidden = !item.text && !item.thinking; // an answer that starts with a tool call has no text
        if (item.interrupted) li.dataset.interrupted = "true";
        break;
      }
      case "toolCall":
        li.replaceChildren(toolCard(item, s.progress.get(item.id), s.toolTimes.get(item.id)));
        if (isStep(item)) li.dataset.step = "true";
        // a question and an action whose outcome is unknown stay in view when steps fold
        if (!isStep(item) || item.status === "uncertain") li.dataset.keep = "true";
        else delete li.dataset.keep;
        break;
      case "notice":
        // the user's words when the engine stored them apart from what it told the model
        li.replaceChildren(el("span", "notice-label", noticeLabel(item.code)), el("span", "", item.userText ?? item.text));
        break;
      case "compaction":
        li.replaceChildren(compactionDivider(item));
        break;
    }
  }

  /**
   * Older turns the engine summarized for the model (the items stay stored and shown above):
   * a divider that expands to the summary, rendered as sanitised Markdown like an answer.
   * @param {Extract<Item, {kind: "compaction"}>} item
   */
  function compactionDivider(item) {
    const n = item.coveredItems;
    const covered = n ? `${n} item${n === 1 ? "" : "s"}` : "older turns";
    const tokens = item.tokensBefore && item.tokensAfter ? ` · ${item.tokensBefore} → ${item.tokensAfter} tokens` : "";
    const body = el("div", "md");
    renderMarkdown(body, item.summary);
    return el("details", "compaction", el("summary", "", `Earlier conversation summarized (${covered}${tokens})`), body);
  }

  /** The model's reasoning, folded: text only, never Markdown. @param {string} text */
  function thinkingBox(text) {
    const box = el("details", "thinking", el("summary", "", "Thinking"), el("div", "thinking-text", text));
    return box;
  }

  /** @param {string} code */
  function noticeLabel(code) {
    return code === "tools_disabled" ? "Tools disabled" : code === "change_approach" ? "Repeated failures" : code === "provider_retry" ? "Retrying" : "Notice";
  }

  /** Fork and branch buttons of a message (icons, so they add no text to the item). @param {Item} item */
  function messageActions(item) {
    const bar = el("div", "item-actions");
    const fork = iconButton("fork", "Fork from here");
    fork.addEventListener("click", () => controller.fork(item.id));
    bar.append(fork);
    const parent = /** @type {{parentId?: string}} */ (item).parentId;
    if (item.kind === "user" && parent) {
      const branch = iconButton("branch", "Branch from here");
      branch.addEventListener("click", () => controller.branchBefore(item.id, parent));
      bar.append(branch);
    }
    return bar;
  }

  /**
   * "2 of 3" with previous / next: the message was sent again from the same place, and each
   * button shows the whole branch of the neighbouring version.
   * @param {import("../store.js").BranchPoint} point
   */
  function branchSwitcher(point) {
    const at = point.choices.findIndex((choice) => choice.itemId === point.itemId);
    const group = el("div", "branches");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Versions of this message");
    const previous = iconButton("back", "Previous branch");
    const next = iconButton("next", "Next branch");
    previous.disabled = at <= 0;
    next.disabled = at >= point.choices.length - 1;
    previous.addEventListener("click", () => controller.switchBranch(point.choices[at - 1].headItemId));
    next.addEventListener("click", () => controller.switchBranch(point.choices[at + 1].headItemId));
    group.append(previous, el("span", "branch-position", `${at + 1} of ${point.choices.length}`), next);
    return group;
  }

  /**
   * @param {Extract<Item, {kind: "toolCall"}>} item @param {unknown} progress
   * @param {{startedAt: number, endedAt?: number} | undefined} times
   */
  function toolCard(item, progress, times) {
    const card = el("details", "tool");
    const status = shownStatus(item);
    card.dataset.status = status;
    const label = /** @type {{label?: string}} */ (item).label ?? item.name;
    const asked = questionAsked(item);
    if (asked) card.classList.add("asked");
    // a browser step says what it does or did, naming its target; a success needs no chip
    const browser = item.name.startsWith("browser_");
    const running = !item.result && status === "running";
    const settled = item.result || status === "denied" || status === "uncertain";
    const words = browser ? (running ? doingWords(item) : settled ? doneWords(item) : null) : null;
    const marked = status !== "succeeded" && !running;
    const summary = asked
      ? el("summary", "", el("span", "tool-label", asked.question), el("span", "tool-answer", asked.answer))
      : words
        ? el("summary", "", el("span", "tool-label done", words), ...(marked ? [el("span", "tool-status", STATUS_WORDS[status] ?? status)] : []))
        : el("summary", "", el("span", "tool-label", label), el("span", "tool-status", STATUS_WORDS[status] ?? status));
    if (words) summary.firstElementChild?.setAttribute("title", words);
    const took = duration(item, times);
    if (took !== null && !asked) summary.append(el("span", "tool-time", `${(took / 1000).toFixed(1)} s`));
    card.append(summary);
    if (progress !== undefined && !item.result) {
      card.append(el("p", "tool-progress", typeof progress === "string" ? progress : JSON.stringify(progress)));
    }
    const forPeople = resultForPeople(item);
    if (forPeople) card.append(forPeople);
    if (item.result) {
      const images = findImages([item.result.content, item.result.details]);
      if (images.length) card.append(el("div", "thumbs", ...images.map((image, n) => thumbnail(image, `${label}: image ${n + 1}`))));
    }
    card.append(technicalDetails(item));
    if (item.status === "uncertain") {
      card.open = true;
      card.append(uncertainCard(item, controller));
    }
    if (item.status === "running" || item.status === "awaiting_approval") card.open = false;
    return card;
  }

  /**
   * The call as the model made it and its result as the model read it: the tool's name,
   * its arguments and the raw text (with its untrusted-content tags), folded.
   * @param {Extract<Item, {kind: "toolCall"}>} item
   */
  function technicalDetails(item) {
    const box = el("details", "technical", el("summary", "", "Technical details"));
    box.append(el("p", "tool-name", item.name));
    box.append(scrollable(el("pre", "tool-args compact", argumentLines(item.args)), "Arguments"));
    if (item.result) {
      const content = item.result.content;
      const text = typeof content === "string" ? content : content.filter((b) => b.type === "text").map((b) => /** @type {{text: string}} */ (b).text).join("\n");
      box.append(scrollable(el("pre", item.result.isError ? "tool-result error" : "tool-result", text), "Result"));
    }
    return box;
  }

  /**
   * An answered `ask_user` call, as the user lived it: the question and what they said
   * (the question card is gone once answered; its call stays in the conversation).
   * @param {Extract<Item, {kind: "toolCall"}>} item
   * @returns {{question: string, answer: string} | null}
   */
  function questionAsked(item) {
    if (item.name !== "ask_user" || !item.result) return null;
    const args = /** @type {{question?: unknown}} */ (item.args ?? {});
    const values = /** @type {{values?: {answer?: unknown}}} */ (item.result.details ?? {}).values;
    const answer = typeof values?.answer === "string" && !item.result.isError ? `You answered: ${values.answer}` : "You did not answer";
    return { question: typeof args.question === "string" ? args.question : "A question", answer };
  }

  /**
   * The host stores `running` when a call starts but sends no event for it: an unsettled
   * call is shown waiting for approval while its card is open, running while the run
   * executes a tool.
   * @param {Extract<Item, {kind: "toolCall"}>} item
   */
  function shownStatus(item) {
    if (item.result || (item.status !== "pending" && item.status !== "awaiting_approval")) return item.status;
    const s = store.state;
    for (const approval of s.approvals.values()) if (approval.toolCallId === item.id) return "awaiting_approval";
    return s.run?.state === "executing_tool" ? "running" : item.status;
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

  /** @param {{mediaType: string, data: string}} image @param {string} label */
  function thumbnail(image, label) {
    const open = el("button", "thumb");
    open.type = "button";
    open.setAttribute("aria-label", `Open ${label} full size`);
    const img = el("img");
    img.src = `data:${image.mediaType};base64,${image.data}`;
    img.alt = "";
    open.append(img);
    open.addEventListener("click", () => {
      const full = el("img");
      full.src = img.src;
      full.alt = label;
      viewer.replaceChildren(full, button("Close", () => viewer.close()));
      viewer.showModal();
    });
    return open;
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
        const shown = li.querySelector(":scope > .thinking > .thinking-text");
        if (shown) shown.textContent = item.thinking;
        else li.prepend(thinkingBox(item.thinking));
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
  });
  store.on("steering", renderSteering);
  store.on("run", () => {
    renderUsage();
    refreshUnsettled();
    regroupShownTurn();
  });
}

/**
 * How long a settled call ran, in ms: from the times the host stored with it (calls loaded
 * from history too), else as this panel saw it run; null while it runs or never ran.
 * @param {Extract<Item, {kind: "toolCall"}>} item
 * @param {{startedAt: number, endedAt?: number} | undefined} seen
 */
function duration(item, seen) {
  const started = item.startedAt ? Date.parse(item.startedAt) : NaN;
  const ended = item.endedAt ? Date.parse(item.endedAt) : NaN;
  if (Number.isFinite(started) && Number.isFinite(ended)) return Math.max(0, ended - started);
  return seen?.endedAt ? seen.endedAt - seen.startedAt : null;
}

/**
 * Images anywhere in a tool result's content or details: objects with a base64 `data` and
 * an image `mediaType`.
 * @param {unknown[]} roots @returns {{mediaType: string, data: string}[]}
 */
function findImages(roots) {
  /** @type {{mediaType: string, data: string}[]} */
  const found = [];
  /** @param {unknown} node @param {number} depth */
  const visit = (node, depth) => {
    if (!node || typeof node !== "object" || depth > 4 || found.length >= 8) return;
    const value = /** @type {Record<string, unknown>} */ (node);
    if (typeof value.data === "string" && typeof value.mediaType === "string" && /^image\/(png|jpeg|gif|webp)$/.test(value.mediaType)) {
      found.push({ mediaType: value.mediaType, data: value.data });
      return;
    }
    for (const child of Array.isArray(node) ? node : Object.values(value)) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return found;
}
