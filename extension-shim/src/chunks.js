// Reassembly of `$/chunk` notifications (protocol section 7): the host splits a message
// whose encoding exceeds Chrome's 1 MiB limit into slices of its JSON text.

/** @typedef {import("./generated/protocol").ChunkEvent} ChunkParams */

const MAX_OPEN = 16; // chunked messages in progress at once; the oldest is dropped beyond

export class ChunkError extends Error {}

export class ChunkAssembler {
  constructor() {
    /** @type {Map<string, {count: number, parts: string[], received: number}>} */
    this.open = new Map();
  }

  /**
   * Take one `$/chunk`; return the whole message's JSON text once its last part arrived.
   * @param {ChunkParams} params
   * @returns {string | null}
   * @throws {ChunkError} on a malformed part (its message is then dropped)
   */
  accept(params) {
    const { chunkId, index, count, data } = params;
    if (typeof chunkId !== "string" || typeof data !== "string" || !Number.isInteger(index)
      || !Number.isInteger(count) || count < 1 || index < 0 || index >= count) {
      if (typeof chunkId === "string") this.open.delete(chunkId);
      throw new ChunkError(`malformed $/chunk part ${JSON.stringify({ chunkId, index, count })}`);
    }
    let entry = this.open.get(chunkId);
    if (!entry) {
      entry = { count, parts: new Array(count), received: 0 };
      this.open.set(chunkId, entry);
      if (this.open.size > MAX_OPEN) this.open.delete(this.open.keys().next().value ?? "");
    }
    if (entry.count !== count || entry.parts[index] !== undefined) {
      this.open.delete(chunkId);
      throw new ChunkError(`inconsistent $/chunk ${chunkId}: part ${index} of ${count}`);
    }
    entry.parts[index] = data;
    entry.received += 1;
    if (entry.received < count) return null;
    this.open.delete(chunkId);
    return entry.parts.join("");
  }

  /** Forget partial messages (the Port closed). */
  clear() {
    this.open.clear();
  }
}
