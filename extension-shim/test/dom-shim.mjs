// A tiny DOM for the panel's pure renderers under node: elements with attributes, classes,
// dataset, children, text and click listeners; enough for `dom.js`'s helpers and what the
// renderers build (the panel itself runs in real Chromium in tests/e2e/test_panel_*.py).
// `installDom()` puts `document` on globalThis; `removeDom()` takes it away.

class Text {
  /** @param {string} data */
  constructor(data) {
    this.data = data;
    this.parentNode = null;
  }
  get textContent() {
    return this.data;
  }
}

class Element {
  /** @param {string} tag */
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    /** @type {(Element | Text)[]} */
    this.childNodes = [];
    /** @type {Element | null} */
    this.parentNode = null;
    /** @type {Map<string, string>} */
    this.attributes = new Map();
    /** @type {Record<string, string>} */
    this.dataset = {};
    /** @type {Map<string, (() => void)[]>} */
    this.listeners = new Map();
    this.className = "";
    const element = this;
    this.classList = {
      /** @param {string} name */
      add(name) {
        if (!this.contains(name)) element.className = `${element.className} ${name}`.trim();
      },
      /** @param {string} name */
      contains: (name) => element.className.split(/\s+/).includes(name),
    };
  }
  /** @param {...(Element | Text | string)} nodes */
  append(...nodes) {
    for (const node of nodes) this.#adopt(node, this.childNodes.length);
  }
  /** @param {...(Element | Text | string)} nodes */
  prepend(...nodes) {
    nodes.forEach((node, n) => this.#adopt(node, n));
  }
  /** @param {...(Element | Text | string)} nodes */
  replaceChildren(...nodes) {
    for (const child of this.childNodes) child.parentNode = null;
    this.childNodes = [];
    this.append(...nodes);
  }
  /** @param {Element | Text | string} node @param {number} at */
  #adopt(node, at) {
    const child = typeof node === "string" ? new Text(node) : node;
    if (child.parentNode) child.parentNode.childNodes = child.parentNode.childNodes.filter((c) => c !== child);
    child.parentNode = this;
    this.childNodes.splice(at, 0, child);
  }
  get children() {
    return /** @type {Element[]} */ (this.childNodes.filter((c) => c instanceof Element));
  }
  get firstElementChild() {
    return this.children[0] ?? null;
  }
  get lastElementChild() {
    return this.children.at(-1) ?? null;
  }
  /** @returns {string} */
  get textContent() {
    return this.childNodes.map((c) => c.textContent).join("");
  }
  set textContent(text) {
    this.replaceChildren(String(text));
  }
  /** @param {string} name @param {unknown} value */
  setAttribute(name, value) {
    this.attributes.set(name, String(value));
  }
  /** @param {string} name */
  getAttribute(name) {
    return this.attributes.get(name) ?? null;
  }
  /** @param {string} type @param {() => void} listener */
  addEventListener(type, listener) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  click() {
    if (!(/** @type {any} */ (this).disabled)) for (const listener of this.listeners.get("click") ?? []) listener();
  }
}

/** @param {Element} root @returns {Generator<Element>} */
function* descendants(root) {
  for (const child of root.children) {
    yield child;
    yield* descendants(child);
  }
}

/** Every element under `root` (depth first) that `test` accepts. @param {any} root @param {(e: any) => boolean} test */
export function findAll(root, test) {
  return [...descendants(root)].filter(test);
}

/** The element under `root` with this accessible name (its aria-label, else its text). @param {any} root @param {string} name */
export function byName(root, name) {
  const found = findAll(root, (e) => (e.getAttribute("aria-label") ?? e.textContent) === name);
  if (found.length !== 1) throw new Error(`${found.length} elements named ${JSON.stringify(name)}`);
  return found[0];
}

/** Elements under `root` whose classes include `name`. @param {any} root @param {string} name */
export function byClass(root, name) {
  return findAll(root, (e) => e.classList.contains(name));
}

export function installDom() {
  globalThis.document = /** @type {any} */ ({
    /** @param {string} tag */
    createElement: (tag) => new Element(tag),
    /** @param {string} _ns @param {string} tag */
    createElementNS: (_ns, tag) => new Element(tag),
    /** @param {string} data */
    createTextNode: (data) => new Text(data),
  });
}

export function removeDom() {
  delete (/** @type {any} */ (globalThis).document);
}
