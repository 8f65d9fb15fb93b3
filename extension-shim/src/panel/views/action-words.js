// A browser action as a person says it: the approval card's question, what will happen, on
// which site, in which tab ("Type “ann@x.com” into the textbox “Email” on shop.example, in
// the tab “Checkout”"), the live line while it runs ("Typing into the textbox “Email”") and
// the step's line once done ("Typed 9 characters into the textbox “Email”"); and the
// model's own words for why, when it gave them. Tool names, levels and raw arguments stay
// under "Technical details".

/** @typedef {import("../../generated/protocol").ApprovalRequest} ApprovalRequest */
/** @typedef {import("../store.js").Item} Item */

const REASON_MAX = 280;

/** @param {string} text @param {number} [max] */
function quoted(text, max = 80) {
  const flat = text.replace(/\s+/g, " ").trim();
  return `“${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}”`;
}

/**
 * `https://shop.example:8443` -> `shop.example:8443`, as the address bar shows it; an
 * `http://` origin keeps its scheme (it is another site than the https one, and not secure).
 * @param {string} origin
 */
export function siteOf(origin) {
  return origin.replace(/^https:\/\//, "");
}

/** A URL as a person reads it: no `https://`, at most 70 characters. @param {unknown} url */
function address(url) {
  const text = typeof url === "string" ? url.replace(/^https:\/\//, "") : "a page";
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
}

/**
 * The element of a snapshot line (`textbox "Email"`, `span [e3] (class "trash")`) in words:
 * "the textbox “Email”".
 * @param {string | null | undefined} element @param {unknown} ref
 */
function thingOf(element, ref) {
  const line = /^([^\s"[]+)(?: ("(?:[^"\\]|\\.)*"))?/.exec(element ?? "");
  if (!line) return typeof ref === "string" ? `the element ${ref}` : "the page";
  const role = line[1].replace(/\[\d+\]$/, "");
  let name = "";
  try {
    name = line[2] ? String(JSON.parse(line[2])) : "";
  } catch {
    name = "";
  }
  return name ? `the ${role} ${quoted(name, 60)}` : `the ${role}`;
}

/**
 * @typedef {"ask" | "doing" | "done"} Tense
 *   ask: the card's question ("Click the button “Pay”"), doing: the live line ("Clicking the
 *   button “Pay”"), done: the step's line once it ran ("Clicked the button “Pay”").
 * @typedef {{origin?: string | null, tabId?: number | null, title?: string | null, element?: string | null, url?: string | null}} ActionTarget
 */

/**
 * A browser action as a person says it, in one of three tenses.
 * @param {Tense} tense @param {string} name @param {string} label
 * @param {Record<string, any>} args @param {ActionTarget} target
 */
export function actionWords(tense, name, label, args, target) {
  /** @param {string} ask @param {string} doing @param {string} done */
  const say = (ask, doing, done) => (tense === "ask" ? ask : tense === "doing" ? doing : done);
  const on = target.origin ? ` on ${siteOf(target.origin)}` : "";
  const tabWords = target.title ? `in the tab ${quoted(target.title, 40)}` : "in a tab";
  // the card names the tab; the live line and the steps show it on their tab chip
  const inTab = tense === "ask" && target.tabId !== undefined && target.tabId !== null ? `, ${tabWords}` : "";
  const thing = thingOf(target.element, args.ref);
  const page = target.title ? `the page ${quoted(target.title, 50)}` : "the page";
  switch (name) {
    case "browser_navigate":
      return say(`Open ${address(args.url)} ${tabWords}`, `Opening ${address(args.url)}`, `Opened ${address(args.url)}`);
    case "browser_tab_new":
      return args.url
        ? say(`Open ${address(args.url)} in a new tab`, `Opening ${address(args.url)} in a new tab`, `Opened ${address(args.url)} in a new tab`)
        : say("Open a new tab", "Opening a new tab", "Opened a new tab");
    case "browser_navigate_back":
      return say(`Go back one page ${tabWords}`, "Going back one page", "Went back one page");
    case "browser_tab_select": {
      const which = target.title ? `the tab ${quoted(target.title, 40)}` : "another tab";
      return say(`Switch to ${which}`, `Switching to ${which}`, `Switched to ${which}`);
    }
    case "browser_tab_close": {
      const which = target.title ? `the tab ${quoted(target.title, 40)}` : "a tab";
      return say(`Close ${which}${on}`, `Closing ${which}`, `Closed ${which}`);
    }
    case "browser_tabs_list":
      return say("List the open tabs", "Listing the open tabs", "Listed the open tabs");
    case "browser_snapshot":
      return say(`Look at ${page}${on}`, `Looking at ${page}${on}`, `Looked at ${page}${on}`);
    case "browser_read":
      return say(`Read ${page}${on}`, `Reading ${page}${on}`, `Read ${page}${on}`);
    case "browser_click": {
      const how = args.button === "right" ? "Right-click" : args.button === "middle" ? "Middle-click" : "Click";
      return `${say(how, `${how}ing`, `${how}ed`)} ${thing}${on}${inTab}`;
    }
    case "browser_double_click":
      return `${say("Double-click", "Double-clicking", "Double-clicked")} ${thing}${on}${inTab}`;
    case "browser_click_at":
      return say(`Click at the point (${args.x}, ${args.y}) of the latest screenshot${on}${inTab}`, `Clicking at a point${on}`, `Clicked at the point (${args.x}, ${args.y})${on}`);
    case "browser_hover":
      return `${say("Point at", "Pointing at", "Pointed at")} ${thing}${on}${inTab}`;
    case "browser_drag":
      return `${say("Drag", "Dragging", "Dragged")} ${thing} ${args.toRef ? "onto another element" : "to another place"}${on}${inTab}`;
    case "browser_type": {
      const count = String(args.text ?? "").length;
      const enter = args.submit ? say(", then press Enter", " and pressing Enter", " and pressed Enter") : "";
      // a typed value may be a secret: once done, the line says how much, not what
      return say(`Type ${quoted(String(args.text ?? ""))} into ${thing}${on}${inTab}`, `Typing into ${thing}${on}`, `Typed ${count} character${count === 1 ? "" : "s"} into ${thing}${on}`) + enter;
    }
    case "browser_select_option": {
      const values = (Array.isArray(args.values) ? args.values : []).map((v) => quoted(String(v), 40)).join(", ");
      return `${say("Choose", "Choosing", "Chose")} ${values} in ${thing}${on}${inTab}`;
    }
    case "browser_upload_file":
      return say(`Upload files you pick to ${thing}${on}${inTab}`, `Uploading files to ${thing}${on}`, `Uploaded files to ${thing}${on}`);
    case "browser_press_key":
      return `${say("Press", "Pressing", "Pressed")} ${String(args.key ?? "a key")}${on}${inTab}`;
    case "browser_handle_dialog":
      return say(`Answer the next dialog${on} with ${args.accept ? "OK" : "Cancel"}${inTab}`, "Getting ready to answer a dialog", `Set the next dialog's answer to ${args.accept ? "OK" : "Cancel"}${on}`);
    case "browser_scroll":
      return args.ref
        ? `${say("Scroll to", "Scrolling to", "Scrolled to")} ${thing}${on}`
        : `${say("Scroll", "Scrolling", "Scrolled")} ${String(args.direction ?? "down")}${on}`;
    case "browser_wait_for": {
      const what = args.text ? `${quoted(String(args.text), 40)} to appear` : args.textGone ? `${quoted(String(args.textGone), 40)} to go` : `${Math.round(Number(args.timeMs ?? 0) / 100) / 10} s`;
      return `${say("Wait for", "Waiting for", "Waited for")} ${what}${on}`;
    }
    case "browser_downloads":
      return say("Look at the downloads", "Looking at the downloads", "Looked at the downloads");
    case "browser_screenshot":
      return say(`Take a screenshot of the whole page${on}${inTab}`, `Taking a screenshot${on}`, `Took a screenshot${on}`);
    default:
      return say(`${label}${on}${inTab}`, `${label}${on}…`, `${label}${on}`);
  }
}

/** The approval card's question. @param {ApprovalRequest} approval */
export function approvalSentence(approval) {
  return actionWords("ask", approval.tool.name, approval.tool.label, /** @type {Record<string, any>} */ (approval.args ?? {}), approval.target ?? {});
}

/**
 * Whose tab the call acts on when the thread does not own it (`tabOwner`, the host's words:
 * "your active tab", "one of your tabs", "a tab of the thread “Taxes”"), and whether
 * allowing hands it to the thread; null for a tab of the thread's own.
 * @param {ApprovalRequest} approval
 */
export function tabOwnerWords(approval) {
  if (!approval.tabOwner) return null;
  const whose = `This is ${approval.tabOwner}, not one of this thread's.`;
  return approval.sharesTab ? `${whose} Allowing shares it with this thread.` : whose;
}

/**
 * What the model said just before asking for the call: the text of the message that holds
 * it, when it gave one.
 * @param {Map<string, Item>} items @param {string} toolCallId
 * @returns {string | null}
 */
export function reasonFor(items, toolCallId) {
  let item = items.get(toolCallId);
  for (let hops = 0; item && hops < 50; hops += 1) {
    const parent = /** @type {{parentId?: string | null}} */ (item).parentId;
    item = parent ? items.get(parent) : undefined;
    if (!item || item.kind === "user" || item.kind === "steering") return null;
    if (item.kind === "assistant") {
      const text = (/** @type {{text?: string}} */ (item).text ?? "").replace(/\s+/g, " ").trim();
      if (!text) return null;
      return text.length > REASON_MAX ? `${text.slice(0, REASON_MAX - 1)}…` : text;
    }
  }
  return null;
}
