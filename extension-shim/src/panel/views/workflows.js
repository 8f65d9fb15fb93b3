// The workflows view (issue 29): the draft of "Save as workflow" to name, trim and
// parameterise before it is saved; the saved workflows, each run with its parameters,
// scheduled or paused, renamed, exported, deleted; and importing one from a file. Every
// control has a stable accessible name; within a workflow's item the names repeat ("Run",
// "Schedule"), so tests and screen readers find them inside the item named after it.

import { button, el } from "../dom.js";
import { exportFileName } from "../workflows.js";

/** @typedef {import("../store.js").Store} Store */
/** @typedef {import("../controller.js").Controller} Controller */
/** @typedef {import("../../generated/protocol").Workflow} Workflow */
/** @typedef {import("../../generated/protocol").WorkflowDefinition} WorkflowDefinition */
/** @typedef {import("../../generated/protocol").WorkflowParameter} WorkflowParameter */
/** @typedef {import("../../generated/protocol").WorkflowSchedule} WorkflowSchedule */

/** The name a parameter is written by in the steps (`{{name}}`), from the words the user
 * gave it ("Product name" -> `product_name`). @param {string} words */
export function parameterName(words) {
  const name = words.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 60) || "value";
  return /^[0-9]/.test(name) ? `p_${name}` : name;
}

/** "Every day at 08:30", "Every 6 hours", with "paused". @param {WorkflowSchedule | null | undefined} schedule */
export function scheduleWords(schedule) {
  if (!schedule) return "Not scheduled.";
  const every = schedule.schedule.kind === "daily" ? `Every day at ${schedule.schedule.at}` : `Every ${schedule.schedule.hours === 1 ? "hour" : `${schedule.schedule.hours} hours`}`;
  if (schedule.paused) return `${every}, paused.`;
  const next = schedule.nextRunAt ? `; next ${new Date(schedule.nextRunAt).toLocaleString([], { weekday: "short", hour: "2-digit", minute: "2-digit" })}` : "";
  return `${every}${next}. Runs while the browser is open.`;
}

/** "3 steps · asks for: search, email". @param {Workflow | WorkflowDefinition} workflow */
export function workflowSummary(workflow) {
  const steps = workflow.steps?.length ?? 0;
  const names = (workflow.parameters ?? []).map((p) => p.label || p.name);
  return [`${steps} ${steps === 1 ? "step" : "steps"}`, names.length ? `asks for: ${names.join(", ")}` : "no parameters"].join(" · ");
}

/**
 * The draft with the user's edits: name and goal, the steps kept, the parameters renamed
 * (the `{{old}}` placeholders in the steps follow) with their default values.
 * @param {WorkflowDefinition} draft
 * @param {{name: string, goal: string, removed: Set<number>, parameters: Array<{from: string, name: string, label?: string, value: string}>}} edits
 * @returns {WorkflowDefinition}
 */
export function editedDraft(draft, edits) {
  const renames = new Map(edits.parameters.map((p) => [p.from, p.name]));
  /** @param {unknown} value @returns {unknown} */
  const rename = (value) => {
    if (typeof value === "string") return value.replace(/\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g, (all, name) => (renames.has(name) ? `{{${renames.get(name)}}}` : all));
    if (Array.isArray(value)) return value.map(rename);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rename(v)]));
    return value;
  };
  const steps = (draft.steps ?? []).filter((_, n) => !edits.removed.has(n)).map((step) => /** @type {any} */ (rename(step)));
  const used = JSON.stringify(steps);
  const parameters = (draft.parameters ?? [])
    .map((p) => {
      const edit = edits.parameters.find((e) => e.from === p.name);
      return { ...p, name: edit?.name ?? p.name, label: edit?.label ?? p.label, default: edit?.value ?? p.default };
    })
    .filter((p) => used.includes(`{{${p.name}}}`)); // a removed step's parameter goes with it
  return { ...draft, name: edits.name.trim() || draft.name, goal: edits.goal.trim(), steps, parameters };
}

/**
 * A step's title as the editor shows it: each `{{name}}` drawn as the parameter's label
 * (its words, as the user renames it), marked as a parameter.
 * @param {string} title @param {(name: string) => string} labelOf
 * @returns {Array<string | HTMLElement>}
 */
export function titleParts(title, labelOf) {
  /** @type {Array<string | HTMLElement>} */
  const parts = [];
  let at = 0;
  for (const match of title.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)) {
    if (match.index > at) parts.push(title.slice(at, match.index));
    const chip = el("span", "workflow-param", labelOf(match[1]));
    chip.dataset.param = match[1];
    chip.title = "a parameter: each run asks for it";
    parts.push(chip);
    at = match.index + match[0].length;
  }
  if (at < title.length) parts.push(title.slice(at));
  return parts;
}

/** @param {string} text @param {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} control */
function labelled(text, control) {
  const label = el("label", "field", el("span", "field-label", text), control);
  return label;
}

/** @param {string} value @param {string} [type] */
function input(value, type = "text") {
  const node = el("input");
  node.type = type;
  node.value = value;
  return node;
}

/** @param {Store} store @param {Controller} controller */
export function mountWorkflows(store, controller) {
  const body = /** @type {HTMLElement} */ (document.getElementById("workflows-body"));
  const ops = controller.workflows;
  /** the workflow whose run or schedule form is open: [id, "run" | "schedule"] */
  let open = /** @type {[string, string] | null} */ (null);

  const picker = el("input");
  picker.type = "file";
  picker.accept = "application/json,.json";
  picker.hidden = true;
  picker.setAttribute("aria-label", "Workflow file to import");
  picker.addEventListener("change", async () => {
    const file = picker.files?.[0];
    picker.value = "";
    if (file) await ops.importText(await file.text());
  });

  function render() {
    const parts = [];
    if (ops.draft) parts.push(editor(ops.draft.draft, ops.draft.skipped));
    const list = el("ul", "workflow-list");
    list.setAttribute("aria-label", "Saved workflows");
    list.append(...ops.list.map(workflowItem));
    const empty = el("p", "muted", "No saved workflows yet. After a task in the browser, “Save as workflow” in the thread's header keeps its steps to run again without the model.");
    empty.hidden = ops.list.length > 0;
    const importButton = button("Import workflow", () => picker.click());
    parts.push(el("div", "workflow-tools", importButton, picker), empty, list);
    body.replaceChildren(...parts);
  }

  /** @param {WorkflowDefinition} draft @param {number} skipped */
  function editor(draft, skipped) {
    const form = el("form", "workflow-editor");
    form.setAttribute("aria-labelledby", "workflow-editor-heading");
    const heading = el("h3", "", "Save as workflow");
    heading.id = "workflow-editor-heading";
    const name = input(draft.name);
    name.maxLength = 200;
    name.required = true;
    const goal = el("textarea");
    goal.value = draft.goal ?? "";
    goal.rows = 2;
    const removed = new Set(/** @type {number[]} */ ([]));
    const steps = el("ol", "workflow-steps");
    steps.setAttribute("aria-label", "Steps");
    const labels = new Map((draft.parameters ?? []).map((p) => [p.name, p.label || p.name]));
    (draft.steps ?? []).forEach((step, n) => {
      const row = el("li", "", el("span", "", ...titleParts(step.title || step.tool, (name) => labels.get(name) ?? name)));
      const remove = button(`Remove step ${n + 1}`, () => {
        removed.add(n);
        row.remove();
      }, "link");
      row.append(" ", remove);
      steps.append(row);
    });
    const fields = (draft.parameters ?? []).map((p, n) => {
      const label = `Parameter ${n + 1}`;
      const pname = input(p.label || p.name);
      pname.setAttribute("aria-label", `${label} name`);
      pname.required = true;
      pname.maxLength = 64;
      const value = input(p.default ?? "");
      value.setAttribute("aria-label", `${label} value`);
      const legend = el("legend", "", `${label}: ${p.label || p.name}`);
      pname.addEventListener("input", () => {
        const words = pname.value.trim() || p.name;
        legend.textContent = `${label}: ${words}`;
        for (const chip of steps.querySelectorAll(`.workflow-param[data-param="${CSS.escape(p.name)}"]`)) chip.textContent = words;
      });
      const group = el("fieldset", "workflow-parameter", legend, pname, value);
      return { from: p.name, pname, value, group };
    });
    const note = skipped ? el("p", "muted", `${skipped} reading ${skipped === 1 ? "step was" : "steps were"} left out: a replay reads the page itself.`) : "";
    const save = el("button", "primary", "Save workflow");
    save.type = "submit";
    const cancel = button("Cancel", () => ops.cancelDraft());
    form.append(
      heading,
      labelled("Workflow name", name),
      labelled("Goal", goal),
      el("h4", "", "Steps"),
      steps,
      note,
      ...(fields.length ? [el("h4", "", "Parameters"), el("p", "muted", "What a run asks for; the value is the one this turn used."), ...fields.map((f) => f.group)] : []),
      el("div", "row", cancel, save),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (!form.reportValidity()) return;
      const parameters = fields.map((f) => ({ from: f.from, label: f.pname.value.trim(), name: parameterName(f.pname.value), value: f.value.value }));
      save.disabled = true;
      try {
        await ops.save(editedDraft(draft, { name: name.value, goal: goal.value, removed, parameters }));
      } finally {
        save.disabled = false;
      }
    });
    queueMicrotask(() => name.focus());
    return form;
  }

  /** @param {Workflow} workflow */
  function workflowItem(workflow) {
    const item = el("li", "workflow");
    const headingId = `workflow-${workflow.id}`;
    item.setAttribute("aria-labelledby", headingId);
    const heading = el("h3", "", workflow.name);
    heading.id = headingId;
    const actions = el(
      "div",
      "row workflow-actions",
      button("Run", () => toggle(workflow.id, "run"), "primary"),
      button("Schedule", () => toggle(workflow.id, "schedule")),
      button("Rename", () => ops.rename(workflow)),
      button("Export", () => download(workflow)),
      button("Delete", () => ops.remove(workflow), "danger"),
    );
    item.append(heading, el("p", "muted", workflowSummary(workflow)));
    if (workflow.goal) item.append(el("p", "workflow-goal", workflow.goal));
    item.append(el("p", "workflow-schedule", scheduleWords(workflow.schedule)), actions);
    if (open?.[0] === workflow.id) item.append(open[1] === "run" ? runForm(workflow) : scheduleForm(workflow));
    return item;
  }

  /** @param {string} id @param {string} form */
  function toggle(id, form) {
    open = open?.[0] === id && open[1] === form ? null : [id, form];
    render();
  }

  /** @param {Workflow} workflow */
  function runForm(workflow) {
    const form = el("form", "workflow-run");
    form.setAttribute("aria-label", `Run ${workflow.name}`);
    const fields = (workflow.parameters ?? []).map((p) => ({ p, control: input(p.default ?? "") }));
    const go = el("button", "primary", "Run workflow");
    go.type = "submit";
    form.append(...fields.map(({ p, control }) => labelled(p.label || p.name, control)), el("div", "row", button("Cancel", () => toggle(workflow.id, "run")), go));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      open = null;
      await ops.run(workflow, Object.fromEntries(fields.map(({ p, control }) => [p.name, control.value])));
    });
    queueMicrotask(() => (fields[0]?.control ?? go).focus());
    return form;
  }

  /** @param {Workflow} workflow */
  function scheduleForm(workflow) {
    const current = workflow.schedule;
    const form = el("form", "workflow-schedule-form");
    form.setAttribute("aria-label", `Schedule ${workflow.name}`);
    const repeat = el("select");
    for (const [value, words] of [["off", "Not scheduled"], ["daily", "Every day"], ["every", "Every few hours"]]) {
      const option = el("option", "", words);
      option.value = value;
      repeat.append(option);
    }
    repeat.value = current?.schedule.kind ?? "off";
    const time = input(current?.schedule.kind === "daily" ? current.schedule.at : "08:00", "time");
    const hours = input(String(current?.schedule.kind === "every" ? current.schedule.hours : 6), "number");
    hours.min = "1";
    hours.max = "168";
    const paused = input("", "checkbox");
    paused.checked = Boolean(current?.paused);
    const timeField = labelled("Time", time);
    const hoursField = labelled("Hours", hours);
    const pausedField = el("label", "check", paused, " Paused");
    const show = () => {
      timeField.hidden = repeat.value !== "daily";
      hoursField.hidden = repeat.value !== "every";
      pausedField.hidden = repeat.value === "off";
    };
    repeat.addEventListener("change", show);
    show();
    const save = el("button", "primary", "Save schedule");
    save.type = "submit";
    form.append(labelled("Repeat", repeat), timeField, hoursField, pausedField, el("p", "muted", "Runs only while the browser is open; runs missed while it was closed are reported, not run."), el("div", "row", button("Cancel", () => toggle(workflow.id, "schedule")), save));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const schedule = repeat.value === "daily" ? { kind: /** @type {const} */ ("daily"), at: time.value } : repeat.value === "every" ? { kind: /** @type {const} */ ("every"), hours: Number(hours.value) } : null;
      open = null;
      await ops.schedule(workflow, schedule, paused.checked);
    });
    return form;
  }

  /** @param {Workflow} workflow */
  async function download(workflow) {
    const text = await ops.exported(workflow);
    if (text === null) return;
    const link = el("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    link.download = exportFileName(workflow.name);
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  }

  store.on("workflows", render);
  render();
}
