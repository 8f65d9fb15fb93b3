// Threads that need the user (issue 26): a thread waiting for an approval or an answer is
// counted, whichever thread the panel shows. The panel marks them in its thread list and
// on its "Threads" button; the worker shows their number on the toolbar action, so a
// thread asking in the background is seen with the panel closed too. Pure counting here,
// and the toolbar's badge with Chrome's action API passed in.

/** @typedef {import("./generated/protocol").Thread} Thread */

/** The thread statuses that wait for the user (`Thread.status`). */
export const NEEDS_YOU = new Set(["awaiting_approval", "awaiting_answer"]);

/** @param {string | null | undefined} status */
export function needsYou(status) {
  return typeof status === "string" && NEEDS_YOU.has(status);
}

/**
 * How many threads wait for the user, from each thread's latest status.
 * @param {Iterable<string | null | undefined>} statuses
 */
export function countNeedingYou(statuses) {
  let n = 0;
  for (const status of statuses) if (needsYou(status)) n += 1;
  return n;
}

/** "1 thread needs you", "2 threads need you". @param {number} n */
export function needsYouWords(n) {
  return n === 1 ? "1 thread needs you" : `${n} threads need you`;
}

/** The badge's colour: Chrome's red of notification badges, white text. */
const BADGE_COLOR = "#b3261e";
const BADGE_TEXT_COLOR = "#ffffff";

/**
 * The toolbar action's badge: the number of threads that need the user, kept from the
 * host's `thread.updated` events (broadcast to the worker whatever panel is open) and
 * from a `thread.list` when the host connects (a restarted worker knows nothing yet).
 */
export class ToolbarBadge {
  /**
   * @param {Pick<typeof chrome.action, "setBadgeText" | "setBadgeBackgroundColor" | "setTitle"> & Partial<Pick<typeof chrome.action, "setBadgeTextColor">>} action
   * @param {string} idleTitle the action's title when no thread needs the user
   */
  constructor(action, idleTitle) {
    this.action = action;
    this.idleTitle = idleTitle;
    /** Each known thread's latest status. @type {Map<string, string>} */
    this.statuses = new Map();
    /** The count last shown (null: nothing shown yet). @type {number | null} */
    this.shown = null;
  }

  /** Every thread's status anew (a `thread.list` answer). @param {Thread[]} threads */
  seed(threads) {
    this.statuses = new Map(threads.map((t) => [t.id, t.status ?? "idle"]));
    return this.render();
  }

  /** A `thread.updated` thread. @param {Thread | undefined} thread */
  update(thread) {
    if (!thread || typeof thread.id !== "string") return Promise.resolve();
    this.statuses.set(thread.id, thread.status ?? "idle");
    return this.render();
  }

  /** A deleted thread. @param {string} threadId */
  forget(threadId) {
    this.statuses.delete(threadId);
    return this.render();
  }

  get count() {
    return countNeedingYou(this.statuses.values());
  }

  /** Set the badge when its number changed; Chrome's errors are logged, never thrown. */
  async render() {
    const n = this.count;
    if (n === this.shown) return;
    this.shown = n;
    try {
      await this.action.setBadgeBackgroundColor({ color: BADGE_COLOR });
      await this.action.setBadgeTextColor?.({ color: BADGE_TEXT_COLOR });
      await this.action.setBadgeText({ text: n ? String(n) : "" });
      await this.action.setTitle({ title: n ? `Panelot: ${needsYouWords(n)}` : this.idleTitle });
    } catch (error) {
      console.warn("panelot: could not set the toolbar badge", error);
    }
  }
}
