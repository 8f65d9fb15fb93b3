// Model text -> sanitised DOM. marked parses the Markdown; raw HTML in the text is shown as
// text (a renderer override escapes it), and DOMPurify sanitises what marked produced as a
// second line of defence. Images are never loaded from model text (a URL could carry page
// data away); they are shown as links. Code blocks get a copy button.

import { Marked } from "../../vendor/marked.esm.js";
import DOMPurify from "../../vendor/purify.es.mjs";
import { iconButton } from "./dom.js";

/** @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html(token) {
      return escapeHtml(token.text);
    },
    image(token) {
      const label = escapeHtml(token.text || token.href);
      return `<a href="${escapeHtml(token.href)}">${label}</a>`;
    },
  },
});

const PURIFY = {
  FORBID_TAGS: ["style", "img", "form", "input", "button", "textarea", "select", "iframe", "svg", "math"],
  FORBID_ATTR: ["style", "class", "id"],
  RETURN_DOM_FRAGMENT: /** @type {const} */ (true),
};

/**
 * Render `text` as Markdown into `target` (its children are replaced).
 * @param {HTMLElement} target @param {string} text
 */
export function renderMarkdown(target, text) {
  const html = /** @type {string} */ (marked.parse(text));
  const fragment = DOMPurify.sanitize(html, PURIFY);
  for (const link of fragment.querySelectorAll("a")) {
    const href = link.getAttribute("href") ?? "";
    if (!/^https?:\/\//i.test(href)) link.removeAttribute("href");
    link.target = "_blank";
    link.rel = "noopener noreferrer";
  }
  for (const pre of fragment.querySelectorAll("pre")) {
    const code = pre.textContent ?? "";
    pre.tabIndex = 0; // it may scroll sideways
    const wrap = document.createElement("div");
    wrap.className = "code";
    pre.replaceWith(wrap);
    wrap.append(pre, copyButton(() => code));
  }
  // marked separates blocks with newlines: markup, not text the model wrote
  for (const node of [...fragment.childNodes]) {
    if (node.nodeType === Node.TEXT_NODE && !(node.textContent ?? "").trim()) node.remove();
  }
  target.replaceChildren(fragment);
}

/** @param {() => string} text @param {string} [label] the button's name until it has copied */
export function copyButton(text, label = "Copy code") {
  const button = iconButton("copy", label);
  button.classList.add("copy");
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.setAttribute("aria-label", "Copied");
      button.dataset.copied = "true";
      setTimeout(() => {
        button.setAttribute("aria-label", label);
        delete button.dataset.copied;
      }, 1500);
    } catch {
      button.setAttribute("aria-label", "Copy failed");
    }
  });
  return button;
}
