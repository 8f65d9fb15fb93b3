// The settings view, Basic then Advanced. Basic: provider (Anthropic, OpenAI, an
// OpenAI-compatible server by base URL), model, the API key (sent with credentials.set,
// never shown back: only "set" and its fingerprint) and the budget per turn in money.
// Advanced, collapsed: limits (task model, context window, output limit, token budget),
// reasoning of the model above (OpenAI API, reasoning effort, Anthropic thinking budget),
// tabs (share the active tab with each message; act on tabs a thread does not own without
// asking), rules picked from lists (an action in words, a site, Allow / Ask first / Deny), the grant
// ledger with revoke, and MCP servers with their status. Then About: the versions.

import { el, button, labelledField, plainTextInput } from "../dom.js";
import { BUDGET_PRESETS, amount, parseDollars } from "../money.js";
import { DECISIONS, actionsFor, grantWords, ruleFor, ruleWords, siteAddress } from "./rule-words.js";
import { mcpForm } from "./mcp-form.js";
import { siteOf } from "./action-words.js";
import { aboutSection } from "./about.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {import("../../generated/protocol").Settings} Settings */
/** @typedef {import("../../generated/protocol").Grant} Grant */
/** @typedef {import("../../generated/protocol").ModelOptions} ModelOptions */
/** @typedef {import("../../generated/protocol").InitializeResult} InitializeResult */
/** @typedef {import("./rule-words.js").Rule} Rule */

/**
 * @param {Store} store @param {Controller} controller
 */
export function mountSettings(store, controller) {
  const root = /** @type {HTMLElement} */ (document.getElementById("settings-body"));
  /** @type {{settings: Settings | null, grants: Grant[], keyFingerprint: string | null, status: string, advancedOpen: boolean, tools: string[] | null, tabSites: string[], host: InitializeResult | null}} */
  const view = { settings: null, grants: [], keyFingerprint: null, status: "", advancedOpen: false, tools: null, tabSites: [], host: null };

  async function load() {
    const [settings, grants, host, tabSites] = await Promise.all([controller.getSettings(), controller.listGrants(), controller.hostInfo(), openSites()]);
    if (!settings) return;
    view.settings = settings;
    view.grants = grants ?? [];
    view.host = host;
    const tools = host?.capabilities?.browserTools;
    view.tools = Array.isArray(tools) ? tools : null;
    view.tabSites = tabSites;
    render();
  }

  /** @param {string} text */
  function say(text) {
    view.status = text;
    const line = root.querySelector("#settings-status");
    if (line) line.textContent = text;
  }

  /** @param {Settings} saved @param {string} text */
  function saved(saved, text) {
    view.settings = saved;
    view.status = text;
    render();
  }

  function render() {
    const settings = view.settings;
    if (!settings) {
      root.replaceChildren(el("p", "muted", "Loading settings…"));
      return;
    }
    const model = plainTextInput(settings.model ?? "");
    const advanced = el("details", "settings-advanced", el("summary", "", "Advanced"), limitsSection(settings, model), reasoningSection(settings, model), tabsSection(settings), timelineSection(settings), policySection(settings), grantsSection(), mcpSection(settings));
    advanced.open = view.advancedOpen;
    advanced.addEventListener("toggle", () => { view.advancedOpen = advanced.open; });
    const about = aboutSection(chrome.runtime.getManifest().version, view.host);
    root.replaceChildren(modelSection(settings, model), keySection(settings), advanced, about);
    const status = el("p", "settings-status", view.status);
    status.id = "settings-status";
    status.setAttribute("role", "status");
    root.prepend(status);
  }

  /** @param {string} label @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} input @param {string} [help] */
  function field(label, input, help) {
    return labelledField(`setting-${label.toLowerCase().replace(/[^a-z]+/g, "-")}`, label, input, help);
  }

  /** @param {Settings} settings @param {HTMLInputElement} model */
  function modelSection(settings, model) {
    const provider = select([["", "From the environment"], ["anthropic", "Anthropic"], ["openai", "OpenAI"], ["compatible", "OpenAI-compatible (local or other server)"]],
      settings.provider === "openai" && settings.baseUrl ? "compatible" : settings.provider ?? "");
    const baseUrl = plainTextInput(settings.baseUrl ?? "");
    baseUrl.placeholder = "http://127.0.0.1:11434/v1";
    const baseField = field("Base URL", baseUrl, "The server's OpenAI-compatible endpoint (Ollama, LM Studio, vLLM, llama.cpp).");
    const showBase = () => { baseField.hidden = provider.value !== "compatible"; };
    provider.addEventListener("change", showBase);
    showBase();
    const budget = budgetFields(settings.defaultCostBudgetUsd ?? null);
    const form = el("form", "settings-form");
    const save = el("button", "primary", "Save model settings");
    save.type = "submit";
    form.append(
      field("Provider", provider),
      baseField,
      field("Model", model, "The model that answers, e.g. claude-sonnet-4-5 or gpt-4.1."),
      ...budget.fields,
      save,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const usd = budget.value();
      if (usd === undefined) {
        say("The budget per turn must be an amount in dollars, like 0.75.");
        budget.custom.focus();
        return;
      }
      const choice = provider.value;
      const update = {
        provider: choice === "" ? null : choice === "compatible" ? "openai" : choice,
        baseUrl: choice === "compatible" ? baseUrl.value.trim() || null : null,
        model: model.value.trim() || null,
        defaultCostBudgetUsd: usd,
      };
      const result = await controller.updateSettings(update);
      if (result) saved(result, "Model settings saved.");
    });
    return section("Model", form);
  }

  /**
   * "Budget per turn": No limit, the presets, or Custom (a field in dollars).
   * `value()`: the amount, null for no limit, undefined when the custom amount is not one.
   * @param {number | null} current
   */
  function budgetFields(current) {
    const preset = current === null ? "" : BUDGET_PRESETS.includes(current) ? String(current) : "custom";
    const choice = select([["", "No limit"], ...BUDGET_PRESETS.map((usd) => [String(usd), amount(usd)]), ["custom", "Custom…"]], preset);
    const custom = el("input");
    custom.type = "number";
    custom.min = "0.01";
    custom.step = "any";
    custom.inputMode = "decimal";
    custom.value = preset === "custom" && current !== null ? String(current) : "";
    const customField = field("Custom budget (US$)", custom);
    customField.classList.add("budget-custom");
    const showCustom = () => { customField.hidden = choice.value !== "custom"; };
    choice.addEventListener("change", () => {
      showCustom();
      if (choice.value === "custom") custom.focus();
    });
    showCustom();
    const help = "A turn pauses once it has spent this much, and you can let it go on. Budgets in money need a model whose price Panelot knows (Anthropic's and OpenAI's); for a local or unknown model, set a token budget under Advanced.";
    return {
      fields: [field("Budget per turn", choice, help), customField],
      custom,
      /** @returns {number | null | undefined} */
      value: () => (choice.value === "" ? null : choice.value === "custom" ? parseDollars(custom.value) ?? undefined : Number(choice.value)),
    };
  }

  /** @param {Settings} settings @param {HTMLInputElement} model */
  function limitsSection(settings, model) {
    const limits = settings.modelLimits ?? {};
    const shownLimit = limits[settings.model ?? ""] ?? {};
    const taskModel = plainTextInput(settings.taskModel ?? "");
    const contextWindow = tokenField(shownLimit.contextWindow, "1024");
    const output = tokenField(shownLimit.maxOutputTokens, "1");
    const tokenBudget = tokenField(settings.defaultTokenBudget, "1");
    model.addEventListener("change", () => {
      const limit = limits[model.value.trim()] ?? {};
      contextWindow.value = limit.contextWindow ? String(limit.contextWindow) : "";
      output.value = limit.maxOutputTokens ? String(limit.maxOutputTokens) : "";
    });
    const form = el("form", "settings-form");
    const save = el("button", "", "Save limits");
    save.type = "submit";
    form.append(
      field("Task model", taskModel, "A small model for thread titles; empty keeps the first line."),
      field("Context window", contextWindow, "Tokens the model above reads and writes in one call; empty keeps what Panelot knows of it (32,000 for a model it does not know)."),
      field("Output limit", output, "Tokens one answer of the model above may write; empty keeps what Panelot knows."),
      field("Default token budget", tokenBudget, "Tokens a turn may use before it pauses, whatever the model's price; empty means no limit."),
      save,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      /** @type {Record<string, unknown>} */
      const update = { taskModel: taskModel.value.trim() || null, defaultTokenBudget: count(tokenBudget) };
      const modelId = model.value.trim() || settings.model;
      if (modelId) update.modelLimits = withLimit(limits, modelId, count(contextWindow), count(output));
      const result = await controller.updateSettings(update);
      if (result) saved(result, "Limits saved.");
    });
    return section("Limits", form);
  }

  /** @param {Settings} settings @param {HTMLInputElement} model */
  function reasoningSection(settings, model) {
    const table = settings.modelOptions ?? {};
    const api = select([["", "Default"], ["responses", "Responses API"], ["chat", "Chat Completions"]], "");
    const effort = select([["", "The model's default"], ["low", "Low"], ["medium", "Medium"], ["high", "High"]], "");
    const budget = tokenField(null, "1024");
    budget.max = "128000";
    const show = () => {
      const entry = table[model.value.trim() || settings.model || ""] ?? {};
      api.value = entry.api ?? "";
      effort.value = entry.reasoningEffort ?? "";
      budget.value = entry.thinkingBudget ? String(entry.thinkingBudget) : "";
    };
    model.addEventListener("change", show);
    show();
    const form = el("form", "settings-form");
    form.noValidate = true; // the status line says what is wrong with the budget
    const save = el("button", "", "Save reasoning");
    save.type = "submit";
    form.append(
      field("OpenAI API", api, "For OpenAI and compatible servers. Default: the Responses API for OpenAI's reasoning models (they keep their reasoning between steps), Chat Completions otherwise."),
      field("Reasoning effort", effort, "How hard an OpenAI reasoning model thinks before it answers."),
      field("Thinking budget", budget, "Tokens of extended thinking for a Claude model in each step (1,024 to 128,000); empty means none."),
      save,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const modelId = model.value.trim() || settings.model;
      if (!modelId) {
        say("Name the model first.");
        return;
      }
      const thinking = count(budget);
      if (thinking !== null && (thinking < 1024 || thinking > 128000)) {
        say("The thinking budget must be between 1,024 and 128,000 tokens.");
        budget.focus();
        return;
      }
      const entry = { api: api.value || null, reasoningEffort: effort.value || null, thinkingBudget: thinking };
      const result = await controller.updateSettings({ modelOptions: withOptions(table, modelId, entry) });
      if (result) saved(result, "Reasoning saved.");
    });
    return section("Reasoning", form);
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

  /**
   * The thread's tabs (issue 26): two switches, each saved as it is flipped.
   * @param {Settings} settings
   */
  function tabsSection(settings) {
    const share = toggle(
      "setting-share-active-tab",
      "Share the active tab with each message",
      Boolean(settings.shareActiveTab),
      "The tab you are looking at when you send a message joins the thread's tabs, and the thread works in it.",
      (on) => ({ shareActiveTab: on }),
    );
    const unowned = toggle(
      "setting-act-on-unowned-tabs",
      "Let threads act on tabs they don't own without asking",
      Boolean(settings.actOnUnownedTabs),
      "Off: a thread asks before it acts on one of your tabs or another thread's, even on a site you allowed.",
      (on) => ({ actOnUnownedTabs: on }),
    );
    return section("Tabs", share, unowned, tasksAtOnce(settings));
  }

  /**
   * A turn's timeline (issue 30): whether browser actions are captured, and how much room
   * their frames may take before the oldest go.
   * @param {Settings} settings
   */
  function timelineSection(settings) {
    const capture = toggle(
      "setting-capture-frames",
      "Capture a timeline of browser actions",
      settings.captureFrames !== false,
      "A small picture of the tab after each action, shown under the turn and in its exports; never sent to the model. Password fields are blurred, and tabs you keep out of timelines are never captured.",
      (on) => ({ captureFrames: on }),
    );
    const input = el("input");
    input.type = "number";
    input.id = "setting-frame-budget-mb";
    input.min = "10";
    input.max = "100000";
    input.step = "1";
    input.value = String(settings.frameBudgetMb ?? 200);
    const lab = el("label", "", "Timeline storage (MB)");
    lab.htmlFor = input.id;
    const line = el("p", "help", "Past this, the oldest pictures are removed first (10 to 100000).");
    line.id = `${input.id}-help`;
    input.setAttribute("aria-describedby", line.id);
    input.addEventListener("change", async () => {
      const wanted = Number(input.value);
      const before = String(view.settings?.frameBudgetMb ?? 200);
      if (!Number.isInteger(wanted) || wanted < 10 || wanted > 100000) {
        input.value = before;
        say("Timeline storage: a whole number of MB from 10 to 100000.");
        return;
      }
      input.disabled = true;
      const result = await controller.updateSettings({ frameBudgetMb: wanted });
      input.disabled = false;
      if (!result) {
        input.value = before;
        return;
      }
      view.settings = result;
      input.value = String(result.frameBudgetMb ?? wanted);
      say(`Saved: timeline storage, ${wanted} MB.`);
    });
    return section("Timeline", capture, el("div", "field", lab, input, line));
  }

  /**
   * How many tasks (threads' turns) run at the same time: a spinbutton saved on change.
   * @param {Settings} settings
   */
  function tasksAtOnce(settings) {
    const input = el("input");
    input.type = "number";
    input.id = "setting-max-parallel-turns";
    input.min = "1";
    input.max = "16";
    input.step = "1";
    input.value = String(settings.maxParallelTurns ?? 3);
    const lab = el("label", "", "Tasks running at once");
    lab.htmlFor = input.id;
    const line = el("p", "help", "More tasks wait their turn, in order, and start as one finishes or waits for you.");
    line.id = `${input.id}-help`;
    input.setAttribute("aria-describedby", line.id);
    input.addEventListener("change", async () => {
      const wanted = Number(input.value);
      if (!Number.isInteger(wanted) || wanted < 1 || wanted > 16) {
        input.value = String(view.settings?.maxParallelTurns ?? 3);
        say("Tasks running at once: a whole number from 1 to 16.");
        return;
      }
      input.disabled = true;
      const result = await controller.updateSettings({ maxParallelTurns: wanted });
      input.disabled = false;
      if (!result) {
        input.value = String(view.settings?.maxParallelTurns ?? 3);
        return;
      }
      view.settings = result;
      input.value = String(result.maxParallelTurns ?? wanted);
      say(`Saved: ${wanted} ${wanted === 1 ? "task" : "tasks"} running at once.`);
    });
    return el("div", "field", lab, input, line);
  }

  /**
   * A checkbox saved with `settings.update` when it changes (undone if the host refuses).
   * @param {string} id @param {string} label @param {boolean} checked @param {string} help
   * @param {(on: boolean) => Record<string, unknown>} update
   */
  function toggle(id, label, checked, help, update) {
    const box = el("input");
    box.type = "checkbox";
    box.id = id;
    box.checked = checked;
    const lab = el("label", "", label);
    lab.htmlFor = id;
    const line = el("p", "help", help);
    line.id = `${id}-help`;
    box.setAttribute("aria-describedby", line.id);
    box.addEventListener("change", async () => {
      const on = box.checked;
      box.disabled = true;
      const result = await controller.updateSettings(update(on));
      box.disabled = false;
      if (!result) {
        box.checked = !on;
        return;
      }
      view.settings = result; // no re-render: the focus stays on the box
      const key = /** @type {"shareActiveTab" | "actOnUnownedTabs" | "captureFrames"} */ (Object.keys(update(on))[0]);
      box.checked = key === "captureFrames" ? result[key] !== false : Boolean(result[key]); // the timeline is on unless turned off
      say(`Saved: ${label}, ${on ? "on" : "off"}.`);
    });
    return el("div", "field check", el("div", "check-line", box, lab), line);
  }

  /** @param {Settings} settings */
  function policySection(settings) {
    const rules = /** @type {Rule[]} */ (settings.policyRules ?? []);
    const list = el("ul", "rules");
    rules.forEach((rule, n) => {
      const words = ruleWords(rule);
      const remove = button("Remove", () => saveRules(rules.filter((_, i) => i !== n)));
      remove.setAttribute("aria-label", `Remove rule: ${words}`);
      list.append(el("li", "", el("span", "", words), remove));
    });
    if (!rules.length) list.append(el("li", "muted", "No rules: every action that changes a page asks first."));
    const actions = actionsFor(view.tools);
    const action = select(actions.map((a) => [a.key, a.label]), "click");
    const sites = knownSites(rules);
    const site = select([["", "Every site"], ...sites.map((origin) => [origin, siteOf(origin)]), ["other", "Another site…"]], "other");
    const address = plainTextInput("");
    address.placeholder = "bank.example";
    const addressField = field("Site address", address, "A site, like bank.example or http://localhost:8080; *.bank.example for all of its subdomains.");
    const showAddress = () => { addressField.hidden = site.value !== "other"; };
    site.addEventListener("change", showAddress);
    showAddress();
    const decision = select(DECISIONS.map(([value, label]) => [value, label]), "ask");
    const form = el("form", "settings-form rule-form");
    const add = el("button", "", "Add rule");
    add.type = "submit";
    form.append(field("Action", action), field("Site", site), addressField, field("Decision", decision), add);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const picked = actions.find((a) => a.key === action.value) ?? actions[0];
      const origin = site.value === "other" ? siteAddress(address.value) : site.value || null;
      if (site.value === "other" && !origin) {
        say(address.value.trim() ? `“${address.value.trim()}” is not a site address: write it like bank.example or https://bank.example.` : "Write the site's address, or pick “Every site”.");
        address.focus();
        return;
      }
      saveRules([...rules, ruleFor(picked, decision.value, origin)]);
    });
    const help = el("p", "help", "What Panelot may do without asking you, or never. A rule for one site wins over one for every site; among equals, Deny wins.");
    return section("Rules", help, list, form);
  }

  /** The sites a rule may name: of open tabs, grants and rules, each once. @param {Rule[]} rules */
  function knownSites(rules) {
    const origins = [...view.tabSites, ...view.grants.map((g) => g.origin), ...rules.map((r) => r.origin)];
    const plain = /** @type {string[]} */ (origins.filter((o) => typeof o === "string" && /^https?:\/\/[^*?]+$/.test(o)));
    return [...new Set(plain)].sort((a, b) => siteOf(a).localeCompare(siteOf(b)));
  }

  /** @param {object[]} rules */
  async function saveRules(rules) {
    const result = await controller.updateSettings({ policyRules: rules });
    if (result) saved(result, "Rules saved.");
  }

  function grantsSection() {
    const list = el("ul", "grants");
    for (const grant of view.grants) {
      const words = grantWords(grant);
      const revoke = button("Revoke", async () => {
        const grants = await controller.revokeGrant(grant.id);
        if (grants) {
          view.grants = grants;
          view.status = `Revoked: ${words}.`;
          render();
        }
      });
      revoke.setAttribute("aria-label", `Revoke: ${words}`);
      list.append(el("li", "", el("span", "", words), revoke));
    }
    if (!view.grants.length) list.append(el("li", "muted", "No grants yet. “Allow for this thread” and “Allow for this site” add them here."));
    return section("Grants", list);
  }

  /** @param {Settings} settings */
  function mcpSection(settings) {
    const parts = mcpForm({
      servers: /** @type {Record<string, import("./mcp-form.js").ServerConfig>} */ (settings.mcpServers ?? {}),
      states: /** @type {import("./mcp-form.js").ServerState[]} */ (settings.mcpStatus ?? []),
      say,
      save: async (servers, done) => {
        const result = await controller.updateSettings({ mcpServers: servers });
        if (result) saved(result, done);
      },
    });
    return section("MCP servers", ...parts);
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

/**
 * A select of `[value, label]` options with `selected` chosen.
 * @param {string[][]} options @param {string} selected
 */
function select(options, selected) {
  const box = el("select");
  for (const [value, label] of options) {
    const option = el("option", "", label);
    option.value = value;
    option.selected = value === selected;
    box.append(option);
  }
  return box;
}

/** The origins of the open tabs (http and https), for the rules' list of sites. */
async function openSites() {
  try {
    const tabs = await chrome.tabs.query({});
    return tabs.map((tab) => { try { return new URL(tab.url ?? "").origin; } catch { return ""; } }).filter((o) => /^https?:/.test(o));
  } catch {
    return [];
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

/**
 * The per-model options with `modelId`'s replaced (all empty: its entry removed).
 * @param {Record<string, ModelOptions>} table
 * @param {string} modelId @param {Record<string, string | number | null>} entry
 */
function withOptions(table, modelId, entry) {
  const next = { ...table };
  delete next[modelId];
  const kept = Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== null && value !== ""));
  if (Object.keys(kept).length) next[modelId] = kept;
  return next;
}
