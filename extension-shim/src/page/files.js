// browser_upload_file in the page: which file input a ref means, and giving it the files
// the user picked (as a person's file chooser does: the input's `files`, then `input` and
// `change`). The files come from the worker, never from a path the model named.

import { ActionRefused, label } from "./actions.js";

/** @typedef {{name: string, type: string, size: number, data: string}} PickedFile */

/** @param {Element | null | undefined} el @returns {el is HTMLInputElement} */
function isFileInput(el) {
  return el instanceof HTMLInputElement && el.type === "file";
}

/**
 * The file input `el` means: itself, the control of its label, one inside it, the one of
 * its form, or the page's only one (sites hide the input behind a styled button).
 * @param {Element} el @param {string} ref @returns {{input: HTMLInputElement, how: string}}
 */
export function fileInputFor(el, ref) {
  if (isFileInput(el)) return { input: el, how: "" };
  const labelled = el.closest("label")?.control;
  if (isFileInput(labelled)) return { input: labelled, how: " (the file input of its label)" };
  const inside = el.querySelectorAll("input[type=file]");
  if (inside.length === 1 && isFileInput(inside[0])) return { input: inside[0], how: " (the file input inside it)" };
  const form = el.closest("form");
  const ofForm = form ? form.querySelectorAll("input[type=file]") : [];
  if (ofForm.length === 1 && isFileInput(ofForm[0])) return { input: ofForm[0], how: " (the file input of its form)" };
  const all = el.ownerDocument.querySelectorAll("input[type=file]");
  if (all.length === 1 && isFileInput(all[0])) return { input: all[0], how: " (the page's only file input)" };
  const many = Math.max(inside.length, ofForm.length, all.length);
  throw new ActionRefused(
    many
      ? `${ref} (${label(el)}) is not a file input, and it does not tell which of the page's ${all.length} file inputs it means; use the ref of the file input or of its label`
      : `${ref} (${label(el)}) is not a file input, and the page has none`,
  );
}

/** @param {PickedFile} picked */
function fileOf(picked) {
  const binary = atob(picked.data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return new File([bytes], picked.name, { type: picked.type || "application/octet-stream" });
}

/**
 * Give `input` the picked files; what was done, in words.
 * @param {HTMLInputElement} input @param {PickedFile[]} picked
 */
export function attachFiles(input, picked) {
  if (input.disabled) throw new ActionRefused(`the file input (${label(input)}) is disabled`);
  if (picked.length > 1 && !input.multiple) throw new ActionRefused(`the file input (${label(input)}) takes one file; the user picked ${picked.length}`);
  const transfer = new DataTransfer();
  for (const file of picked) transfer.items.add(fileOf(file));
  input.files = transfer.files;
  input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
  return picked.map((f) => `${f.name} (${size(f.size)})`).join(", ");
}

/** @param {number} bytes */
function size(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
