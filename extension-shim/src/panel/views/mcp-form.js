// MCP servers for people: each server listed with its state and a Remove button, and a
// form to add one: a program on this computer (the program and its arguments, one per
// line: nothing is split or quoted for the user) or a web address. The whole map, as the
// `mcp.json` other MCP clients write, stays editable under "Edit as mcp.json".

import { el, button, labelledField, plainTextInput } from "../dom.js";

/**
 * @typedef {{command?: string, args?: string[], env?: Record<string, string>, url?: string, headers?: Record<string, string>}} ServerConfig
 * @typedef {{name: string, state: string, toolCount?: number, reason?: string}} ServerState
 * @typedef {{servers: Record<string, ServerConfig>, states: ServerState[],
 *   save: (servers: Record<string, ServerConfig>, done: string) => void, say: (text: string) => void}} McpFormOptions
 */

/** The config of a server from the form's fields, or the reason it is not one. @returns {ServerConfig | string} */
export function serverFrom(/** @type {{kind: string, program: string, args: string, url: string}} */ fields) {
  if (fields.kind === "url") {
    try {
      const url = new URL(fields.url.trim());
      if (url.protocol !== "https:" && url.protocol !== "http:") return "The address must start with https:// or http://.";
      return { url: url.href };
    } catch {
      return "The address is not a web address (like https://mcp.example.com/mcp).";
    }
  }
  const command = fields.program.trim();
  if (!command) return "Give the program that runs the server (like npx or uvx).";
  const args = fields.args.split("\n").map((line) => line.trim()).filter(Boolean);
  return args.length ? { command, args } : { command };
}

/** @param {McpFormOptions} options @returns {HTMLElement[]} */
export function mcpForm({ servers, states, save, say }) {
  const list = el("ul", "mcp");
  const names = Object.keys(servers);
  for (const name of names) {
    const state = states.find((s) => s.name === name);
    const config = servers[name];
    const how = config.url ? config.url : [config.command, ...(config.args ?? [])].join(" ");
    const words = state ? `${state.state}${state.toolCount !== undefined ? ` · ${state.toolCount} tools` : ""}${state.reason ? ` · ${state.reason}` : ""}` : "not started yet";
    const remove = button("Remove", () => {
      const rest = { ...servers };
      delete rest[name];
      save(rest, `Removed the MCP server “${name}”.`);
    });
    remove.setAttribute("aria-label", `Remove the MCP server ${name}`);
    list.append(el("li", "", el("span", "mcp-name", el("strong", "", name), ` · ${words}`), el("span", "muted mcp-how", how), remove));
  }
  if (!names.length) list.append(el("li", "muted", "No MCP servers."));

  const form = el("form", "settings-form mcp-add");
  const name = plainTextInput("");
  const kind = el("select");
  for (const [value, label] of [["program", "A program on this computer"], ["url", "A web address"]]) {
    const option = el("option", "", label);
    option.value = value;
    kind.append(option);
  }
  const program = plainTextInput("");
  program.placeholder = "npx";
  const args = el("textarea", "mono");
  args.rows = 3;
  args.spellcheck = false;
  args.placeholder = "-y\n@modelcontextprotocol/server-filesystem\n/home/me/Documents";
  const url = plainTextInput("");
  url.placeholder = "https://mcp.example.com/mcp";
  const programField = labelledField("mcp-program", "Program", program, "The command that starts the server.");
  const argsField = labelledField("mcp-args", "Arguments, one per line", args);
  const urlField = labelledField("mcp-url", "Server address", url, "The server's address; Panelot connects to it over HTTP.");
  const showKind = () => {
    programField.hidden = argsField.hidden = kind.value !== "program";
    urlField.hidden = kind.value !== "url";
  };
  kind.addEventListener("change", showKind);
  showKind();
  const add = el("button", "", "Add server");
  add.type = "submit";
  form.append(
    labelledField("mcp-name", "Server name", name),
    labelledField("mcp-kind", "How it runs", kind),
    programField,
    argsField,
    urlField,
    add,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = name.value.trim();
    if (!key) return say("Give the server a name.");
    if (key in servers) return say(`There is already an MCP server named “${key}”.`);
    const config = serverFrom({ kind: kind.value, program: program.value, args: args.value, url: url.value });
    if (typeof config === "string") return say(config);
    save({ ...servers, [key]: config }, `Added the MCP server “${key}”.`);
  });

  // the whole map as other MCP clients write it, for those who have one already
  const raw = el("details", "mcp-raw", el("summary", "", "Edit as mcp.json"));
  const editor = el("textarea", "mono");
  editor.rows = 6;
  editor.spellcheck = false;
  editor.value = JSON.stringify({ mcpServers: servers }, null, 2);
  const rawForm = el("form", "settings-form");
  const saveRaw = el("button", "", "Save MCP servers");
  saveRaw.type = "submit";
  rawForm.append(labelledField("setting-mcp-servers-mcp-json-", "MCP servers (mcp.json)", editor, "The format other MCP clients use; secrets stay masked."), saveRaw);
  rawForm.addEventListener("submit", (event) => {
    event.preventDefault();
    let parsed;
    try {
      parsed = JSON.parse(editor.value);
    } catch (error) {
      say(`The MCP servers are not valid JSON: ${error instanceof Error ? error.message : error}`);
      return;
    }
    save(parsed?.mcpServers ?? parsed, "MCP servers saved.");
  });
  raw.append(rawForm);
  return [list, form, raw];
}
