// The files a user picked on an approval card for one browser_upload_file call. The panel
// hands them to the worker (`$/files.stage`, keyed by the call's `callId`) right before it
// allows the call; the tool takes them once. They never pass through the host, and the
// model never names a path: only what the user picked for this very call is uploaded.

import { ToolFailure } from "./errors.js";

export const STAGE_FILES = "$/files.stage";
export const UPLOAD_MAX_BYTES = 20 * 1024 * 1024; // all files of one call, decoded
export const UPLOAD_MAX_FILES = 20;
export const STAGED_FOR_MS = 10 * 60_000; // an allowed call runs well within this

/** @typedef {{name: string, type: string, size: number, data: string}} PickedFile  `data`: base64 */

/** A staged file list, checked: bad input from a panel is refused with a clear reason. @param {unknown} files @returns {PickedFile[]} */
export function checkedFiles(files) {
  if (!Array.isArray(files) || files.length === 0) throw new ToolFailure("no files were picked");
  if (files.length > UPLOAD_MAX_FILES) throw new ToolFailure(`at most ${UPLOAD_MAX_FILES} files at once`);
  let total = 0;
  return files.map((file) => {
    const { name, type, data } = /** @type {Record<string, unknown>} */ (file ?? {});
    if (typeof name !== "string" || name === "" || typeof type !== "string" || typeof data !== "string") throw new ToolFailure("a picked file needs a name, a type and its data");
    const size = Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
    total += size;
    if (total > UPLOAD_MAX_BYTES) throw new ToolFailure(`the picked files are larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MB together`);
    return { name, type, size, data };
  });
}

export class StagedUploads {
  constructor(now = () => Date.now()) {
    this.now = now;
    /** @type {Map<string, {files: PickedFile[], until: number}>} */
    this.byCall = new Map();
  }

  /** @param {unknown} callId @param {unknown} files @returns {{staged: number}} */
  stage(callId, files) {
    if (typeof callId !== "string" || callId === "") throw new ToolFailure("`callId` is required");
    for (const [id, entry] of this.byCall) if (entry.until <= this.now()) this.byCall.delete(id);
    const checked = checkedFiles(files);
    this.byCall.set(callId, { files: checked, until: this.now() + STAGED_FOR_MS });
    return { staged: checked.length };
  }

  /** The files picked for `callId`, once; null when none (or too long ago). @param {string} callId */
  take(callId) {
    const entry = this.byCall.get(callId);
    this.byCall.delete(callId);
    return entry && entry.until > this.now() ? entry.files : null;
  }
}
