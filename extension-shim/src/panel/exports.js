// "Export thread" and "Export turn" (issue 30): `thread.export` in the format picked, saved
// as a file through a Blob and a temporary `<a download>` (Chrome puts it in the downloads
// folder): a self-contained HTML report, an animated GIF of the frames (base64 `data`),
// the JSON the host imports again, or a Markdown transcript.

/** @typedef {import("../generated/protocol").ThreadExportParams} ThreadExportParams */
/** @typedef {import("../generated/protocol").ThreadExportResult} ThreadExportResult */
/** @typedef {import("./controller.js").Controller} Controller */
/** @typedef {NonNullable<ThreadExportParams["format"]>} ExportFormat */

/** The formats offered, in the menu's order, with their stable names. @type {Array<[ExportFormat, string]>} */
export const EXPORT_FORMATS = [
  ["html", "Report (HTML)"],
  ["gif", "Animation (GIF)"],
  ["json", "Data (JSON)"],
  ["md", "Transcript (Markdown)"],
];

const EXPORT_TIMEOUT_MS = 120_000; // a long thread's report or GIF takes the host a while

/** Base64 -> bytes. @param {string} base64 */
export function bytesOf(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The export's file as a Blob: base64 `data` (a GIF) or `text`. @param {ThreadExportResult} result */
export function blobOf(result) {
  return typeof result.data === "string" ? new Blob([bytesOf(result.data)], { type: result.mime }) : new Blob([result.text ?? ""], { type: result.mime });
}

/**
 * Export the thread (or one of its turns) as `format` and save the file; false when the
 * host refused (the notice says why).
 * @param {Controller} controller @param {string} threadId @param {string | null} turnId @param {ExportFormat} format
 */
export async function saveExport(controller, threadId, turnId, format) {
  /** @type {ThreadExportParams} */
  const params = { threadId, format, ...(turnId ? { turnId } : {}) };
  const result = /** @type {ThreadExportResult | undefined} */ (await controller.attempt(() => controller.client.request("thread.export", params, EXPORT_TIMEOUT_MS)));
  if (!result) return false;
  const url = URL.createObjectURL(blobOf(result));
  const link = document.createElement("a");
  link.href = url;
  link.download = result.fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  controller.store.notify("info", `Saved ${result.fileName} to your downloads.`);
  return true;
}
