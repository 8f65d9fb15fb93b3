// Calling the page agent (src/page/, bundled in vendor/) in a tab's top frame through
// chrome.scripting: injected on first use, every call bounded in time and aborted with the
// tool's signal; Chrome's failures (tab closed, page gone, navigated) turned into tool
// errors that say what happened. Also: the per-tab record of the latest snapshot (which
// document it was taken in, its lines for the next diff), and the page's dialogs during an
// action.

import { ToolFailure } from "./errors.js";

export const PAGE_CALL_BOUND_MS = 10_000;
const AGENT = { file: "vendor/page-agent.js", global: "__panelotPage" };
export const READER = { file: "vendor/page-reader.js", global: "__panelotReader" };

/**
 * @typedef {object} TabSnapshot
 * @property {string} documentId  the document the refs belong to
 * @property {string[]} lines
 * @property {string | null} region  the ref the snapshot was limited to, if any
 * @property {Record<string, import("./frames.js").FrameRecord>} frames  its frames of other origins, by ref prefix (`f1`)
 */

/** The latest snapshot of each tab: refs are only sent to the document they came from. */
export class SnapshotRecords {
  constructor() {
    /** @type {Map<number, TabSnapshot>} */
    this.byTab = new Map();
  }

  /** @param {number} tabId */
  get(tabId) {
    return this.byTab.get(tabId);
  }

  /** @param {number} tabId @param {TabSnapshot} record */
  set(tabId, record) {
    this.byTab.set(tabId, record);
  }

  /** @param {number} tabId */
  forget(tabId) {
    this.byTab.delete(tabId);
  }

  /**
   * The element `ref` names, as the tab's latest snapshot showed it (`textbox "Email"`),
   * for the approval card; undefined when that snapshot has no line for it.
   * @param {number} tabId @param {string} ref
   */
  elementOf(tabId, ref) {
    const marker = `[${ref}`;
    for (const line of this.byTab.get(tabId)?.lines ?? []) {
      const at = line.indexOf(marker);
      const next = line.charAt(at + marker.length);
      if (at > 0 && (next === " " || next === "]")) return line.slice(0, at).replace(/^\s*- /, "").trim().slice(0, 160);
    }
    return undefined;
  }
}

/**
 * @template T
 * @param {Promise<T>} work @param {AbortSignal} signal @param {number} boundMs @param {string} what
 * @returns {Promise<T>}
 */
export function bounded(work, signal, boundMs, what) {
  signal.throwIfAborted();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {() => void} */
  let onAbort = () => {};
  const stop = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ToolFailure(`${what} did not answer within ${boundMs / 1000} s: it may show a dialog (alert, confirm, print) or be busy; look with browser_screenshot, or ask the user`)), boundMs);
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return /** @type {Promise<T>} */ (Promise.race([work, stop])).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  });
}

/**
 * Chrome's scripting error -> what the model should know.
 * @param {unknown} error @param {number} tabId @param {boolean} byDocument
 */
export function scriptingFailure(error, tabId, byDocument) {
  if (error instanceof ToolFailure) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/No tab with id/i.test(message)) return new ToolFailure(`tab ${tabId} was closed; list the tabs with browser_tabs_list`);
  if (byDocument && /No document with id|document.*(not|no longer)/i.test(message)) {
    return new ToolFailure("the page was reloaded or navigated since the snapshot, so its refs are gone; take a new snapshot with browser_snapshot");
  }
  if (/frame.*removed|document.*unloaded|navigat|Frame with ID 0/i.test(message)) {
    return new ToolFailure(`the page navigated away during the action (${message}); take a new snapshot to see where the tab is`);
  }
  if (/Cannot access|cannot be scripted|permission/i.test(message)) {
    return new ToolFailure(`Chrome does not let extensions act on this page (${message})`);
  }
  return new ToolFailure(`the page could not be reached: ${message}`);
}

/**
 * Send `request` to the page agent (or `script`) in the top frame of `tabId`, or in the
 * document `documentId` when given (refs only make sense in the document they came from).
 * @param {number} tabId
 * @param {Record<string, unknown>} request
 * @param {AbortSignal} signal
 * @param {{documentId?: string, script?: {file: string, global: string}, boundMs?: number}} [options]
 * @returns {Promise<{answer: any, documentId: string}>}
 */
export async function callPage(tabId, request, signal, options = {}) {
  const script = options.script ?? AGENT;
  const byDocument = options.documentId !== undefined;
  /** @type {chrome.scripting.InjectionTarget} */
  const target = byDocument ? { tabId, documentIds: [/** @type {string} */ (options.documentId)] } : { tabId, frameIds: [0] };
  const what = `the page in tab ${tabId}`;
  const boundMs = options.boundMs ?? PAGE_CALL_BOUND_MS;
  const ask = async () => {
    const [first] = await bounded(
      chrome.scripting.executeScript({
        target,
        func: (/** @type {string} */ name, /** @type {Record<string, unknown>} */ req) => {
          const api = /** @type {any} */ (globalThis)[name];
          return api ? api.handle(req) : { missing: true };
        },
        args: /** @type {[string, Record<string, unknown>]} */ ([script.global, request]),
      }),
      signal,
      boundMs,
      what,
    );
    if (!first) throw new ToolFailure(`${what} gave no answer`);
    return first;
  };
  try {
    let first = await ask();
    if (first.result?.missing) {
      await bounded(chrome.scripting.executeScript({ target, files: [script.file] }), signal, boundMs, what);
      first = await ask();
    }
    if (first.result === null || first.result === undefined) throw new ToolFailure(`${what} gave no answer`);
    return { answer: first.result, documentId: first.documentId };
  } catch (error) {
    if (signal.aborted) throw error;
    throw scriptingFailure(error, tabId, byDocument);
  }
}

export const DIALOG_GUARD = "src/page/dialog-guard.js";

/**
 * While an action runs, the page's alert/confirm/prompt are answered at once (OK, Cancel,
 * no text) and recorded, so a dialog never blocks the page or the tool. The guard is in
 * the page's own world from document_start (manifest `content_scripts`); arming it changes
 * nothing the page can see. A page loaded before the extension (or where content scripts
 * do not run) gets it now, once.
 * `answer` (from `browser_handle_dialog`) accepts this action's confirm and prompt.
 * `frameId`: the frame the action runs in (0, the top one, unless a ref is in a frame of
 * another origin).
 * @param {number} tabId @param {AbortSignal} signal @param {{accept: boolean, promptText?: string}} [answer] @param {number} [frameId]
 */
export async function watchDialogs(tabId, signal, answer, frameId = 0) {
  const arm = () => bounded(
    chrome.scripting.executeScript({
      target: { tabId, frameIds: [frameId] },
      world: "MAIN",
      args: [answer ?? null],
      func: (next) => {
        const guard = /** @type {{arm(next: unknown): void} | undefined} */ (Reflect.get(globalThis, "__panelotDialogGuard"));
        if (!guard) return false;
        guard.arm(next);
        return true;
      },
    }),
    signal,
    PAGE_CALL_BOUND_MS,
    `the page in tab ${tabId}`,
  );
  await guarded(tabId, signal, async () => {
    const [first] = await arm();
    if (first?.result) return;
    const target = { tabId, frameIds: [frameId] };
    const what = `the page in tab ${tabId}`;
    await bounded(chrome.scripting.executeScript({ target, world: "MAIN", files: [DIALOG_GUARD] }), signal, PAGE_CALL_BOUND_MS, what);
    const [again] = await arm();
    if (!again?.result) throw new ToolFailure(`the page in tab ${tabId} refused Panelot's dialog guard; nothing was done`);
  });
}

/**
 * `call`, with Chrome's scripting errors explained.
 * @template T @param {number} tabId @param {AbortSignal} signal @param {() => Promise<T>} call
 */
async function guarded(tabId, signal, call) {
  try {
    return await call();
  } catch (error) {
    if (signal.aborted) throw error;
    throw scriptingFailure(error, tabId, false);
  }
}

/**
 * The dialogs the page opened since `watchDialogs`, each `[kind, message, answer given]`;
 * the guard stops answering them
 * (bounded: a new document that is still loading has no guard armed anyway).
 * @param {number} tabId @param {number} [frameId] @returns {Promise<string[][]>}
 */
export async function dialogsSeen(tabId, frameId = 0) {
  try {
    const [first] = await bounded(chrome.scripting.executeScript({
      target: { tabId, frameIds: [frameId] },
      world: "MAIN",
      func: () => {
        const guard = /** @type {{disarm(): string[][]} | undefined} */ (Reflect.get(globalThis, "__panelotDialogGuard"));
        return guard ? guard.disarm() : [];
      },
    }), new AbortController().signal, 2_000, `the page in tab ${tabId}`);
    const seen = first?.result;
    return Array.isArray(seen) ? seen.filter((d) => Array.isArray(d) && d.length === 3).map((d) => d.map(String)) : [];
  } catch {
    return []; // the page went away: its guard went with it
  }
}
