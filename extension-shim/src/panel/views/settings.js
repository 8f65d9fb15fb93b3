// The settings view: provider (Anthropic, OpenAI, an OpenAI-compatible server by base URL),
// model and task model, the API key (sent with credentials.set, never shown back: only
// "set" and its fingerprint), the default token budget, policy rules, the grant ledger with
// revoke, and MCP servers with their status.

import { el, button, labelledField, plainTextInput } from "../dom.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {import("../../generated/protocol").Settings} Settings */
/** @typedef {import("../../generated/protocol").Grant} Grant */

/**
 * @param {Store} store @param {Controller} controller
 */
export function mountSettings(store, controller) {
  const root = /** @type {HTMLElement} */ (document.getElementById("settings-body"));
  /** @type {{settings: Settings | null, grants: Grant[], keyFingerprint: string | null, status: string}} */
  const view = { settings: null, grants: [], keyFingerprint: null, status: "" };

  async function load() {
    const [settings, grants] = await Promise.all([controller.getSettings(), controller.listGrants()]);
    if (!settings) return;
    view.settings = settings;
    view.grants = grants ?? [];
    render();
  }

  /** @param {string} text */
  function say(text) {
    view.status = text;
    const line = root.querySelector("#settings-status");
    if (line) line.textContent = text;
  }

  function render() {
    const settings = view.settings;
    if (!settings) {
      root.replaceChildren(el("p", "muted", "Loading settings…"));
      return;
    }
    root.replaceChildren(modelSection(settings), keySection(settings), policySection(settings), grantsSection(), mcpSection(settings));
    const status = el("p", "settings-status", view.status);
    status.id = "settings-status";
    status.setAttribute("role", "status");
    root.prepend(status);
  }

  /** @param {string} label @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} input @param {string} [help] */
  function field(label, input, help) {
    return labelledField(`setting-${label.toLowerCase().replace(/[^a-z]+/g, "-")}`, label, input, help);
  }

  /** @param {Settings} settings */
  function modelSection(settings) {
    const provider = el("select");
    const kind = settings.provider === "openai" && settings.baseUrl ? "compatible" : settings.provider ?? "";
    for (const [value, label] of [["", "From the environment"], ["anthropic", "Anthropic"], ["openai", "OpenAI"], ["compatible", "OpenAI-compatible (local or other server)"]]) {
      const option = el("option", "", label);
      option.value = value;
      option.selected = value === kind;
      provider.append(option);
    }
    const baseUrl = plainTextInput(settings.baseUrl ?? "");
    baseUrl.placeholder = "http://127.0.0.1:11434/v1";
    const model = plainTextInput(settings.model ?? "");
    const taskModel = plainTextInput(settings.taskModel ?? "");
    const budget = el("input");
    budget.type = "number";
    budget.min = "1";
    budget.value = settings.defaultTokenBudget ? String(settings.defaultTokenBudget) : "";
    const limits = settings.modelLimits ?? {};
    const shownLimit = limits[settings.model ?? ""] ?? {};
    const contextWindow = tokenField(shownLimit.contextWindow, "1024");
    const output = tokenField(shownLimit.maxOutputTokens, "1");
    model.addEventListener("change", () => {
      const limit = limits[model.value.trim()] ?? {};
      contextWindow.value = limit.contextWindow ? String(limit.contextWindow) : "";
      output.value = limit.maxOutputTokens ? String(limit.maxOutputTokens) : "";
    });
    const baseField = field("Base URL", baseUrl, "The server's OpenAI-compatible endpoint (Ollama, LM Studio, vLLM, llama.cpp).");
    const showBase = () => { baseField.hidden = provider.value !== "compatible"; };
    provider.addEventListener("change", showBase);
    showBase();
    const form = el("form", "settings-form");
    const save = el("button", "primary", "Save model settings");
    save.type = "submit";
    form.append(
      field("Provider", provider),
      baseField,
      field("Model", model, "The model that answers, e.g. claude-sonnet-4-5 or gpt-4.1."),
      field("Task model", taskModel, "A small model for thread titles; empty keeps the first line."),
      field("Default token budget", budget, "Tokens a turn may use before it pauses; empty means no limit."),
      field("Context window", contextWindow, "Tokens this model reads and writes in one call; empty keeps what Panelot knows of it (32,000 for a model it does not know)."),
      field("Output limit", output, "Tokens one answer of this model may write; empty keeps what Panelot knows."),
      save,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const choice = provider.value;
      const tokens = Number.parseInt(budget.value, 10);
      /** @type {Record<string, unknown>} */
      const update = {
        provider: choice === "" ? null : choice === "compatible" ? "openai" : choice,
        baseUrl: choice === "compatible" ? baseUrl.value.trim() || null : null,
        model: model.value.trim() || null,
        taskModel: taskModel.value.trim() || null,
        defaultTokenBudget: Number.isFinite(tokens) && tokens > 0 ? tokens : null,
      };
      const modelId = model.value.trim();
      if (modelId) update.modelLimits = withLimit(limits, modelId, count(contextWindow), count(output));
      const saved = await controller.updateSettings(update);
      if (saved) {
        view.settings = saved;
        view.status = "Model settings saved.";
        render();
      }
    });
    return section("Model", form);
  }

  /** A positive token count input (empty: none). @param {number | null | undefined} value @param {string} min */
  function tokenField(value, min) {
    const input = el("input");
    input.type = "number";
    input.min = min;
    input.value = value ? String(value) : "";
    return input;
  }

  /** @param {Settings} settings */
  function keySection(settings) {
    const key = el("input");
    key.type = "password";
    key.autocomplete = "off";
    const state = el("p", "key-state");
    state.id = "key-state";
    state.textContent = view.keyFingerprint
      ? `API key: set (fingerprint ${view.keyFingerprint}).`
      : settings.apiKeyRef ? `API key: stored under “${settings.apiKeyRef}”.` : "API key: not set here (the environment's key is used, if any).";
    const form = el("form", "settings-form");
    const save = el("button", "primary", "Save API key");
    save.type = "submit";
    const origin = keyOrigin(settings);
    const where = origin ? ` The host sends it only to ${origin}.` : "";
    form.append(field("API key", key, `Sent once to the host's credential store; it is never shown again.${where}`), save, state);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const secret = key.value;
      key.value = ""; // never kept in the page
      if (!secret) return;
      const provider = view.settings?.provider ?? "anthropic";
      const ref = view.settings?.apiKeyRef ?? `${provider}-api-key`;
      const fingerprint = await controller.setKey(ref, secret, !view.settings?.apiKeyRef, origin);
      if (fingerprint) {
        view.keyFingerprint = fingerprint;
        if (view.settings) view.settings = { ...view.settings, apiKeyRef: ref };
        view.status = "API key saved.";
        render();
      }
    });
    return section("API key", form);
  }

  /** @param {Settings} settings */
  function policySection(settings) {
    const rules = /** @type {{decision: string, tool?: string, origin?: string, effect?: string, id?: string}[]} */ (settings.policyRules ?? []);
    const list = el("ul", "rules");
    rules.forEach((rule, n) => {
      const words = `${rule.decision} ${rule.tool ?? "any tool"}${rule.origin ? ` on ${rule.origin}` : ""}${rule.effect ? ` (${rule.effect})` : ""}`;
      const remove = button("Remove", () => saveRules(rules.filter((_, i) => i !== n)));
      remove.setAttribute("aria-label", `Remove rule: ${words}`);
      list.append(el("li", "", el("span", "", words), remove));
    });
    if (!rules.length) list.append(el("li", "muted", "No rules: every action that changes a page asks first."));
    const decision = el("select");
    for (const d of ["ask", "allow", "deny"]) {
      const option = el("option", "", d);
      option.value = d;
      decision.append(option);
    }
    const tool = plainTextInput("");
    tool.placeholder = "browser_click or browser_*";
    const origin = plainTextInput("");
    origin.placeholder = "https://example.com";
    const form = el("form", "settings-form");
    const add = el("button", "", "Add rule");
    add.type = "submit";
    form.append(field("Decision", decision), field("Tool", tool), field("Site", origin), add);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      /** @type {Record<string, string>} */
      const rule = { decision: decision.value };
      if (tool.value.trim()) rule.tool = tool.value.trim();
      if (origin.value.trim()) rule.origin = origin.value.trim();
      saveRules([...rules, rule]);
    });
    return section("Policy rules", list, form);
  }

  /** @param {object[]} rules */
  async function saveRules(rules) {
    const saved = await controller.updateSettings({ policyRules: rules });
    if (saved) {
      view.settings = saved;
      view.status = "Policy rules saved.";
      render();
    }
  }

  function grantsSection() {
    const list = el("ul", "grants");
    for (const grant of view.grants) {
      const where = grant.scope === "origin" ? `on ${grant.origin}` : grant.scope === "thread" ? "in one thread" : "everywhere";
      const words = `${grant.decision} ${grant.tool} ${where}`;
      const revoke = button("Revoke", async () => {
        const grants = await controller.revokeGrant(grant.id);
        if (grants) {
          view.grants = grants;
          view.status = `Revoked: ${words}.`;
          render();
        }
      });
      revoke.setAttribute("aria-label", `Revoke ${words}`);
      list.append(el("li", "", el("span", "", words), revoke));
    }
    if (!view.grants.length) list.append(el("li", "muted", "No grants yet. “Allow for this thread” and “Allow for this site” add them here."));
    return section("Grants", list);
  }

  /** @param {Settings} settings */
  function mcpSection(settings) {
    const status = el("ul", "mcp");
    const states = /** @type {{name: string, state: string, toolCount?: number, reason?: string}[]} */ (settings.mcpStatus ?? []);
    for (const server of states) {
      status.append(el("li", "", el("strong", "", server.name), ` ${server.state}${server.toolCount !== undefined ? ` · ${server.toolCount} tools` : ""}${server.reason ? ` · ${server.reason}` : ""}`));
    }
    if (!states.length) status.append(el("li", "muted", "No MCP servers."));
    const editor = el("textarea", "mono");
    editor.rows = 6;
    editor.spellcheck = false;
    editor.value = JSON.stringify({ mcpServers: settings.mcpServers ?? {} }, null, 2);
    const form = el("form", "settings-form");
    const save = el("button", "", "Save MCP servers");
    save.type = "submit";
    form.append(field("MCP servers (mcp.json)", editor, "The format other MCP clients use; secrets stay masked."), save);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      let parsed;
      try {
        parsed = JSON.parse(editor.value);
      } catch (error) {
        say(`The MCP servers are not valid JSON: ${error instanceof Error ? error.message : error}`);
        return;
      }
      const saved = await controller.updateSettings({ mcpServers: parsed?.mcpServers ?? parsed });
      if (saved) {
        view.settings = saved;
        view.status = "MCP servers saved.";
        render();
      }
    });
    return section("MCP servers", status, form);
  }

  /** @param {string} name @param {...Node} children */
  function section(name, ...children) {
    const heading = el("h3", "", name);
    return el("section", "settings-section", heading, ...children);
  }

  store.on("view", () => {
    if (store.state.view === "settings") {
      render();
      load();
    }
  });
}

/**
 * The origin a key entered now is for: an OpenAI-compatible server's (from its base URL);
 * null for the official APIs, which the host knows itself.
 * @param {Settings} settings
 */
export function keyOrigin(settings) {
  if (settings.provider !== "openai" || !settings.baseUrl) return null;
  try {
    return new URL(settings.baseUrl).origin;
  } catch {
    return null;
  }
}

/** @param {HTMLInputElement} input */
function count(input) {
  const n = Number.parseInt(input.value, 10);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/**
 * The per-model limits with `modelId`'s replaced (both empty: its override removed).
 * @param {Record<string, {contextWindow?: number | null, maxOutputTokens?: number | null}>} limits
 * @param {string} modelId @param {number | null} contextWindow @param {number | null} maxOutputTokens
 */
function withLimit(limits, modelId, contextWindow, maxOutputTokens) {
  const next = { ...limits };
  delete next[modelId];
  /** @type {{contextWindow?: number, maxOutputTokens?: number}} */
  const limit = {};
  if (contextWindow) limit.contextWindow = contextWindow;
  if (maxOutputTokens) limit.maxOutputTokens = maxOutputTokens;
  if (Object.keys(limit).length) next[modelId] = limit;
  return next;
}
