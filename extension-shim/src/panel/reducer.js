// The shown thread's events applied to the panel's state: one handler per event, each typed
// by the protocol's generated `Events` map. A handler only changes the state and says which
// topics changed (the store emits them); it talks to no one. `applyThreadEvent` checks the
// thread and the sequence first: an event already in the snapshot is dropped, and a gap
// asks for a fresh snapshot.

/** @typedef {import("../generated/protocol").Events} Events */
/** @typedef {import("./store.js").State} State */
/** @typedef {import("./store.js").Item} Item */
/** @typedef {import("./store.js").Topic} Topic */
/** @typedef {[Topic, string?]} Change  a topic to emit, with its detail (an item id) */

/**
 * @template {keyof Events} M
 * @typedef {(s: State, params: Events[M]["params"], now: number) => Change[]} Handler
 */

/** @type {{[M in keyof Events]?: Handler<M>}} */
const HANDLERS = {
  "turn.started": (s, p) => {
    s.turn = { id: p.turnId, status: "running", runId: p.runId };
    s.run = { id: p.runId, state: "streaming" };
    return [["run"]];
  },
  "item.started": (s, p, now) => itemChanged(s, p.item, now, true),
  // a tool call started running: its target and start time
  "item.updated": (s, p, now) => itemChanged(s, p.item, now, false),
  "item.completed": (s, p, now) => itemChanged(s, p.item, now, false),
  "item.delta": (s, p) => {
    const item = s.items.get(p.itemId);
    const delta = p.delta;
    if (!item) {
      // (re)opened mid-answer: the snapshot holds stored items only; show what follows
      if (typeof delta.text !== "string") return [];
      s.items.set(p.itemId, { id: p.itemId, kind: "assistant", turnId: p.turnId, createdAt: "", text: delta.text });
      return [["item", p.itemId]];
    }
    if (typeof delta.text === "string" && item.kind === "assistant") {
      s.items.set(item.id, { ...item, text: (item.text ?? "") + delta.text });
    } else if (typeof delta.thinking === "string" && item.kind === "assistant") {
      s.items.set(item.id, { ...item, thinking: (item.thinking ?? "") + delta.thinking });
    } else if ("progress" in delta) {
      s.progress.set(item.id, delta.progress);
    } else {
      return [];
    }
    return [["delta", item.id]];
  },
  "run.updated": (s, p) => {
    s.run = { id: p.runId, state: p.state, waitReason: p.waitReason ?? undefined };
    const paused = p.state === "budget_paused" || p.state === "paused_uncertain";
    if (s.turn && !paused && s.turn.status === "paused") s.turn = { ...s.turn, status: "running" };
    return [["run"]];
  },
  "turn.paused": (s, p) => {
    if (s.turn) {
      const budget = p.reason === "budget" ? { budgetReached: p.budgetReached ?? undefined, costBudgetUsd: p.costBudgetUsd ?? undefined, costUsd: p.costUsd ?? null } : {};
      s.turn = { ...s.turn, status: "paused", pauseReason: p.reason, runId: p.runId ?? s.turn.runId, ...budget };
    }
    if (p.runId) s.run = { id: p.runId, state: p.reason === "budget" ? "budget_paused" : "paused_uncertain" };
    return [["run"]];
  },
  "turn.complete": (s, p) => {
    s.turn = { id: p.turnId, status: p.status, error: p.error ?? undefined };
    if (s.run && p.status !== "failed") s.run = { ...s.run, state: p.status === "completed" ? "completed" : "interrupted" };
    s.turnUsage.set(p.turnId, { usage: p.usage, costUsd: p.costUsd ?? null });
    return [["run"]];
  },
  "approval.request": (s, p) => {
    s.approvals.set(p.requestId, p);
    if (!s.decisions.has(p.toolCallId)) s.decisions.set(p.toolCallId, "asked");
    return [["cards"]];
  },
  "approval.resolved": (s, p) => {
    s.approvals.delete(p.requestId);
    if (!p.cancelled) s.decisions.set(p.toolCallId, p.decision);
    return [["cards"]];
  },
  "interaction.request": (s, p) => {
    s.interactions.set(p.interactionId, p);
    return [["cards"]];
  },
  "interaction.resolved": (s, p) => {
    s.interactions.delete(p.interactionId);
    return [["cards"]];
  },
  "queue.updated": (s, p) => {
    s.queue = p.queue;
    return [["queue"]];
  },
};

/**
 * An item appeared or changed. A completed event carries the whole item; an assistant item
 * started again keeps the text streamed so far. A tool call's times are as this panel saw
 * them (the stored ones come with the item once it settles).
 * @param {State} s @param {Item} item @param {number} now @param {boolean} started @returns {Change[]}
 */
function itemChanged(s, item, now, started) {
  if (item.kind === "toolCall") {
    const times = s.toolTimes.get(item.id);
    if (!times) s.toolTimes.set(item.id, { startedAt: now });
    else if (item.result && !times.endedAt) times.endedAt = now;
  }
  const known = s.items.get(item.id);
  const keepText = started && known?.kind === "assistant" && item.kind === "assistant";
  s.items.set(item.id, keepText ? { ...item, text: known.text } : item);
  /** @type {Change[]} */
  const changes = [["item", item.id]];
  if (s.pendingSteering.delete(item.id)) changes.push(["steering"]);
  return changes;
}

/**
 * Apply one event of a thread: "gap" when events were missed (take a new snapshot), else
 * the topics that changed (none for another thread's event or one already applied).
 * @param {State} s @param {string} method @param {any} params @param {number} now
 * @returns {Change[] | "gap"}
 */
export function applyThreadEvent(s, method, params, now) {
  if (!params || params.threadId !== s.threadId || typeof params.seq !== "number") return [];
  if (params.seq <= s.lastSeq) return []; // already in the snapshot
  if (params.seq > s.lastSeq + 1) return "gap";
  s.lastSeq = params.seq;
  const handler = /** @type {Handler<any> | undefined} */ (HANDLERS[/** @type {keyof Events} */ (method)]);
  return handler ? handler(s, params, now) : [];
}
