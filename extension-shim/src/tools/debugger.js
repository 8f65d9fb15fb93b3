// Level L2: chrome.debugger, for trusted input (pages that ignore scripted events) and
// full-page screenshots. An attachment lives for one tool call only -- attached, used,
// detached in `finally` -- so Chrome's "is debugging this browser" bar never outlives the
// call, let alone the Turn. Attachments are per tab, each owned by the Turn whose call made
// it: `browser.detach {threadId, turnId}` (the user interrupted that Turn) detaches what a
// cancelled call of that Turn still holds, and leaves other threads' tabs attached.

import { ToolFailure } from "./errors.js";
import { keyIdentity } from "../page/keys.js";

const PROTOCOL = "1.3";

/** @typedef {(method: string, params?: Record<string, unknown>) => Promise<any>} Send */
/** @typedef {{threadId: string, turnId: string}} TurnRef  the Turn a call runs in, as the host said */

/** @param {TurnRef | undefined} turn @returns {string} "" for a call whose host named no Turn */
const ownerOf = (turn) => (turn ? JSON.stringify([turn.threadId, turn.turnId]) : "");

export class DebuggerSessions {
  constructor() {
    /** @type {Map<number, string>} tabs this worker holds an attachment to -> the Turn that holds it */
    this.attached = new Map();
  }

  /**
   * Attach to `tabId` for the call, run `use`, detach.
   * @template T
   * @param {number} tabId
   * @param {{signal: AbortSignal, turn?: TurnRef}} call  the tool's context: its signal, and its Turn (`browser.detach` of that Turn lets go)
   * @param {(send: Send) => Promise<T>} use
   * @returns {Promise<T>}
   */
  async with(tabId, call, use) {
    const { signal, turn } = call;
    signal.throwIfAborted();
    if (this.attached.has(tabId)) throw new ToolFailure(`tab ${tabId} is already in use by another trusted action; try again when it ends`);
    try {
      await chrome.debugger.attach({ tabId }, PROTOCOL);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolFailure(`Chrome refused the debugger for tab ${tabId} (${message}); if DevTools is open on it, close it and try again`);
    }
    this.attached.set(tabId, ownerOf(turn));
    /** @type {Send} */
    const send = async (method, params) => {
      signal.throwIfAborted();
      try {
        return await chrome.debugger.sendCommand({ tabId }, method, params);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!this.attached.has(tabId)) throw new ToolFailure("the debugger was detached (the user cancelled it, or the tab closed)");
        throw new ToolFailure(`${method} failed: ${message}`);
      }
    };
    try {
      return await use(send);
    } finally {
      await this.release(tabId);
    }
  }

  /** @param {number} tabId */
  async release(tabId) {
    if (!this.attached.delete(tabId)) return;
    try {
      await chrome.debugger.detach({ tabId });
    } catch {
      // already detached (tab closed, or the user pressed Cancel on the bar)
    }
  }

  /** Chrome detached us (the user cancelled the bar, the tab closed). @param {chrome.debugger.Debuggee} source */
  lost(source) {
    if (source.tabId !== undefined) this.attached.delete(source.tabId);
  }

  /**
   * `browser.detach`: let go of the attachments of this Turn's calls (and of calls whose
   * host named no Turn: it runs one Turn at a time), never another thread's.
   * @param {string} threadId @param {string} turnId
   */
  async releaseTurn(threadId, turnId) {
    const owner = ownerOf({ threadId, turnId });
    const tabs = [...this.attached].filter(([, holder]) => holder === owner || holder === "").map(([tabId]) => tabId);
    await Promise.all(tabs.map((tabId) => this.release(tabId)));
  }
}

const MODIFIER_BITS = { altKey: 1, ctrlKey: 2, metaKey: 4, shiftKey: 8 };

/**
 * One key press as trusted input.
 * @param {Send} send @param {{key: string, ctrlKey: boolean, shiftKey: boolean, altKey: boolean, metaKey: boolean}} press
 */
export async function trustedKey(send, press) {
  const { key } = press;
  const modifiers = Object.entries(MODIFIER_BITS).reduce((bits, [name, bit]) => (press[/** @type {keyof typeof MODIFIER_BITS} */ (name)] ? bits | bit : bits), 0);
  const printable = key.length === 1;
  const { code: domCode, keyCode } = keyIdentity(key);
  const code = keyCode || (printable ? key.toUpperCase().charCodeAt(0) : 0);
  if (!printable && code === 0) throw new ToolFailure(`unknown key ${JSON.stringify(key)} (use names like Enter, Tab, Escape, ArrowDown, or one character)`);
  const text = key === "Enter" ? "\r" : printable && !(modifiers & 7) ? key : undefined;
  const base = { key, code: domCode, windowsVirtualKeyCode: code, nativeVirtualKeyCode: code, modifiers };
  await send("Input.dispatchKeyEvent", { ...base, type: text ? "keyDown" : "rawKeyDown", text, unmodifiedText: text });
  await send("Input.dispatchKeyEvent", { ...base, type: "keyUp" });
}

/**
 * A click at a point of the viewport, as trusted input (`button`, `count` 2 for a double
 * click); `guard.point` re-checks the point right before each event (`hit-check.js`).
 * @param {Send} send @param {{x: number, y: number}} at @param {{point: (at: {x: number, y: number}) => Promise<void>}} guard
 * @param {{button?: "left" | "right" | "middle", count?: number}} [how]
 */
export async function trustedClick(send, at, guard, how = {}) {
  const button = how.button ?? "left";
  const buttons = { left: 1, right: 2, middle: 4 }[button];
  await guard.point(at);
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: at.x, y: at.y });
  for (let clickCount = 1; clickCount <= (how.count ?? 1); clickCount++) {
    await guard.point(at);
    await send("Input.dispatchMouseEvent", { type: "mousePressed", x: at.x, y: at.y, button, buttons, clickCount });
    await guard.point(at);
    await send("Input.dispatchMouseEvent", { type: "mouseReleased", x: at.x, y: at.y, button, buttons: 0, clickCount });
  }
}

/**
 * The pointer moved onto a point of the viewport, as trusted input (CSS `:hover` follows).
 * @param {Send} send @param {{x: number, y: number}} at @param {{point: (at: {x: number, y: number}) => Promise<void>}} guard
 */
export async function trustedHover(send, at, guard) {
  await guard.point(at);
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: at.x, y: at.y });
}
