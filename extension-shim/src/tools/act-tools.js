// The acting tools: browser_click (and its double, hover, drag and click-at-a-point kin),
// browser_type, browser_select_option, browser_press_key, browser_scroll, browser_wait_for. Each acts only when the tab's origin is still the one
// the Gatekeeper decided for (checked by the page agent in the same task as the action),
// reports the tab's URL and origin after the action (evidence for recovery), waits
// (bounded) for a navigation the action started, and turns a page's dialogs into a tool
// error that says what the page asked.

import { trustedClick, trustedHover, trustedKey } from "./debugger.js";
import { approvedTarget, pointOfOrigin } from "./hit-check.js";
import { parseKey } from "../page/keys.js";
import { ToolFailure } from "./errors.js";
import { bounded, callPage, dialogsSeen, PAGE_CALL_BOUND_MS, watchDialogs } from "./page.js";
import { settle, sleep, watchTab } from "./watch.js";
import { describeTab, findTab, originOf } from "./tabs.js";
import { frameOfRef } from "./frames.js";
import { viewportOf } from "./screenshot.js";

/** @typedef {import("./table.js").BrowserTool} BrowserTool */
/** @typedef {import("./table.js").ToolContext} ToolContext */
/** @typedef {import("./page.js").SnapshotRecords} SnapshotRecords */
/** @typedef {import("./debugger.js").DebuggerSessions} DebuggerSessions */
/** @typedef {import("./screenshot.js").ScreenshotRecords} ScreenshotRecords */
/** @typedef {import("./frames.js").FrameRecord} FrameRecord */
/** @typedef {import("./uploads.js").StagedUploads} StagedUploads */
/** @typedef {import("../generated/protocol").BrowserInvokeResult} BrowserInvokeResult */

/**
 * @typedef {{ok: boolean, did?: string, error?: string, kind?: string, leaving?: string, watching?: boolean,
 *   box?: {x: number, y: number, width: number, height: number}, point?: {x: number, y: number}, secret?: boolean}} ActAnswer
 * `box`: the element acted on, `point`: the point clicked, in viewport CSS pixels; `secret`: it is a password field (the frame's marks)
 */
/** @typedef {{accept: boolean, promptText?: string}} DialogAnswer */

export const DIALOG_ANSWER_MS = 120_000; // a browser_handle_dialog answer waits this long for its action

export const SETTLE_MS = 150; // a click or a key press may start a navigation: it shows within this
// typing, selecting, uploading: the page agent answers after the page's immediate
// reactions, noting a navigation they started (`leaving`), so only the tab's report of it
// is waited for
export const QUIET_SETTLE_MS = 30;
export const REACTION_MORE_MS = 350; // a page that reacts late (after a timer) gets this much more
export const LEAVING_START_MS = 3_000; // ... unless the page said it is leaving (a busy machine)
export const NAVIGATION_BOUND_MS = 15_000;
const WAIT_DEFAULT_MS = 10_000;
const WAIT_POLL_MS = 200;

/**
 * Run `action` on the tab of `ctx` and report the outcome.
 * @param {ToolContext} ctx @param {string} verb
 * @param {(tabId: number, expectOrigin: string) => Promise<ActAnswer>} action
 * @param {boolean} navigationExpected  a click or a key may navigate; typing, selecting, scrolling do not
 * @param {DialogAnswer} [dialogAnswer]  how to answer this action's dialogs (browser_handle_dialog)
 * @param {FrameRecord | null} [frame]  the frame of another origin the ref is in (its own page agent checks its origin)
 * @returns {Promise<BrowserInvokeResult>}
 */
async function acting(ctx, verb, action, navigationExpected, dialogAnswer, frame = null) {
  const tab = /** @type {chrome.tabs.Tab} */ (ctx.tab);
  const tabId = /** @type {number} */ (tab.id);
  const expectOrigin = ctx.target?.origin ?? (frame ? frame.origin : originOf(tab.url ?? ""));
  const now = frame ? expectOrigin : originOf(tab.url ?? "");
  if (now !== expectOrigin) {
    return {
      content: `${verb}: the page moved to ${tab.url} (origin ${now}) after the decision for ${expectOrigin}; nothing was done. Take a new snapshot and decide again.`,
      isError: true,
      target: describeTab(tab),
    };
  }
  const watch = watchTab(tabId, originOf(tab.url ?? ""));
  /** @type {string[][]} */
  let dialogs = [];
  /** @type {ActAnswer} */
  let answer;
  /** @type {string[] | null} what the page changed after a plain click or key press (null: not known) */
  let changes = null;
  try {
    await watchDialogs(tabId, ctx.signal, dialogAnswer, frame?.frameId);
    try {
      answer = await action(tabId, expectOrigin);
      // the page agent notes a navigation the page started during the action (`leaving`)
      const startMs = answer.ok && answer.leaving ? LEAVING_START_MS : navigationExpected ? SETTLE_MS : QUIET_SETTLE_MS;
      await settle(watch, ctx.signal, startMs, NAVIGATION_BOUND_MS);
      if (answer.ok && answer.watching && !watch.seen.loading && !watch.seen.removed) changes = await reactionOf(tabId, ctx.signal, frame);
    } finally {
      // always: a same-document navigation keeps the page and its hooks (gone with a new document)
      if (!watch.seen.removed) dialogs = await dialogsSeen(tabId, frame?.frameId);
    }
  } catch (error) {
    if (watch.seen.removed) throw new ToolFailure(`tab ${tabId} was closed during the action`);
    throw error;
  } finally {
    watch.stop();
  }
  if (answer.ok) ctx.frameHint = hintOf(ctx.frameHint, answer, frame !== null || watch.seen.loading);
  let after;
  try {
    after = await chrome.tabs.get(tabId);
  } catch {
    throw new ToolFailure(`tab ${tabId} was closed during the action`);
  }
  const target = describeTab(after);
  const inFrame = frame ? ` It acted in the tab's frame of ${frame.origin}.` : "";
  const where = `Tab ${tabId} is at ${target.url} (origin ${target.origin}), title ${JSON.stringify(target.title)}${after.status === "loading" ? ", still loading" : ""}.${inFrame}`;
  if (!answer.ok) return { content: `${verb}: ${answer.error}. ${where}`, isError: true, target, details: { refused: answer.kind } };
  const navigated = watch.seen.loading ? " The page navigated." : "";
  const leaving = answer.leaving ? { leaving: answer.leaving } : {};
  if (watch.seen.loading && !navigationExpected) {
    return {
      content: `${capital(answer.did ?? verb)}, but the page navigated away meanwhile, which ${verb} does not do by itself: what was entered may be lost. Take a new snapshot to see where the tab is. ${where}`,
      isError: true,
      target,
      details: { action: answer.did, navigated: true, ...leaving },
    };
  }
  /** @type {Record<string, unknown>} */
  const details = { action: answer.did, navigated: watch.seen.loading, ...leaving };
  const landed = originOf(after.pendingUrl || after.url || "");
  const elsewhere = watch.seen.loading && landed !== "" && landed !== expectOrigin;
  const crossed = elsewhere
    ? ` The tab left ${expectOrigin} for another origin, ${landed}: the next action on this tab is decided for ${landed}, and the refs of the page that was left no longer work.`
    : "";
  if (elsewhere) details.crossOrigin = { from: expectOrigin, to: landed };
  if (watch.downloads.length) {
    details.downloads = watch.downloads;
    const files = watch.downloads.map((d) => `download ${d.id}, ${d.url}${d.mime ? ` (${d.mime})` : ""}`).join("; ");
    return {
      content: `${capital(answer.did ?? verb)}, and this started a download (${files}). Chrome saves it to the user's downloads folder; browser_downloads lists this turn's downloads and reads a finished one as text (its id).${navigated} ${where}`,
      isError: false,
      target,
      details,
    };
  }
  if (dialogs.length) {
    details.dialogs = dialogs.map(([kind, message, given]) => ({ kind, message, answer: given }));
    const said = dialogs.map(([kind, message, given]) => `${kind} ${JSON.stringify(message.slice(0, 300))}, answered ${given}`).join("; ");
    if (dialogAnswer?.accept) {
      return { content: `${capital(answer.did ?? verb)}, and the page opened a dialog: ${said}, as browser_handle_dialog said.${navigated} ${where}`, isError: false, target, details };
    }
    return {
      content: `${capital(answer.did ?? verb)}, and the page opened a dialog: ${said}. Panelot answers at once so the page is not stuck (OK to an alert, Cancel to a confirm or a prompt). To answer OK, or with text, call browser_handle_dialog and repeat the action; if the answer matters, ask the user first.${navigated} ${where}`,
      isError: true,
      target,
      details,
    };
  }
  if (changes !== null && changes.length === 0 && !watch.seen.loading) {
    details.reacted = false;
    return {
      content: `${capital(answer.did ?? verb)}, but nothing changed on the page that Panelot can see (its document, the focus, its fields, the address): the page may ignore scripted input. If this should have done something, try again with trusted: true (real input), or wait for it with browser_wait_for. ${where}`,
      isError: false,
      target,
      details,
    };
  }
  return { content: `${capital(answer.did ?? verb)}.${navigated}${crossed} ${where}`, isError: false, target, details };
}

/**
 * What the page changed after a plain click or key press: a first look, and a second one a
 * moment later when nothing had changed yet; null when the page could not say.
 * @param {number} tabId @param {AbortSignal} signal @param {FrameRecord | null} frame  where the action ran
 * @returns {Promise<string[] | null>}
 */
async function reactionOf(tabId, signal, frame) {
  try {
    for (const last of [false, true]) {
      const { answer } = await callPage(tabId, { op: "reaction", last }, signal, { boundMs: 2_000, ...(frame ? { documentId: frame.documentId } : {}) });
      const changes = answer.changes;
      if (!Array.isArray(changes)) return null;
      if (changes.length || last) return changes;
      await sleep(REACTION_MORE_MS, signal);
    }
  } catch (error) {
    if (signal.aborted) throw error;
  }
  return null; // the page went away or did not answer: no claim either way
}

/**
 * What the action's frame draws (issue 30): the element's box or the point, unless the
 * action ran in a frame of another origin (its box is in that frame's viewport) or the tab
 * navigated (the box is of the page that was left); the typed text, masked for a password field.
 * @param {import("./frame-geometry.js").FrameHint | undefined} given  what the tool said before acting (`typed`)
 * @param {ActAnswer} answer @param {boolean} elsewhere
 * @returns {import("./frame-geometry.js").FrameHint}
 */
function hintOf(given, answer, elsewhere) {
  /** @type {import("./frame-geometry.js").FrameHint} */
  const hint = { ...given };
  if (!elsewhere && answer.point) hint.point = answer.point;
  else if (!elsewhere && answer.box) hint.box = answer.box;
  if (answer.secret) hint.secret = true;
  return hint;
}

/** A point on whole CSS pixels (the debugger's hit test takes integers). @param {{x: number, y: number}} at */
function pixel(at) {
  return { x: Math.round(at.x), y: Math.round(at.y) };
}

/** @param {string} text */
function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Where a ref lies: the tab's latest snapshot, and the frame of another origin it is in
 * (null: the page itself).
 * @param {SnapshotRecords} records @param {number} tabId @param {string} ref
 */
function placeOf(records, tabId, ref) {
  const record = records.get(tabId);
  if (!record) throw new ToolFailure(`there is no snapshot of tab ${tabId}; take one with browser_snapshot and use its refs`);
  return { record, frame: frameOfRef(record.frames, tabId, ref) };
}

/**
 * `browser.resolveTarget` of a tool that takes a ref: its tab, or for a ref in a frame of
 * another origin that frame, decided for that frame's own origin.
 * @param {SnapshotRecords} records @param {Record<string, any>} args
 * @param {import("../generated/protocol").ThreadTabs | null} threadTabs
 * @returns {Promise<import("../generated/protocol").BrowserTarget>}
 */
async function refTarget(records, args, threadTabs) {
  const tab = describeTab(await findTab(args, undefined, threadTabs));
  if (args.ref === undefined) return tab; // the host asks for the tab alone (an uncertain call's evidence)
  const tabId = tab.tabId ?? -1;
  const element = records.elementOf(tabId, args.ref);
  const target = element ? { ...tab, element } : tab;
  const frame = frameOfRef(records.get(tabId)?.frames, tabId, args.ref);
  return frame ? { ...target, url: frame.url, origin: frame.origin, frameId: frame.frameId } : target;
}

/** Trusted input is placed in the top frame's viewport: not for a ref inside a frame of another origin. @param {Record<string, any>} args */
function plainInFrames(args) {
  if (args.trusted === true && /^f\d+e/.test(String(args.ref))) {
    throw new ToolFailure(`trusted input cannot reach ${args.ref}, inside a frame of another origin; use the plain action (without trusted)`);
  }
}

/**
 * A point of the tab's latest screenshot, in CSS pixels of the document.
 * @param {ScreenshotRecords} shots @param {chrome.tabs.Tab} tab @param {Record<string, any>} args
 */
function pointOfShot(shots, tab, args) {
  const tabId = /** @type {number} */ (tab.id);
  const shot = shots.get(tabId);
  if (!shot) throw new ToolFailure(`there is no screenshot of tab ${tabId} to take a point of; take one with browser_screenshot`);
  if (shot.url !== tab.url) throw new ToolFailure(`tab ${tabId} shows another page (${tab.url}) than its latest screenshot (${shot.url}); take a new screenshot`);
  const { x, y } = args;
  if (x >= shot.width || y >= shot.height) throw new ToolFailure(`(${x}, ${y}) is outside the latest screenshot of tab ${tabId}, which is ${shot.width}x${shot.height} px`);
  return { x: shot.cssX + (x * shot.cssWidth) / shot.width, y: shot.cssY + (y * shot.cssHeight) / shot.height };
}

/**
 * @param {SnapshotRecords} records @param {DebuggerSessions} debuggers @param {ScreenshotRecords} shots
 * @param {StagedUploads} uploads  the files users picked for upload calls
 * @returns {BrowserTool[]}
 */
export function actTools(records, debuggers, shots, uploads) {
  /** @type {Map<number, DialogAnswer & {until: number}>} browser_handle_dialog's answers, by tab, until used */
  const dialogAnswers = new Map();
  /**
   * `acting` with the dialog answer waiting for this tab, used up by this action.
   * @param {ToolContext} ctx @param {string} verb @param {(tabId: number, expectOrigin: string) => Promise<ActAnswer>} action @param {boolean} navigationExpected @param {FrameRecord | null} [frame]
   */
  const act = (ctx, verb, action, navigationExpected, frame = null) => {
    const tabId = /** @type {number} */ (ctx.tab?.id);
    const waiting = dialogAnswers.get(tabId);
    dialogAnswers.delete(tabId);
    const answer = waiting && waiting.until > Date.now() ? { accept: waiting.accept, promptText: waiting.promptText } : undefined;
    return acting(ctx, verb, action, navigationExpected, answer, frame);
  };
  /**
   * `act` on the element `ref`, in the frame it lies in.
   * @param {ToolContext} ctx @param {string} ref @param {string} verb @param {(tabId: number, expectOrigin: string) => Promise<ActAnswer>} action @param {boolean} navigationExpected
   */
  const actOnRef = (ctx, ref, verb, action, navigationExpected) =>
    act(ctx, verb, action, navigationExpected, placeOf(records, /** @type {number} */ (ctx.tab?.id), ref).frame);

  /** @type {BrowserTool} */
  const handleDialogTool = {
    name: "browser_handle_dialog",
    pageAccess: true,
    async run(args, ctx) {
      const tab = /** @type {chrome.tabs.Tab} */ (ctx.tab);
      const tabId = /** @type {number} */ (tab.id);
      dialogAnswers.set(tabId, { accept: args.accept, promptText: args.promptText, until: Date.now() + DIALOG_ANSWER_MS });
      const how = args.accept ? `OK${args.promptText !== undefined ? ` with ${JSON.stringify(args.promptText)}` : ""}` : "Cancel";
      return {
        content: `The dialogs the page opens during the next action in tab ${tabId} (within ${DIALOG_ANSWER_MS / 1000} s) will be answered ${how}. Now repeat the action that opened the dialog.`,
        isError: false,
        target: describeTab(tab),
        details: { dialogAnswer: { accept: args.accept, promptText: args.promptText ?? null } },
      };
    },
  };
  /** @param {ToolContext} ctx @param {number} tabId @param {Record<string, unknown> & {ref: string, toRef?: string}} request */
  const byRef = async (ctx, tabId, request) => {
    const { record, frame } = placeOf(records, tabId, request.ref);
    if (request.toRef !== undefined && frameOfRef(record.frames, tabId, request.toRef) !== frame) {
      throw new ToolFailure(`${request.ref} and ${request.toRef} are in different frames; drag within one page or frame`);
    }
    return (await callPage(tabId, request, ctx.signal, { documentId: frame ? frame.documentId : record.documentId })).answer;
  };

  /**
   * A click tool: `browser_click` (any button) or `browser_double_click`.
   * @param {import("../generated/protocol").BrowserToolName} name @param {1 | 2} count @returns {BrowserTool}
   */
  const clicking = (name, count) => ({
    name,
    pageAccess: true,
    run(args, ctx) {
      const ref = args.ref;
      const button = args.button ?? "left";
      plainInFrames(args);
      return actOnRef(ctx, ref, name, async (tabId, expectOrigin) => {
        if (args.trusted !== true) return byRef(ctx, tabId, { op: "click", ref, button, count, expectOrigin });
        const located = await byRef(ctx, tabId, { op: "locate", ref, expectOrigin });
        if (!located.ok) return located;
        await debuggers.with(tabId, ctx, async (send) => trustedClick(send, pixel(located.at), await approvedTarget(send, located.path, located.label), { button, count }));
        const how = count === 2 ? "double-clicked" : button === "left" ? "clicked" : `${button}-clicked`;
        return { ok: true, did: `${how} ${located.label} with trusted input (the debugger, detached again)`, box: located.box };
      }, true);
    },
  });
  const clickTool = clicking("browser_click", 1);
  const doubleClickTool = clicking("browser_double_click", 2);

  /** @type {BrowserTool} */
  const clickAtTool = {
    name: "browser_click_at",
    pageAccess: true,
    run(args, ctx) {
      const tab = /** @type {chrome.tabs.Tab} */ (ctx.tab);
      const spot = pointOfShot(shots, tab, args);
      const button = args.button ?? "left";
      const count = args.double === true ? 2 : 1;
      return act(ctx, "browser_click_at", async (tabId, expectOrigin) => {
        const check = (await callPage(tabId, { op: "check", expectOrigin }, ctx.signal)).answer;
        if (!check.ok) return check;
        let view = await viewportOf(tabId, ctx.signal);
        const inView = () => view !== null && spot.x >= view.x && spot.y >= view.y && spot.x < view.x + view.width && spot.y < view.y + view.height;
        if (view && !inView()) {
          // a point of a full-page screenshot, or the page scrolled since: bring it into view
          const scrolling = chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, args: [spot.x, spot.y], func: (x, y) => scrollTo(x - innerWidth / 2, y - innerHeight / 2) });
          await bounded(scrolling, ctx.signal, PAGE_CALL_BOUND_MS, `the page in tab ${tabId}`);
          view = await viewportOf(tabId, ctx.signal);
        }
        if (!view) throw new ToolFailure(`the page in tab ${tabId} did not say where it is scrolled; take a new screenshot`);
        if (!inView()) return { ok: false, kind: "refused", error: `the point (${args.x}, ${args.y}) of the screenshot is no longer on the page (it got shorter or narrower); take a new screenshot` };
        const at = pixel({ x: spot.x - view.x, y: spot.y - view.y });
        const hit = await debuggers.with(tabId, ctx, async (send) => {
          const guard = await pointOfOrigin(send, expectOrigin);
          await trustedClick(send, at, guard, { button, count });
          return guard.hit;
        });
        const how = count === 2 ? "double-clicked" : button === "left" ? "clicked" : `${button}-clicked`;
        return { ok: true, did: `${how} at (${args.x}, ${args.y}) of the screenshot, (${at.x}, ${at.y}) of the viewport in CSS pixels, on ${hit || "the page"}, with trusted input`, point: at };
      }, true);
    },
  };

  /** @type {BrowserTool} */
  const hoverTool = {
    name: "browser_hover",
    pageAccess: true,
    run(args, ctx) {
      const ref = args.ref;
      plainInFrames(args);
      return actOnRef(ctx, ref, "browser_hover", async (tabId, expectOrigin) => {
        if (args.trusted !== true) return byRef(ctx, tabId, { op: "hover", ref, expectOrigin });
        const located = await byRef(ctx, tabId, { op: "locate", ref, expectOrigin });
        if (!located.ok) return located;
        await debuggers.with(tabId, ctx, async (send) => trustedHover(send, pixel(located.at), await approvedTarget(send, located.path, located.label)));
        return { ok: true, did: `moved the pointer over ${located.label} with trusted input`, box: located.box };
      }, false);
    },
  };

  /** @type {BrowserTool} */
  const dragTool = {
    name: "browser_drag",
    pageAccess: true,
    run(args, ctx) {
      const ref = args.ref;
      const toRef = args.toRef;
      const point = args.toX !== undefined && args.toY !== undefined ? { x: args.toX, y: args.toY } : undefined;
      // the schema asks for `toRef` or `toX`; a point needs `toY` too
      if (!toRef && !point) throw new ToolFailure("give `toRef` (an element to drop on) or `toX` and `toY` (a point of the viewport, CSS pixels)");
      return actOnRef(ctx, ref, "browser_drag", (tabId, expectOrigin) => byRef(ctx, tabId, { op: "drag", ref, toRef, to: point, expectOrigin }), true);
    },
  };

  /** @type {BrowserTool} */
  const typeTool = {
    name: "browser_type",
    pageAccess: true,
    run(args, ctx) {
      const ref = args.ref;
      const submit = args.submit === true;
      plainInFrames(args);
      ctx.frameHint = { typed: args.text };
      return actOnRef(ctx, ref, "browser_type", async (tabId, expectOrigin) => {
        if (args.trusted !== true) return byRef(ctx, tabId, { op: "type", ref, text: args.text, submit, expectOrigin });
        const located = await byRef(ctx, tabId, { op: "locate", ref, text: "", expectOrigin });
        if (!located.ok) return located;
        await debuggers.with(tabId, ctx, async (send) => {
          const guard = await approvedTarget(send, located.path, located.label);
          await trustedClick(send, pixel(located.at), guard);
          await guard.focus();
          await send("Input.dispatchKeyEvent", { type: "rawKeyDown", key: "a", code: "KeyA", windowsVirtualKeyCode: 65, modifiers: 2, commands: ["selectAll"] });
          await send("Input.dispatchKeyEvent", { type: "keyUp", key: "a", code: "KeyA", windowsVirtualKeyCode: 65, modifiers: 2 });
          await guard.focus();
          await send("Input.insertText", { text: args.text });
          if (submit) {
            await guard.focus();
            await trustedKey(send, { key: "Enter", ctrlKey: false, shiftKey: false, altKey: false, metaKey: false });
          }
        });
        return { ok: true, did: `typed ${args.text.length} characters into ${located.label} with trusted input${submit ? " and pressed Enter" : ""}`, box: located.box, secret: located.secret };
      }, submit);
    },
  };

  /** @type {BrowserTool} */
  const uploadTool = {
    name: "browser_upload_file",
    pageAccess: true,
    run(args, ctx) {
      const ref = args.ref;
      const files = uploads.take(ctx.callId);
      if (!files) {
        throw new ToolFailure("the user picked no files for this call (only files picked on its approval card in the panel are uploaded; nothing was done); ask the user to pick them when the card asks");
      }
      return actOnRef(ctx, ref, "browser_upload_file", (tabId, expectOrigin) => byRef(ctx, tabId, { op: "upload", ref, files, expectOrigin }), false);
    },
  };

  /** @type {BrowserTool} */
  const selectTool = {
    name: "browser_select_option",
    pageAccess: true,
    run(args, ctx) {
      const ref = args.ref;
      const values = args.values;
      return actOnRef(ctx, ref, "browser_select_option", (tabId, expectOrigin) => byRef(ctx, tabId, { op: "select", ref, values, expectOrigin }), false);
    },
  };

  /** @type {BrowserTool} */
  const pressTool = {
    name: "browser_press_key",
    pageAccess: true,
    run(args, ctx) {
      const key = args.key;
      return act(ctx, "browser_press_key", async (tabId, expectOrigin) => {
        if (args.trusted !== true) return (await callPage(tabId, { op: "press", key, expectOrigin }, ctx.signal)).answer;
        const parsed = parseKey(key);
        if (typeof parsed === "string") throw new ToolFailure(parsed);
        const check = (await callPage(tabId, { op: "check", expectOrigin }, ctx.signal)).answer;
        if (!check.ok) return check;
        await debuggers.with(tabId, ctx, (send) => trustedKey(send, parsed));
        return { ok: true, did: `pressed ${key} with trusted input` };
      }, true);
    },
  };

  /** @type {BrowserTool} */
  const scrollTool = {
    name: "browser_scroll",
    pageAccess: true,
    run(args, ctx) {
      const { ref, direction } = args;
      const scrolling = (/** @type {number} */ tabId, /** @type {string} */ expectOrigin) =>
        ref !== undefined
          ? byRef(ctx, tabId, { op: "scroll", ref, expectOrigin })
          : callPage(tabId, { op: "scroll", direction, expectOrigin }, ctx.signal).then((r) => r.answer);
      return ref !== undefined ? actOnRef(ctx, ref, "browser_scroll", scrolling, false) : act(ctx, "browser_scroll", scrolling, false);
    },
  };

  /** @type {BrowserTool} */
  const waitTool = {
    name: "browser_wait_for",
    pageAccess: true,
    async run(args, ctx) {
      const tab = /** @type {chrome.tabs.Tab} */ (ctx.tab);
      const tabId = /** @type {number} */ (tab.id);
      const { text, textGone: gone, timeMs } = args; // one at least, as the schema asks
      const started = Date.now();
      if (text === undefined && gone === undefined) {
        await sleep(/** @type {number} */ (timeMs), ctx.signal);
        return report(tabId, `Waited ${timeMs} ms.`, false);
      }
      const bound = timeMs ?? WAIT_DEFAULT_MS;
      const wanted = /** @type {string} */ (text ?? gone);
      for (;;) {
        let found = null;
        try {
          found = (await callPage(tabId, { op: "hasText", text: wanted }, ctx.signal, { boundMs: 2_000 })).answer.found;
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          if (error instanceof ToolFailure && /was closed/.test(error.message)) throw error;
          found = null; // navigating: look again
        }
        const waited = Date.now() - started;
        if (found !== null && found === (text !== undefined)) {
          const what = text !== undefined ? `${JSON.stringify(text)} appeared` : `${JSON.stringify(gone)} is gone`;
          return report(tabId, `${capital(what)} after ${waited} ms.`, false);
        }
        if (waited >= bound) {
          const what = text !== undefined ? `${JSON.stringify(text)} did not appear` : `${JSON.stringify(gone)} is still there`;
          return report(tabId, `${capital(what)} within ${bound} ms; take a snapshot to see the page, or wait longer with \`timeMs\` (up to 60000).`, true);
        }
        await sleep(Math.min(WAIT_POLL_MS, bound - waited), ctx.signal);
      }
    },
  };

  /** A tool that takes a ref is decided for the frame the ref is in. @param {BrowserTool} tool @returns {BrowserTool} */
  const byRefTarget = (tool) => ({ ...tool, resolve: (args, threadTabs) => refTarget(records, args, threadTabs) });
  return [
    ...[clickTool, doubleClickTool, hoverTool, dragTool, typeTool, selectTool, uploadTool, scrollTool].map(byRefTarget),
    clickAtTool,
    pressTool,
    waitTool,
    handleDialogTool,
  ];
}

/** @param {number} tabId @param {string} text @param {boolean} isError @returns {Promise<BrowserInvokeResult>} */
async function report(tabId, text, isError) {
  const target = describeTab(await chrome.tabs.get(tabId).catch(() => {
    throw new ToolFailure(`tab ${tabId} was closed while waiting`);
  }));
  return { content: `${text} Tab ${tabId} is at ${target.url} (origin ${target.origin}).`, isError, target };
}
