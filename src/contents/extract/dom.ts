/**
 * The DOM we extract from: linkedom, typed with just what this module uses
 * (the project compiles without the DOM lib, and linkedom's own typings lean
 * on it). Also the repairs linkedom needs before anything else can trust the
 * tree: linkedom does not run the HTML5 tree builder, so a fragment gets no
 * <body> and content outside <body> is invisible to `document.body`.
 */
import { parseHTML } from "linkedom";

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomNode | null;
  readonly parentElement: DomElement | null;
  readonly firstChild: DomNode | null;
  readonly lastChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly previousSibling: DomNode | null;
  readonly childNodes: ArrayLike<DomNode> & Iterable<DomNode>;
  readonly ownerDocument: DomDocument;
  textContent: string | null;
  appendChild<T extends DomNode>(node: T): T;
  insertBefore<T extends DomNode>(node: T, reference: DomNode | null): T;
  removeChild<T extends DomNode>(node: T): T;
  cloneNode(deep?: boolean): DomNode;
  remove(): void;
}

export interface DomText extends DomNode {
  data: string;
}

export interface DomElement extends DomNode {
  readonly tagName: string;
  readonly localName: string;
  id: string;
  className: string;
  innerHTML: string;
  readonly outerHTML: string;
  readonly children: ArrayLike<DomElement> & Iterable<DomElement>;
  readonly firstElementChild: DomElement | null;
  readonly nextElementSibling: DomElement | null;
  readonly previousElementSibling: DomElement | null;
  readonly attributes: ArrayLike<{ name: string; value: string }> & Iterable<{ name: string; value: string }>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement> & Iterable<DomElement>;
  getElementsByTagName(name: string): ArrayLike<DomElement> & Iterable<DomElement>;
  closest(selector: string): DomElement | null;
  replaceWith(...nodes: DomNode[]): void;
  before(...nodes: (DomNode | string)[]): void;
  after(...nodes: (DomNode | string)[]): void;
  append(...nodes: (DomNode | string)[]): void;
  cloneNode(deep?: boolean): DomElement;
}

export interface DomDocument extends DomNode {
  readonly documentElement: DomElement;
  readonly head: DomElement;
  readonly body: DomElement;
  title: string;
  createElement(name: string): DomElement;
  createTextNode(data: string): DomText;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement> & Iterable<DomElement>;
  getElementsByTagName(name: string): ArrayLike<DomElement> & Iterable<DomElement>;
}

export const isElement = (node: DomNode | null | undefined): node is DomElement => node?.nodeType === ELEMENT_NODE;
export const isText = (node: DomNode | null | undefined): node is DomText => node?.nodeType === TEXT_NODE;

/** Lowercase tag name; linkedom's tagName is uppercase in HTML documents. */
export const tagOf = (element: DomElement): string => element.localName;

/**
 * Deeper than this, structure is flattened to text. Real pages stay under
 * ~60 levels; the limit is what keeps recursive consumers (turndown,
 * Readability's style cleaner, serialisers) off the stack's edge.
 */
export const MAX_DEPTH = 160;

/** Elements that belong in <head> when a page forgot to open <body>. */
const HEAD_ONLY = new Set(["title", "meta", "link", "base", "style"]);
/** What a browser leaves in <head>; anything else there starts the body. */
const HEAD_CONTENT = new Set([...HEAD_ONLY, "script", "noscript", "template"]);

function isBodyContent(node: DomNode): boolean {
  if (isElement(node)) return !HEAD_CONTENT.has(tagOf(node));
  return isText(node) && node.data.trim() !== "";
}

/** Parses HTML into a document that always has <html>, <head> and <body>, with depth capped. */
export function parseDocument(html: string): DomDocument {
  let document = parseHTML(html).document as unknown as DomDocument;
  // Fragments, and pages that open with <head> or <body> (or with junk), get no <html> root of their own.
  if (document.documentElement?.localName !== "html")
    document = parseHTML(`<!DOCTYPE html><html>${html}</html>`).document as unknown as DomDocument;
  ensureBody(document);
  unwrapNestedRoots(document.body);
  capDepth(document.documentElement);
  stripInvisibleCharacters(document.body);
  return document;
}

/**
 * Soft hyphens and zero-width spaces render as nothing but split words for
 * every consumer of the text (search, matching, tokenisers). Zero-width
 * joiners stay: emoji and several scripts need them.
 */
const INVISIBLE = /[\u00ad\u200b\u2060\ufeff]/;
const INVISIBLE_ALL = /[\u00ad\u200b\u2060\ufeff]/g;

function stripInvisibleCharacters(root: DomElement): void {
  let node: DomNode | null = root.firstChild;
  while (node) {
    if (isText(node) && INVISIBLE.test(node.data)) node.data = node.data.replace(INVISIBLE_ALL, "");
    if (isElement(node) && node.firstChild) {
      node = node.firstChild;
      continue;
    }
    while (node && !node.nextSibling) {
      node = node.parentNode;
      if (node === root || node === null) return;
    }
    node = node?.nextSibling ?? null;
  }
}

/**
 * CMS templates sometimes paste a whole document into the article
 * (<html><body><p>...). A browser ignores the extra <html>/<body> tags and
 * drops the extra <head>; so do we, so they do not split the article.
 */
function unwrapNestedRoots(body: DomElement): void {
  for (const element of Array.from(body.querySelectorAll("html, body, head"))) {
    if (tagOf(element) === "head") {
      element.remove();
      continue;
    }
    const parent = element.parentNode;
    if (!parent) continue;
    while (element.firstChild) parent.insertBefore(element.firstChild, element);
    element.remove();
  }
}

function ensureBody(document: DomDocument): void {
  const root = document.documentElement;
  let head: DomElement | null = null;
  let body: DomElement | null = null;
  for (const child of Array.from(root.children)) {
    if (tagOf(child) === "head") head ??= child;
    else if (tagOf(child) === "body") body ??= child;
  }
  if (!head) {
    head = document.createElement("head");
    root.insertBefore(head, root.firstChild);
  }
  if (!body) {
    body = document.createElement("body");
    root.appendChild(body);
  }
  // Like a browser, the first body-like thing inside <head> closes it: it and all after it move to <body>.
  let stray: DomNode | null = head.firstChild;
  while (stray && !isBodyContent(stray)) stray = stray.nextSibling;
  const bodyStart = body.firstChild;
  while (stray) {
    const next: DomNode | null = stray.nextSibling;
    body.insertBefore(stray, bodyStart);
    stray = next;
  }
  // Content the page put outside <head>/<body> (no <body> tag at all, or text before it): into <body>, in order.
  let seenBody = false;
  const anchor = body.firstChild;
  for (const child of Array.from(root.childNodes)) {
    if (child === head) continue;
    if (child === body) {
      seenBody = true;
      continue;
    }
    if (isElement(child) && HEAD_ONLY.has(tagOf(child))) head.appendChild(child);
    else if (seenBody) body.appendChild(child);
    else body.insertBefore(child, anchor);
  }
}

/**
 * Replaces every element nested deeper than MAX_DEPTH with its text. Walks
 * iteratively (firstChild/nextSibling are O(1) in linkedom), so a page nested
 * 100,000 levels deep costs one pass and no stack.
 */
export function capDepth(root: DomElement): void {
  let node: DomNode | null = root.firstChild;
  let depth = 1;
  while (node) {
    if (isElement(node) && depth >= MAX_DEPTH && node.firstElementChild) {
      const text = node.textContent ?? "";
      while (node.firstChild) node.removeChild(node.firstChild);
      if (text) node.appendChild(node.ownerDocument.createTextNode(text));
    }
    if (isElement(node) && node.firstChild) {
      node = node.firstChild;
      depth++;
      continue;
    }
    while (node && !node.nextSibling) {
      node = node.parentNode;
      depth--;
      if (node === root || depth <= 0) return;
    }
    node = node?.nextSibling ?? null;
  }
}

/** The node after `node` in document order within `root`, entering its children only when `descend`. */
function following(node: DomNode, root: DomElement, descend: boolean): DomNode | null {
  if (descend && node.firstChild) return node.firstChild;
  let current: DomNode | null = node;
  while (current && !current.nextSibling) {
    current = current.parentNode;
    if (current === root || current === null) return null;
  }
  return current?.nextSibling ?? null;
}

/**
 * Visits every element under `root` in document order; returning false from
 * `visit` skips that element's descendants. The visitor must not detach the
 * element it is given (collect, then mutate).
 */
export function walkElements(root: DomElement, visit: (element: DomElement) => boolean | void): void {
  let node: DomNode | null = root.firstChild;
  while (node) node = following(node, root, isElement(node) && visit(node) !== false);
}
