// The shim's tool table: one entry per browser tool this worker can run. The host owns
// the descriptors (schemas, levels, effects); an entry here only executes. `catalog.js`
// registers every tool with `ToolTable.register`.

import { ToolFailure, ToolRequestError } from "./errors.js";
import { TabQueue } from "./tab-queue.js";
import { describeTab, findTab, restrictionOf } from "./tabs.js";
import { findThreadTabs, tabsAfterCall } from "./thread-tabs.js";

/** @typedef {import("../generated/protocol").BrowserTarget} BrowserTarget */
/** @typedef {import("../generated/protocol").BrowserInvokeParams} BrowserInvokeParams */
/** @typedef {import("../generated/protocol").BrowserInvokeResult} BrowserInvokeResult */
/** @typedef {import("../generated/protocol").BrowserResolveTargetParams} BrowserResolveTargetParams */

/**
 * @typedef {object} ToolContext
 * @property {AbortSignal} signal  aborted on `$/cancelRequest`, on the tool's time bound or when the host goes
 * @property {string} callId
 * @property {BrowserTarget | undefined} target  the tab the gatekeeper approved, when resolved
 * @property {chrome.tabs.Tab | undefined} tab  for `pageAccess` tools: the page, already checked
 * @property {import("../generated/protocol").ThreadTabs | null} threadTabs  the calling thread's tabs (`thread-tabs.js`)
 * @property {import("./debugger.js").TurnRef} [turn]  the Turn the call runs in, when the host says (`browser.detach` names it)
 * @property {import("./frame-geometry.js").FrameHint} [frameHint]  what the call's frame draws (issue 30), set by the acting tools
 */

/**
 * @typedef {object} BrowserTool
 * @property {import("../generated/protocol").BrowserToolName} name  as the host declares it (schema/browser-tools.json): tsc refuses any other
 * @property {boolean} pageAccess  acts on the page's content: refused on restricted pages
 * @property {(args: Record<string, any>, ctx: ToolContext) => Promise<BrowserInvokeResult>} run
 * @property {(args: Record<string, any>, threadTabs: import("../generated/protocol").ThreadTabs | null) => Promise<BrowserTarget>} [resolve]  default: the tool's tab
 * @property {(threadId: string, turnId: string) => void} [detach]  `browser.detach`: release L2 attachments
 * @property {boolean} [tabless]  acts on no tab (lists tabs or downloads, opens a new tab): waits for no other call
 */

export class ToolTable {
  /** @param {string} ownOrigin this extension's origin (`chrome-extension://<id>`) */
  constructor(ownOrigin) {
    this.ownOrigin = ownOrigin;
    /** @type {Map<string, BrowserTool>} */
    this.tools = new Map();
    /** @type {Array<(threadId: string, turnId: string) => void>} */
    this.detachers = [];
    this.queue = new TabQueue();
    /** @type {import("./capture.js").FrameCapture | null} the timeline's frames (issue 30), when the catalog gives them */
    this.capture = null;
  }

  /** Also run `release` on `browser.detach` (state shared by several tools). @param {(threadId: string, turnId: string) => void} release */
  onDetach(release) {
    this.detachers.push(release);
    return this;
  }

  /** @param {BrowserTool} tool */
  register(tool) {
    if (this.tools.has(tool.name)) throw new Error(`browser tool ${tool.name} registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  /** The names for `initialize.capabilities.browserTools`. */
  names() {
    return [...this.tools.keys()];
  }

  /** @param {string} name */
  get(name) {
    const tool = this.tools.get(name);
    if (!tool) throw new ToolRequestError("method_not_found", `this browser cannot run the tool ${JSON.stringify(name)}`);
    return tool;
  }

  /**
   * `browser.resolveTarget`: the tab the tool would act on, with its origin.
   * @param {BrowserResolveTargetParams} params
   * @returns {Promise<BrowserTarget>}
   */
  async resolveTarget(params) {
    const tool = this.get(params.tool);
    const args = params.args ?? {};
    try {
      const threadTabs = params.threadTabs ?? null;
      return tool.resolve ? await tool.resolve(args, threadTabs) : describeTab(await findTab(args, undefined, threadTabs));
    } catch (error) {
      if (error instanceof ToolFailure) throw new ToolRequestError("tool", `${tool.name}: ${error.message}`);
      throw error;
    }
  }

  /**
   * `browser.invoke`: run the tool, after the calls on the same tab that came before it
   * (calls on other tabs run meanwhile); failures it can explain become error results.
   * @param {BrowserInvokeParams} params @param {AbortSignal} signal
   * @returns {Promise<BrowserInvokeResult>}
   */
  async invoke(params, signal) {
    const tool = this.get(params.tool);
    const args = params.args ?? {};
    const threadTabs = params.threadTabs ?? null;
    const tabId = await this.tabOf(tool, args, params.target ?? undefined, threadTabs);
    const call = () => this.call(tool, params, threadTabs, signal, tabId);
    return tabId === undefined ? call() : this.queue.run(tabId, signal, call);
  }

  /**
   * The tab a call will act on, for its place in that tab's line; undefined for a call on
   * no tab, or when there is none (the tool then says so itself).
   * @param {BrowserTool} tool @param {Record<string, any>} args @param {BrowserTarget | undefined} target
   * @param {import("../generated/protocol").ThreadTabs | null} threadTabs
   * @returns {Promise<number | undefined>}
   */
  async tabOf(tool, args, target, threadTabs) {
    if (tool.tabless) return undefined;
    if (typeof args.tabId === "number") return args.tabId;
    if (typeof target?.tabId === "number") return target.tabId;
    return (await findTab(args, target, threadTabs).catch(() => undefined))?.id;
  }

  /**
   * Run the tool, then find the calling thread's tabs as the call left them; with
   * `capture`, the call's frames (issue 30) before and after it.
   * @param {BrowserTool} tool @param {BrowserInvokeParams} params
   * @param {import("../generated/protocol").ThreadTabs | null} threadTabs @param {AbortSignal} signal
   * @param {number} [tabId]  the tab the call acts on, when known before it runs
   * @returns {Promise<BrowserInvokeResult>}
   */
  async call(tool, params, threadTabs, signal, tabId) {
    const args = params.args ?? {};
    /** @type {ToolContext} */
    const ctx = { signal, callId: params.callId, target: params.target ?? undefined, tab: undefined, threadTabs, turn: turnOf(params) };
    const capture = params.capture === true ? this.capture : null;
    /** @type {import("./capture.js").FrameOutcome | null} */
    const before = capture && tabId !== undefined && capture.firstLook(params.turnId, tabId) ? await capture.frame(tabId, "before") : null;
    const result = await this.run(tool, args, ctx, signal);
    if (capture && !signal.aborted) {
      const afterTab = result.target?.tabId ?? tabId;
      if (afterTab !== undefined && afterTab !== null) capture.firstLook(params.turnId, afterTab); // a new tab's first frame is this one
      // a call that failed draws nothing: what it meant to type or click may not have happened
      const after = afterTab !== undefined && afterTab !== null ? await capture.frame(afterTab, "after", result.isError ? undefined : ctx.frameHint) : { skipped: /** @type {const} */ ("failed") };
      const frames = [before, after].flatMap((outcome) => (outcome && "frame" in outcome ? [outcome.frame] : []));
      if (frames.length) result.frames = frames;
      if ("skipped" in after && !frames.length) result.frameSkipped = after.skipped;
    }
    if (threadTabs && !signal.aborted) {
      try {
        result.threadTabs = await tabsAfterCall(threadTabs, tool.name, result);
      } catch (error) {
        console.warn("panelot: could not find the thread's tabs after the call", error);
      }
    }
    return result;
  }

  /**
   * @param {BrowserTool} tool @param {Record<string, any>} args @param {ToolContext} ctx @param {AbortSignal} signal
   * @returns {Promise<BrowserInvokeResult>}
   */
  async run(tool, args, ctx, signal) {
    try {
      if (tool.pageAccess) {
        const tab = await findTab(args, ctx.target, ctx.threadTabs);
        const why = restrictionOf(tab.url ?? "", this.ownOrigin);
        if (why) {
          return {
            content: `${tool.name} cannot act on ${tab.url}: ${why}. Open or switch to a web page first.`,
            isError: true,
            target: describeTab(tab),
          };
        }
        ctx.tab = tab;
      }
      return await tool.run(args, ctx);
    } catch (error) {
      if (signal.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      return { content: `${tool.name}: ${message}`, isError: true };
    }
  }

  /**
   * `browser.threadTabs`: the thread's tabs found and grouped.
   * @param {import("../generated/protocol").BrowserThreadTabsParams} params
   */
  async threadTabs(params) {
    return findThreadTabs(params.threadTabs);
  }

  /** `browser.detach`: the user interrupted a Turn in which an L2 tool ran. @param {string} threadId @param {string} turnId */
  detach(threadId, turnId) {
    for (const tool of this.tools.values()) tool.detach?.(threadId, turnId);
    for (const release of this.detachers) release(threadId, turnId);
  }
}

/** The Turn a call runs in, when the host named it. @param {BrowserInvokeParams} params */
function turnOf(params) {
  const { threadId, turnId } = params;
  return typeof threadId === "string" && typeof turnId === "string" ? { threadId, turnId } : undefined;
}
