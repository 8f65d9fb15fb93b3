// Policy rules in people's words: the actions a rule can name ("Click on pages", each a
// tool name or glob of the host's browser tools), the sites it can name, and a rule read
// back as a sentence ("Deny: Click on pages, on bank.example"). The rule's shape is the
// gatekeeper's (`docs/tools.md`, "Policy rules"): {decision, tool?, origin?, effect?}.

import { siteOf } from "./action-words.js";

/** @typedef {{decision: string, tool?: string, origin?: string, effect?: string, id?: string}} Rule */
/** @typedef {{key: string, label: string, tool?: string, effect?: string}} Action */

/** @type {Action[]} */
export const ACTIONS = [
  { key: "any", label: "Any action" },
  { key: "changes", label: "Any action that changes a page", effect: "write" },
  { key: "click", label: "Click on pages", tool: "browser_*click*" },
  { key: "type", label: "Type into pages", tool: "browser_type" },
  { key: "select", label: "Choose options in lists", tool: "browser_select_option" },
  { key: "keys", label: "Press keys", tool: "browser_press_key" },
  { key: "drag", label: "Drag things on pages", tool: "browser_drag" },
  { key: "hover", label: "Point at things on pages", tool: "browser_hover" },
  { key: "scroll", label: "Scroll pages", tool: "browser_scroll" },
  { key: "upload", label: "Upload files", tool: "browser_upload_file" },
  { key: "dialog", label: "Answer page dialogs", tool: "browser_handle_dialog" },
  { key: "open", label: "Open pages", tool: "browser_navigate*" },
  { key: "new-tab", label: "Open new tabs", tool: "browser_tab_new" },
  { key: "switch-tab", label: "Switch tabs", tool: "browser_tab_select" },
  { key: "close-tab", label: "Close tabs", tool: "browser_tab_close" },
  { key: "read", label: "Read pages", tool: "browser_read" },
  { key: "screenshot", label: "Take screenshots", tool: "browser_screenshot" },
];

export const DECISIONS = /** @type {const} */ ([["allow", "Allow"], ["ask", "Ask first"], ["deny", "Deny"]]);

/** Does `name` match the glob `pattern` (`*`, `?`), as the gatekeeper matches tools? @param {string} pattern @param {string} name */
export function globMatches(pattern, name) {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${source}$`).test(name);
}

/**
 * The actions a rule may name with these browser tools (the host's `browserTools`): those
 * that match at least one of them; all of them when the list is not known.
 * @param {string[] | null} toolNames
 */
export function actionsFor(toolNames) {
  if (!toolNames || !toolNames.length) return ACTIONS;
  return ACTIONS.filter((a) => !a.tool || toolNames.some((name) => globMatches(/** @type {string} */ (a.tool), name)));
}

/** The rule for `action`, `decision` and `origin` (null: every site). @param {Action} action @param {string} decision @param {string | null} origin */
export function ruleFor(action, decision, origin) {
  /** @type {Rule} */
  const rule = { decision };
  if (action.tool) rule.tool = action.tool;
  if (action.effect) rule.effect = action.effect;
  if (origin) rule.origin = origin;
  return rule;
}

/** A rule in words: "Deny: Click on pages, on bank.example". @param {Rule} rule */
export function ruleWords(rule) {
  const decision = DECISIONS.find(([value]) => value === rule.decision)?.[1] ?? rule.decision;
  const action = ACTIONS.find((a) => a.tool === rule.tool && a.effect === rule.effect)?.label
    ?? (rule.tool ? `the tool “${rule.tool}”${rule.effect ? ` when it can ${rule.effect}` : ""}` : `Actions that can ${rule.effect}`);
  return `${decision}: ${action}, ${rule.origin ? `on ${siteOf(rule.origin)}` : "on every site"}`;
}

/**
 * A grant in words: "Allowed: Open pages, on shop.example" ("in one thread", "everywhere").
 * @param {{decision: string, tool: string, scope: string, origin?: string | null}} grant
 */
export function grantWords(grant) {
  const decision = grant.decision === "deny" ? "Denied" : "Allowed";
  const action = ACTIONS.find((a) => a.tool && globMatches(a.tool, grant.tool))?.label ?? `the tool “${grant.tool}”`;
  const where = grant.scope === "origin" && grant.origin ? `on ${siteOf(grant.origin)}` : grant.scope === "thread" ? "in one thread" : "everywhere";
  return `${decision}: ${action}, ${where}`;
}

/**
 * A site as typed ("bank.example", "https://bank.example/login", "*.bank.example") as the
 * origin a rule names ("https://bank.example"), or null when it is not one.
 * @param {string} text
 */
export function siteAddress(text) {
  const typed = text.trim();
  if (!typed) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(typed) ? typed : `https://${typed}`;
  if (withScheme.includes("*")) {
    // a glob of sites: scheme, host labels (with *) and an optional port, nothing else
    const glob = /^(https?:\/\/[a-z0-9*-]+(?:\.[a-z0-9*-]+)*(?::\d+)?)\/?$/i.exec(withScheme);
    return glob ? glob[1].toLowerCase() : null;
  }
  try {
    const url = new URL(withScheme);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    if (!url.hostname.includes(".") && url.hostname !== "localhost") return null;
    return url.origin;
  } catch {
    return null;
  }
}
