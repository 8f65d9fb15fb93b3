// The first-run setup: shown instead of the chat while no model is usable. Four choices
// (Anthropic, OpenAI, a model on this computer, another OpenAI-compatible server), the key
// inline (to the host's credential store, bound to the provider's origin), the local
// servers the host found with their models, and "Test connection": the host's real
// request, the same check as `panelot-host doctor`. A failure is said next to the field it
// concerns, with the provider's own words under "Details". A message typed before the
// setup is kept and sent with one click afterwards.

import { el, button, labelledField, plainTextInput } from "../dom.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {import("../../generated/protocol").ProviderTestResult} TestResult */
/** @typedef {import("../../generated/protocol").ProviderDiscoverResult["servers"][number]} LocalServer */

/** @typedef {"anthropic" | "openai" | "local" | "compatible"} Choice */

/** @type {[Choice, string, string][]} */
const CHOICES = [
  ["anthropic", "Use Anthropic", "Claude, with your Anthropic API key."],
  ["openai", "Use OpenAI", "GPT models, with your OpenAI API key."],
  ["local", "Use a model on this computer", "Ollama, LM Studio, llama.cpp or vLLM, running here."],
  ["compatible", "Use another OpenAI-compatible server", "Any server that speaks OpenAI's API, by its URL."],
];
const OFFICIAL = { anthropic: "https://api.anthropic.com", openai: "https://api.openai.com" };
const LOCAL_DEFAULT_URL = "http://127.0.0.1:11434/v1";
/** Where each cause of a failed test is said: next to the field it concerns. */
const FIELD_OF_CAUSE = /** @type {Record<string, "key" | "url" | "model">} */ ({
  bad_key: "key",
  key_missing: "key",
  key_not_sent: "key",
  wrong_url: "url",
  not_running: "url",
  unknown_model: "model",
  no_tools: "model",
});

/** @param {Store} store @param {Controller} controller */
export function mountSetup(store, controller) {
  const root = /** @type {HTMLElement} */ (document.getElementById("setup-body"));
  /** @type {{choice: Choice | null, servers: LocalServer[] | null, result: TestResult | null, busy: boolean, given: {url: string, model: string} | null}} */
  const view = { choice: null, servers: null, result: null, busy: false, given: null };

  function render() {
    const intro = el("p", "setup-intro", "Panelot needs a model to answer you. Choose where it runs:");
    const group = el("div", "setup-choices");
    group.setAttribute("role", "radiogroup");
    group.setAttribute("aria-label", "Where the model runs");
    for (const [value, name, help] of CHOICES) {
      const radio = el("input");
      radio.type = "radio";
      radio.name = "setup-choice";
      radio.value = value;
      radio.id = `setup-${value}`;
      radio.checked = view.choice === value;
      radio.addEventListener("change", () => choose(value));
      const title = el("strong", "", name);
      title.id = `${radio.id}-name`;
      const said = el("span", "muted", help);
      said.id = `${radio.id}-help`;
      radio.setAttribute("aria-labelledby", title.id);
      radio.setAttribute("aria-describedby", said.id);
      const label = el("label", "setup-choice", radio, el("span", "setup-choice-text", title, said));
      label.htmlFor = radio.id;
      group.append(label);
    }
    const parts = /** @type {HTMLElement[]} */ ([intro, group]);
    if (view.choice) parts.push(form(view.choice));
    const kept = store.state.kept;
    if (kept) parts.push(el("p", "setup-kept muted", `Your message is kept and can be sent once a model works: “${short(kept)}”`));
    const skip = button("Not now", () => controller.showView("chat"));
    skip.classList.add("link");
    parts.push(el("div", "setup-skip", skip));
    root.replaceChildren(...parts);
  }

  /** @param {Choice} choice */
  async function choose(choice) {
    view.choice = choice;
    view.result = null;
    view.given = null;
    render();
    if (choice === "local" && view.servers === null) await lookForServers();
  }

  async function lookForServers() {
    view.servers = await controller.discoverLocal();
    if (view.choice === "local") render();
  }

  /** @param {Choice} choice */
  function form(choice) {
    const box = el("form", "settings-form setup-form");
    const fields = /** @type {{key?: HTMLInputElement, url?: HTMLInputElement, model: HTMLInputElement | HTMLSelectElement}} */ ({ model: el("input") });
    if (choice === "local") {
      const found = view.servers ?? [];
      const url = plainTextInput(view.given?.url || found[0]?.baseUrl || LOCAL_DEFAULT_URL);
      fields.url = url;
      const servers = found.length
        ? `Found ${found.map((s) => `${s.name ?? "a server"} at ${s.baseUrl}`).join("; ")}.`
        : view.servers === null ? "Looking for servers on this computer…" : "No server answered on the usual ports (11434, 1234, 8080, 8000). Start one, or type its URL.";
      box.append(field("Server URL", url, "url", servers));
      const again = button("Look again", () => void lookForServers());
      box.append(again);
      const models = found.find((s) => s.baseUrl === url.value)?.models ?? [];
      fields.model = models.length ? select(models, view.given?.model) : plainTextInput(view.given?.model ?? "");
      box.append(field("Model", fields.model, "model", models.length ? "The models this server has." : "The model's name on the server, e.g. llama3.1."));
      url.addEventListener("change", () => {
        const listed = found.find((s) => s.baseUrl === url.value.trim())?.models ?? [];
        if (listed.length) {
          const replacement = select(listed);
          replacement.id = fields.model.id;
          replacement.setAttribute("aria-describedby", fields.model.getAttribute("aria-describedby") ?? "");
          fields.model.replaceWith(replacement);
          fields.model = replacement;
        }
      });
    } else {
      if (choice === "compatible") {
        fields.url = plainTextInput(view.given?.url ?? "");
        fields.url.placeholder = "https://llm.example.com/v1";
        box.append(field("Server URL", fields.url, "url", "Its OpenAI-compatible endpoint, up to /v1. Your messages and the pages Panelot reads go to it."));
      }
      fields.key = el("input");
      fields.key.type = "password";
      fields.key.autocomplete = "off";
      const where = choice === "compatible" ? "that server" : OFFICIAL[choice];
      box.append(field("API key", fields.key, "key", `Kept in this computer's credential store and sent only to ${where}.${choice === "compatible" ? " Leave it empty if the server needs none." : ""}`));
      fields.model = plainTextInput(view.given?.model ?? "");
      fields.model.placeholder = choice === "anthropic" ? "claude-sonnet-4-5" : choice === "openai" ? "gpt-4.1" : "";
      box.append(field("Model", fields.model, "model", choice === "compatible" ? "The model's name on the server." : "Empty: Panelot's default for this provider."));
    }
    const test = el("button", "primary", "Test connection");
    test.type = "submit";
    box.append(test, outcome(choice));
    box.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (view.busy) return;
      view.busy = true;
      test.disabled = true;
      test.textContent = "Testing…";
      const given = { key: fields.key?.value ?? "", url: fields.url?.value.trim() ?? "", model: fields.model.value.trim() };
      if (fields.key) fields.key.value = ""; // never kept in the page
      view.given = { url: given.url, model: given.model };
      try {
        view.result = await saveAndTest(choice, given);
      } finally {
        view.busy = false;
        render();
      }
    });
    placeCause(box);
    return box;
  }

  /**
   * Save the choice (the key to the credential store, bound to its origin), then test it.
   * @param {Choice} choice @param {{key: string, url: string, model: string}} given
   * @returns {Promise<TestResult | null>}
   */
  async function saveAndTest(choice, given) {
    const official = choice === "anthropic" || choice === "openai";
    const provider = choice === "anthropic" ? "anthropic" : "openai";
    const baseUrl = official ? null : given.url || null;
    let origin = official ? OFFICIAL[/** @type {"anthropic" | "openai"} */ (choice)] : null;
    if (baseUrl) {
      try {
        origin = new URL(baseUrl).origin;
      } catch {
        return failed("url", `“${baseUrl}” is not a URL: it looks like http://127.0.0.1:11434/v1.`);
      }
    }
    const ref = `${choice}-api-key`;
    /** @type {Record<string, unknown>} */
    const update = { provider, baseUrl, model: given.model || null };
    // a key typed now is stored first; none typed keeps the one stored before (none for a local server)
    if (given.key && !(await controller.setKey(ref, given.key, false, origin, true))) return null;
    if (given.key) update.apiKeyRef = ref;
    else if (choice === "local") update.apiKeyRef = null;
    if (!(await controller.updateSettings(update, true))) return null;
    return (await controller.testProvider()) ?? null;
  }

  /** A failure found before any request. @param {"url" | "key" | "model"} where @param {string} message @returns {TestResult} */
  function failed(where, message) {
    const cause = where === "url" ? "wrong_url" : where === "key" ? "key_missing" : "unknown_model";
    return { ok: false, provider: null, model: null, url: null, latencyMs: null, cause, message, detail: null, models: [] };
  }

  /** The test's outcome: success with the model and latency, or the cause (placed by `placeCause`). @param {Choice} _choice */
  function outcome(_choice) {
    const line = el("div", "setup-outcome");
    line.setAttribute("role", "status");
    const result = view.result;
    if (!result) return line;
    if (result.ok) {
      const latency = result.latencyMs !== null && result.latencyMs !== undefined ? ` in ${result.latencyMs} ms` : "";
      line.append(el("p", "setup-ok", `Connected: ${result.model ?? "the model"} answered${latency}.`));
      const kept = store.state.kept;
      const go = kept ? button(`Send “${short(kept, 40)}”`, () => void controller.sendKept()) : button("Start chatting", () => controller.showView("chat"));
      go.classList.add("primary");
      line.append(go);
      return line;
    }
    if (!FIELD_OF_CAUSE[result.cause ?? ""]) line.append(problem(result));
    return line;
  }

  /** Put a failed test's message next to the field it concerns. @param {HTMLElement} box */
  function placeCause(box) {
    const result = view.result;
    if (!result || result.ok) return;
    const where = FIELD_OF_CAUSE[result.cause ?? ""];
    const target = where ? box.querySelector(`[data-field="${where}"]`) : null;
    if (!target) return;
    const said = problem(result);
    said.id = `setup-${where}-problem`;
    target.append(said);
    const input = target.querySelector("input, select");
    input?.setAttribute("aria-invalid", "true");
    input?.setAttribute("aria-describedby", `${input.getAttribute("aria-describedby") ?? ""} ${said.id}`.trim());
  }

  /** @param {TestResult} result */
  function problem(result) {
    const box = el("div", "setup-problem");
    box.append(el("p", "", result.message));
    if (result.detail) {
      const details = el("details", "", el("summary", "", "Details"), el("pre", "setup-detail", result.detail));
      box.append(details);
    }
    return box;
  }

  /** @param {string} label @param {HTMLInputElement | HTMLSelectElement} input @param {string} name @param {string} help */
  function field(label, input, name, help) {
    const box = labelledField(`setup-field-${name}`, label, input, help);
    box.dataset.field = name;
    return box;
  }

  /** @param {string[]} options @param {string} [chosen] */
  function select(options, chosen) {
    const list = el("select");
    for (const name of options) {
      const option = el("option", "", name);
      option.value = name;
      option.selected = name === chosen;
      list.append(option);
    }
    return list;
  }

  store.on("provider", () => {
    if (store.state.view === "setup" && !view.busy) render();
  });
  store.on("view", () => {
    if (store.state.view === "setup") render();
  });
  render();
}

/** @param {string} text @param {number} [max] */
function short(text, max = 120) {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
