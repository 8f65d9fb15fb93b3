// Element tests that work across frames: an element of a same-origin iframe is not an
// `instanceof` the top window's classes (each frame has its own), so test the tag.

/** @param {Element} el @returns {el is HTMLInputElement} */
export const isInput = (el) => el.tagName === "INPUT";
/** @param {Element} el @returns {el is HTMLTextAreaElement} */
export const isTextArea = (el) => el.tagName === "TEXTAREA";
/** @param {Element} el @returns {el is HTMLSelectElement} */
export const isSelect = (el) => el.tagName === "SELECT";
/** @param {Element} el @returns {el is HTMLButtonElement} */
export const isButton = (el) => el.tagName === "BUTTON";
/** @param {Element} el @returns {el is HTMLAnchorElement} */
export const isAnchor = (el) => el.tagName === "A";
/** @param {Element} el @returns {el is HTMLIFrameElement} */
export const isIFrame = (el) => el.tagName === "IFRAME" || el.tagName === "FRAME";
/** @param {Element} el @returns {el is HTMLElement} */
export const isHTML = (el) => "isContentEditable" in el;
