// The panel's workflow operations (issue 29): save a finished turn's browser steps as a
// workflow (`workflow.propose`, edited, `workflow.save`), list, rename, delete, export
// and import them, run one with its parameters in a new thread, and schedule it. The views
// (views/workflows.js) render what this keeps in the store and call these.

/** @typedef {import("./store.js").Store} Store */
/** @typedef {import("./controller.js").Controller} Controller */
/** @typedef {import("../generated/protocol").Workflow} Workflow */
/** @typedef {import("../generated/protocol").WorkflowDefinition} WorkflowDefinition */
/** @typedef {{turnId: string, draft: WorkflowDefinition, skipped: number}} Draft */

const newCommandId = () => crypto.randomUUID();
/** The browser calls a workflow keeps (the host's `workflow.propose` says which; reads are skipped). */
const READS = new Set(["browser_snapshot", "browser_read", "browser_screenshot", "browser_tabs_list", "browser_downloads", "browser_find"]);

/**
 * The shown thread's latest finished turn that acted in the browser, or null (a live turn,
 * or none with a browser step): the one "Save as workflow" saves.
 * @param {Store} store @returns {string | null}
 */
export function savableTurn(store) {
  const s = store.state;
  let found = null;
  for (const item of s.items.values()) {
    if (item.kind === "toolCall" && item.name.startsWith("browser_") && !READS.has(item.name) && item.status === "succeeded") {
      found = item.turnId;
    }
  }
  if (found === null) return null;
  if (store.turnLive && s.turn?.id === found) return null;
  return found;
}

/** A file name for an exported workflow. @param {string} name */
export function exportFileName(name) {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "workflow";
  return `${slug}.panelot-workflow.json`;
}

export class WorkflowOps {
  /** @param {Store} store @param {Controller} controller */
  constructor(store, controller) {
    this.store = store;
    this.controller = controller;
    /** @type {Workflow[]} */
    this.list = [];
    /** @type {Draft | null} the draft being edited before it is saved */
    this.draft = null;
  }

  /**
   * An op; a failure is a notice and `undefined` (Controller.attempt).
   * @template {keyof import("../generated/protocol").Ops} M
   * @param {M} method @param {import("../generated/protocol").Ops[M]["params"]} params
   */
  request(method, params) {
    return this.controller.attempt(() => this.controller.client.request(method, params));
  }

  changed() {
    this.store.emit("workflows");
  }

  async refresh() {
    const result = await this.request("workflow.list", {});
    if (!result) return;
    this.list = result.workflows;
    this.changed();
  }

  /** Open the workflows view (with the list fresh). */
  async show() {
    this.controller.showView("workflows");
    await this.refresh();
  }

  /** "Save as workflow": the host's draft of the turn, shown in the editor. @param {string} turnId */
  async propose(turnId) {
    const threadId = this.store.state.threadId;
    if (!threadId) return;
    const result = await this.request("workflow.propose", { threadId, turnId });
    if (!result) return;
    this.draft = { turnId, draft: result.draft, skipped: result.skipped ?? 0 };
    this.controller.showView("workflows");
    this.changed();
    await this.refresh();
  }

  cancelDraft() {
    this.draft = null;
    this.changed();
  }

  /** Save the edited draft. @param {WorkflowDefinition} definition */
  async save(definition) {
    const result = await this.request("workflow.save", { commandId: newCommandId(), workflow: definition });
    if (!result) return false;
    this.draft = null;
    this.store.notify("info", `Saved the workflow “${result.workflow.name}”.`);
    await this.refresh();
    return true;
  }

  /** Run a workflow in a new thread, shown. @param {Workflow} workflow @param {Record<string, string>} parameters */
  async run(workflow, parameters) {
    const result = await this.request("workflow.run", { commandId: newCommandId(), workflowId: workflow.id, parameters });
    if (!result) return;
    await this.controller.refreshThreads();
    await this.controller.open(result.threadId);
  }

  /** @param {Workflow} workflow */
  async rename(workflow) {
    const name = await this.controller.dialogs.prompt("Rename workflow", "Name", workflow.name);
    if (!name || !name.trim() || name.trim() === workflow.name) return;
    if (await this.request("workflow.update", { commandId: newCommandId(), workflowId: workflow.id, name: name.trim().slice(0, 200) })) await this.refresh();
  }

  /** @param {Workflow} workflow */
  async remove(workflow) {
    const sure = await this.controller.dialogs.confirm("Delete workflow", `Delete “${workflow.name}” and its schedule? Threads it ran stay.`, "Delete");
    if (!sure) return;
    if (await this.request("workflow.delete", { commandId: newCommandId(), workflowId: workflow.id })) await this.refresh();
  }

  /** The export document, as text a file can hold. @param {Workflow} workflow @returns {Promise<string | null>} */
  async exported(workflow) {
    const result = await this.request("workflow.export", { workflowId: workflow.id });
    return result ? JSON.stringify(result.document, null, 2) : null;
  }

  /** Import an exported workflow from a file's text. @param {string} text */
  async importText(text) {
    let document;
    try {
      document = JSON.parse(text);
    } catch {
      this.store.notify("error", "That file is not a Panelot workflow: it is not JSON.");
      return;
    }
    const result = await this.request("workflow.import", { commandId: newCommandId(), document });
    if (!result) return;
    this.store.notify("info", `Imported the workflow “${result.workflow.name}”.`);
    await this.refresh();
  }

  /**
   * @param {Workflow} workflow
   * @param {{kind: "daily", at: string} | {kind: "every", hours: number} | null} schedule
   * @param {boolean} paused
   */
  async schedule(workflow, schedule, paused) {
    const params = { commandId: newCommandId(), workflowId: workflow.id, schedule, paused, utcOffsetMinutes: -new Date().getTimezoneOffset() };
    if (await this.request("workflow.schedule.set", params)) await this.refresh();
  }
}
