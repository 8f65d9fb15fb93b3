// An approval in one sentence, as a person would say it: what will happen, on which site,
// in which tab ("Type “ann@x.com” into the textbox “Email” on shop.example, in the tab
// “Checkout”"), and the model's own words for why, when it gave them. The tool's name,
// level and raw arguments stay on the card under "Technical details".

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

/** @param {ApprovalRequest} approval */
export function approvalSentence(approval) {
  const args = /** @type {Record<string, any>} */ (approval.args ?? {});
  const target = approval.target ?? {};
  const on = target.origin ? ` on ${siteOf(target.origin)}` : "";
  const tabWords = target.title ? `in the tab ${quoted(target.title, 40)}` : "in a tab";
  const inTab = target.tabId !== undefined && target.tabId !== null ? `, ${tabWords}` : "";
  const thing = thingOf(target.element, args.ref);
  switch (approval.tool.name) {
    case "browser_navigate":
      return `Open ${address(args.url)} ${tabWords}`;
    case "browser_tab_new":
      return args.url ? `Open ${address(args.url)} in a new tab` : "Open a new tab";
    case "browser_navigate_back":
      return `Go back one page ${tabWords}`;
    case "browser_tab_select":
      return `Switch to ${target.title ? `the tab ${quoted(target.title, 40)}` : "another tab"}`;
    case "browser_tab_close":
      return `Close ${target.title ? `the tab ${quoted(target.title, 40)}` : "a tab"}${on}`;
    case "browser_click":
      return `${args.button === "right" ? "Right-click" : args.button === "middle" ? "Middle-click" : "Click"} ${thing}${on}${inTab}`;
    case "browser_double_click":
      return `Double-click ${thing}${on}${inTab}`;
    case "browser_click_at":
      return `Click at the point (${args.x}, ${args.y}) of the latest screenshot${on}${inTab}`;
    case "browser_hover":
      return `Point at ${thing}${on}${inTab}`;
    case "browser_drag":
      return `Drag ${thing} ${args.toRef ? "onto another element" : "to another place"}${on}${inTab}`;
    case "browser_type":
      return `Type ${quoted(String(args.text ?? ""))} into ${thing}${on}${inTab}${args.submit ? ", then press Enter" : ""}`;
    case "browser_select_option":
      return `Choose ${(Array.isArray(args.values) ? args.values : []).map((v) => quoted(String(v), 40)).join(", ")} in ${thing}${on}${inTab}`;
    case "browser_upload_file":
      return `Upload files you pick to ${thing}${on}${inTab}`;
    case "browser_press_key":
      return `Press ${String(args.key ?? "a key")}${on}${inTab}`;
    case "browser_handle_dialog":
      return `Answer the next dialog${on} with ${args.accept ? "OK" : "Cancel"}${inTab}`;
    case "browser_screenshot":
      return `Take a screenshot of the whole page${on}${inTab}`;
    default:
      return `${approval.tool.label}${on}${inTab}`;
  }
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
