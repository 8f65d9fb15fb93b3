// A turn's timeline (issue 30), after its tool cards: a filmstrip (the list "Timeline") of
// the frames the extension captured around the turn's browser actions, each a button
// "Frame N: <the step in words>" with its thumbnail (loaded with `frame.get` when it comes
// into view, kept as an object URL until another thread is shown) and the mark of a call
// the user approved or denied or whose outcome is unknown, in words; calls with no frame say
// why. A frame opens large in the dialog "Frame N of M" with the action drawn on it (a
// circle at the point clicked, a rectangle around the element), the typed text and the
// address as captions, and "Previous frame", "Next frame", "Close". A finished turn also
// has "Export turn" (an icon button in its last row). Text only, never HTML.

import { el, iconButton } from "../dom.js";
import { bytesOf, saveExport } from "../exports.js";
import { exportMenu } from "./export-menu.js";
import { decisionMark, frameName, frameWords, skipWords, timelineOf } from "./frame-words.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../store.js").Item} Item */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {Extract<Item, {kind: "toolCall"}>} ToolCall */
/** @typedef {import("./frame-words.js").TimelineEntry} TimelineEntry */
/** @typedef {import("../../generated/protocol").FrameInfo} FrameInfo */
/** @typedef {import("../../generated/protocol").FrameGetResult} FrameGetResult */

const SVG = "http://www.w3.org/2000/svg";

/** The frames' images, fetched once each with `frame.get`, as object URLs until `reset`. */
export class FrameImages {
  /** @param {(frameId: string) => Promise<FrameGetResult>} fetchFrame */
  constructor(fetchFrame) {
    this.fetchFrame = fetchFrame;
    /** @type {Map<string, Promise<string>>} */
    this.urls = new Map();
    /** @type {string[]} */
    this.made = [];
  }

  /** @param {string} frameId @returns {Promise<string>} */
  get(frameId) {
    let url = this.urls.get(frameId);
    if (!url) {
      url = this.fetchFrame(frameId).then(({ frame }) => {
        const made = URL.createObjectURL(new Blob([bytesOf(frame.data)], { type: frame.mime }));
        this.made.push(made);
        return made;
      });
      url.catch(() => this.urls.delete(frameId)); // asked again next time
      this.urls.set(frameId, url);
    }
    return url;
  }

  /** Another thread is shown: let the images go. */
  reset() {
    for (const url of this.made) URL.revokeObjectURL(url);
    this.made = [];
    this.urls.clear();
  }
}

/**
 * The timeline rows of the conversation list `log` (one after each turn's last row).
 * @param {Store} store @param {Controller} controller @param {HTMLOListElement} log @param {HTMLElement} scroller
 */
export function mountTimeline(store, controller, log, scroller) {
  const images = new FrameImages((frameId) => controller.client.request("frame.get", { frameId }));
  /** @type {Map<string, string>} what each turn's row shows, so an unchanged row is not re-drawn */
  const drawn = new Map();
  let shownThread = /** @type {string | null} */ (null);
  const lazy = new IntersectionObserver((seen) => {
    for (const entry of seen) {
      if (!entry.isIntersecting) continue;
      const img = /** @type {HTMLImageElement} */ (entry.target);
      lazy.unobserve(img);
      const frameId = img.dataset.frameId ?? "";
      images.get(frameId).then(
        (url) => {
          img.src = url;
        },
        () => img.closest(".frame-thumb")?.classList.add("unavailable"),
      );
    }
  }, { root: scroller, rootMargin: "200px" });
  const viewer = frameViewer(images);

  /**
   * The tool calls of each turn, in order, and the thread's latest turn (one pass over the items).
   * @param {string} [only]  just this turn's
   */
  function callsByTurn(only) {
    /** @type {Map<string, ToolCall[]>} */
    const calls = new Map();
    let latest = "";
    for (const item of store.state.items.values()) {
      latest = item.turnId;
      if (item.kind !== "toolCall" || (only !== undefined && item.turnId !== only)) continue;
      const list = calls.get(item.turnId);
      if (list) list.push(item);
      else calls.set(item.turnId, [item]);
    }
    return { calls, latest };
  }

  /** A turn that ended (its usage came), or any but the thread's latest. @param {string} turnId @param {string} latest */
  function finished(turnId, latest) {
    const s = store.state;
    if (s.turnUsage.has(turnId) || turnId !== latest) return true;
    return s.turn?.id === turnId && !store.turnLive;
  }

  /** @type {Map<string, HTMLElement>} each finished turn's "Export turn", kept while the thread is shown */
  const exporters = new Map();

  /**
   * Lay out turn `turnId`: its filmstrip as a row after its last step (before its answer),
   * when it has frames; "Export turn" in its last shown row, once it ended.
   * @param {string} turnId @param {ReturnType<typeof callsByTurn>} [known]  the turns' calls, when placing all
   */
  function place(turnId, known = callsByTurn(turnId)) {
    const rows = /** @type {HTMLLIElement[]} */ ([...log.querySelectorAll(`:scope > li[data-turn="${CSS.escape(turnId)}"]`)]);
    let row = /** @type {HTMLLIElement | null} */ (log.querySelector(`:scope > li[data-timeline-of="${CSS.escape(turnId)}"]`));
    const steps = rows.filter((li) => li.dataset.step === "true");
    const after = steps[steps.length - 1] ?? rows[rows.length - 1];
    const entries = timelineOf(known.calls.get(turnId) ?? []);
    placeExport(turnId, rows, finished(turnId, known.latest));
    if (!after || !entries.length) {
      row?.remove();
      drawn.delete(turnId);
      return;
    }
    const decisions = store.state.decisions;
    const signature = JSON.stringify(entries.map((e) => [e.frame?.id, e.call.status, decisionMark(e.call, decisions), e.call.frameSkipped]));
    if (!row) {
      row = el("li", "timeline-row");
      row.dataset.kind = "timeline";
      row.dataset.timelineOf = turnId;
    }
    if (drawn.get(turnId) !== signature || !row.firstChild) {
      fill(row, entries);
      drawn.set(turnId, signature);
    }
    if (after.nextSibling !== row) after.after(row);
  }

  /**
   * "Export turn" at the end of the turn's last shown row (an icon button: the row's text
   * stays the answer's).
   * @param {string} turnId @param {HTMLLIElement[]} rows @param {boolean} done
   */
  function placeExport(turnId, rows, done) {
    const shown = rows.filter((li) => !li.hidden);
    const last = shown[shown.length - 1];
    let exporter = exporters.get(turnId);
    if (!done || !last) {
      exporter?.remove();
      return;
    }
    if (!exporter) {
      const toggle = iconButton("export", "Export turn");
      const threadId = store.state.threadId;
      exporter = el("div", "turn-export", exportMenu(toggle, "Export this turn as", (format) => (threadId ? saveExport(controller, threadId, turnId, format) : Promise.resolve())));
      exporters.set(turnId, exporter);
    }
    if (exporter.parentElement !== last || last.lastElementChild !== exporter) last.append(exporter);
  }

  /** @param {HTMLLIElement} row @param {TimelineEntry[]} entries */
  function fill(row, entries) {
    const strip = el("ul", "filmstrip");
    strip.setAttribute("aria-label", "Timeline");
    const frames = entries.filter((entry) => entry.frame);
    for (const entry of entries) strip.append(entry.frame ? frameItem(entry, frames) : gapItem(entry));
    for (const old of row.querySelectorAll("img[data-frame-id]")) lazy.unobserve(old);
    row.replaceChildren(strip);
  }

  /** @param {TimelineEntry} entry @param {TimelineEntry[]} frames  the turn's frames, for the viewer's Previous and Next */
  function frameItem(entry, frames) {
    const frame = /** @type {FrameInfo} */ (entry.frame);
    const open = el("button", "frame-thumb");
    open.type = "button";
    open.setAttribute("aria-label", frameName(entry));
    open.title = frameName(entry);
    open.dataset.frameId = frame.id;
    const img = el("img");
    img.alt = "";
    img.width = 96;
    img.height = Math.max(1, Math.round((96 * frame.height) / frame.width));
    img.dataset.frameId = frame.id;
    open.append(img, el("span", "frame-number", String(entry.n)));
    lazy.observe(img);
    open.addEventListener("click", () => viewer.show(frames, frames.indexOf(entry), focusFrame, (shown) => decisionMark(shown.call, store.state.decisions)));
    const li = el("li", "", open);
    const mark = decisionMark(entry.call, store.state.decisions);
    if (mark && frame.phase === "after") li.append(markBadge(mark));
    return li;
  }

  /** A call of the timeline with no frame: denied, or not captured (why). @param {TimelineEntry} entry */
  function gapItem(entry) {
    const mark = decisionMark(entry.call, store.state.decisions);
    const li = el("li", "frame-gap");
    const why = entry.call.status === "denied" ? `Denied: ${frameWordsOf(entry.call)}` : `${skipWords(entry.call) ?? "Not captured"}: ${frameWordsOf(entry.call)}`;
    li.append(el("span", "frame-gap-text", why));
    if (mark && mark !== "Denied") li.append(markBadge(mark));
    return li;
  }

  /** @param {FrameInfo} frame */
  function focusFrame(frame) {
    /** @type {HTMLElement | null} */ (log.querySelector(`button.frame-thumb[data-frame-id="${CSS.escape(frame.id)}"]`))?.focus();
  }

  function placeAll() {
    const s = store.state;
    if (s.threadId !== shownThread) {
      images.reset();
      drawn.clear();
      for (const exporter of exporters.values()) exporter.remove();
      exporters.clear();
      shownThread = s.threadId;
    }
    const turns = new Set();
    for (const li of /** @type {NodeListOf<HTMLLIElement>} */ (log.querySelectorAll(":scope > li[data-turn]"))) turns.add(li.dataset.turn ?? "");
    for (const row of /** @type {NodeListOf<HTMLLIElement>} */ (log.querySelectorAll(":scope > li[data-timeline-of]"))) {
      if (!turns.has(row.dataset.timelineOf)) row.remove();
    }
    const known = callsByTurn();
    for (const turnId of turns) if (turnId) place(turnId, known);
  }

  return { place: (/** @type {string} */ turnId) => place(turnId), placeAll };
}

/** @param {ToolCall} call */
function frameWordsOf(call) {
  return frameWords(call, { id: "", phase: "after", width: 1, height: 1, url: "", capturedAt: "" });
}

/** @param {string} mark */
function markBadge(mark) {
  const badge = el("span", "frame-mark", mark);
  badge.dataset.mark = mark === "Approved" || mark.startsWith("Allowed") ? "approved" : mark === "Denied" ? "denied" : mark === "Outcome unknown" ? "uncertain" : "asked";
  return badge;
}

/**
 * The dialog that shows a frame large, with the action drawn on it.
 * @param {FrameImages} images
 */
function frameViewer(images) {
  const dialog = el("dialog", "frame-viewer");
  dialog.id = "frame-viewer";
  const title = el("h2", "", "");
  title.id = "frame-viewer-title";
  dialog.setAttribute("aria-labelledby", title.id);
  const img = el("img");
  img.alt = "";
  const overlay = document.createElementNS(SVG, "svg");
  overlay.setAttribute("class", "frame-overlay");
  overlay.setAttribute("aria-hidden", "true");
  overlay.setAttribute("preserveAspectRatio", "none");
  const stage = el("div", "frame-stage", img);
  stage.append(overlay);
  const loading = el("p", "muted frame-loading", "Loading the frame…");
  const captions = el("div", "frame-captions");
  const previous = el("button", "", "Previous frame");
  previous.type = "button";
  const next = el("button", "", "Next frame");
  next.type = "button";
  const close = el("button", "primary", "Close");
  close.type = "button";
  dialog.append(title, stage, loading, captions, el("div", "frame-buttons", previous, next, close));
  document.body.append(dialog);

  /** @type {TimelineEntry[]} */
  let frames = [];
  let at = 0;
  /** @type {(frame: FrameInfo) => void} */
  let onClose = () => {};

  function draw() {
    const entry = frames[at];
    const frame = /** @type {FrameInfo} */ (entry.frame);
    title.textContent = `Frame ${at + 1} of ${frames.length}`;
    previous.disabled = at === 0;
    next.disabled = at === frames.length - 1;
    img.removeAttribute("src");
    img.width = frame.width;
    img.height = frame.height;
    img.alt = frameWords(entry.call, frame);
    loading.hidden = false;
    loading.textContent = "Loading the frame…";
    const wanted = frame.id;
    images.get(frame.id).then(
      (url) => {
        if (frames[at]?.frame?.id !== wanted) return;
        img.src = url;
        loading.hidden = true;
      },
      () => {
        if (frames[at]?.frame?.id === wanted) loading.textContent = "This frame is no longer stored.";
      },
    );
    overlay.setAttribute("viewBox", `0 0 ${frame.width} ${frame.height}`);
    overlay.replaceChildren(...markShapes(frame));
    /** @type {Node[]} */
    const lines = [el("p", "frame-step", frameWords(entry.call, frame))];
    const mark = frame.phase === "after" ? decisionOf(entry) : null;
    if (mark) lines.push(el("p", "", markBadge(mark)));
    if (typeof frame.typed === "string") lines.push(el("p", "frame-typed", `Typed: ${frame.typed}`));
    lines.push(el("p", "frame-url", frame.url));
    captions.replaceChildren(...lines);
  }

  /** @type {(entry: TimelineEntry) => string | null} */
  let decisionOf = () => null;

  previous.addEventListener("click", () => {
    if (at > 0) {
      at -= 1;
      draw();
    }
  });
  next.addEventListener("click", () => {
    if (at < frames.length - 1) {
      at += 1;
      draw();
    }
  });
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft" && at > 0) previous.click();
    else if (event.key === "ArrowRight" && at < frames.length - 1) next.click();
  });
  dialog.addEventListener("close", () => {
    const frame = frames[at]?.frame;
    if (frame) onClose(frame);
  });

  return {
    /**
     * @param {TimelineEntry[]} shown @param {number} index @param {(frame: FrameInfo) => void} closed  the focus goes back to the frame shown last
     * @param {(entry: TimelineEntry) => string | null} decide  the mark of a frame's call
     */
    show(shown, index, closed, decide) {
      frames = shown;
      at = Math.max(0, index);
      onClose = closed;
      decisionOf = decide;
      draw();
      dialog.showModal();
      close.focus();
    },
  };
}

/**
 * The action drawn on a frame, in the image's pixels: a circle at the point clicked, a
 * rectangle around the element acted on; each stroke twice (light under dark) so it shows
 * on any page.
 * @param {FrameInfo} frame @returns {SVGElement[]}
 */
export function markShapes(frame) {
  const mark = frame.mark;
  if (!mark) return [];
  const stroke = Math.max(2, Math.round(Math.max(frame.width, frame.height) / 200));
  /** @param {string} color @param {number} width */
  const shape = (color, width) => {
    const node = mark.kind === "point" ? document.createElementNS(SVG, "circle") : document.createElementNS(SVG, "rect");
    if (mark.kind === "point") {
      node.setAttribute("cx", String(mark.x));
      node.setAttribute("cy", String(mark.y));
      node.setAttribute("r", String(Math.max(8, Math.round(Math.max(frame.width, frame.height) / 40))));
    } else {
      node.setAttribute("x", String(mark.x));
      node.setAttribute("y", String(mark.y));
      node.setAttribute("width", String(mark.width ?? 0));
      node.setAttribute("height", String(mark.height ?? 0));
      node.setAttribute("rx", String(stroke));
    }
    node.setAttribute("fill", "none");
    node.setAttribute("stroke", color);
    node.setAttribute("stroke-width", String(width));
    node.setAttribute("class", `frame-mark-shape ${mark.kind}`);
    return node;
  };
  return [shape("#ffffff", stroke + 2), shape("#d93025", stroke)];
}
