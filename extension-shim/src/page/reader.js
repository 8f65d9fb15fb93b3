// browser_read, page side: the page's main content as Markdown, through Mozilla's
// Readability (what Firefox's Reader View uses) and turndown with its GFM plugin (tables).
// Injected on demand (vendor/page-reader.js) into the isolated world of the top frame.
// When Readability finds no article (an app, a form), the whole body is converted.

import { Readability } from "@mozilla/readability";
import TurndownService from "turndown";
// @ts-ignore: the plugin ships no types
import { gfm } from "turndown-plugin-gfm";

/** @param {{offset?: number, maxChars?: number}} request */
function read(request) {
  const offset = Math.max(0, request.offset ?? 0);
  const maxChars = request.maxChars ?? 30_000;
  const clone = /** @type {Document} */ (document.cloneNode(true));
  let title = document.title;
  let html = "";
  let byline = "";
  try {
    const article = new Readability(clone, { charThreshold: 200 }).parse();
    if (article?.content) {
      html = article.content;
      title = article.title || title;
      byline = article.byline ?? "";
    }
  } catch {
    html = "";
  }
  const fromArticle = html !== "";
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.use(gfm);
  turndown.remove(["script", "style", "noscript", "template"]);
  const markdown = fromArticle ? turndown.turndown(html) : turndown.turndown(bodyWithoutChrome());
  const text = markdown.replace(/\n{3,}/g, "\n\n").trim();
  const part = text.slice(offset, offset + maxChars);
  return {
    ok: true,
    title,
    byline,
    url: location.href,
    fromArticle,
    total: text.length,
    offset,
    markdown: part,
    truncated: offset + part.length < text.length,
  };
}

/** The body without what is never content (scripts, hidden parts), for pages with no article. */
function bodyWithoutChrome() {
  const body = /** @type {HTMLElement} */ (document.body.cloneNode(true));
  for (const node of body.querySelectorAll("script, style, noscript, template, [hidden], [aria-hidden=true]")) node.remove();
  return body;
}

if (!("__panelotReader" in globalThis)) {
  Object.defineProperty(globalThis, "__panelotReader", { value: { handle: read }, configurable: false });
}
