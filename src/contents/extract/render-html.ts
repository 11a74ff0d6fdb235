/**
 * The content tree serialised as safe HTML. This is an allow-list
 * serialiser, not a filter over the page's own serialisation: only known
 * tags and attributes are written, every value is escaped, and links and
 * images keep only http(s) (and mailto/tel for links) addresses. So no
 * script, style, event handler, iframe or javascript: URL can come out,
 * whatever the page contained.
 */
import { type DomElement, type DomNode, isElement, isText, tagOf } from "./dom.ts";
import { EMBEDDED, HEADINGS, LIST_ITEMS, LISTS } from "./element-kinds.ts";

const ALLOWED_TAGS = new Set([
  "p",
  "br",
  "hr",
  ...HEADINGS,
  ...LISTS,
  ...LIST_ITEMS,
  "blockquote",
  "pre",
  "code",
  "em",
  "strong",
  "b",
  "i",
  "u",
  "s",
  "del",
  "ins",
  "sub",
  "sup",
  "mark",
  "small",
  "a",
  "img",
  "figure",
  "figcaption",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "th",
  "td",
  "caption",
  "q",
  "cite",
  "abbr",
  "time",
  "details",
  "summary",
  "kbd",
  "samp",
  "var",
  "div",
  "section",
  "article",
]);

/** Dropped with everything inside; anything else not allowed (span, font, custom elements) is unwrapped: its children are kept. */
const DROPPED_TAGS = new Set([
  "script",
  "style",
  ...EMBEDDED,
  "form",
  "input",
  "button",
  "select",
  "textarea",
  "svg",
  "math",
  "template",
  "noscript",
  "link",
  "meta",
  "base",
  "head",
  "title",
  "canvas",
  "video",
  "audio",
]);

const VOID_TAGS = new Set(["br", "hr", "img"]);

const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  a: ["href", "title"],
  img: ["src", "alt", "title", "width", "height"],
  td: ["colspan", "rowspan"],
  th: ["colspan", "rowspan", "scope"],
  ol: ["start", "reversed"],
  time: ["datetime"],
  abbr: ["title"],
  code: ["class"],
  pre: ["class"],
};

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, "&quot;");

function safeAttribute(name: string, value: string): string | null {
  if (name === "href") return /^(?:https?:|mailto:|tel:|#)/i.test(value) ? value : null;
  if (name === "src") return /^https?:/i.test(value) ? value : null;
  // Classes survive only as code language markers, which markdown converters and highlighters read.
  if (name === "class") return value.split(/\s+/).find((c) => /^(?:language|lang)-[\w+#-]+$/i.test(c)) ?? null;
  if (["colspan", "rowspan", "start", "width", "height"].includes(name)) return /^\d{1,4}$/.test(value.trim()) ? value.trim() : null;
  return value;
}

function openTag(element: DomElement, tag: string): string {
  let out = `<${tag}`;
  for (const name of ALLOWED_ATTRIBUTES[tag] ?? []) {
    const raw = element.getAttribute(name);
    if (raw === null) continue;
    const value = safeAttribute(name, raw);
    if (value !== null) out += ` ${name}="${escapeAttribute(value)}"`;
  }
  return `${out}>`;
}

export function renderHtml(root: DomElement): string {
  const out: string[] = [];
  // Iterative walk; `closers` holds what to write when leaving each open element ("" for unwrapped ones).
  const closers: string[] = [];
  let node: DomNode | null = root.firstChild;
  while (node) {
    let descend = false;
    if (isText(node)) out.push(escapeText(node.data));
    else if (isElement(node)) {
      const tag = tagOf(node);
      if (!DROPPED_TAGS.has(tag)) {
        const allowed = ALLOWED_TAGS.has(tag);
        if (allowed) out.push(openTag(node, tag));
        if (VOID_TAGS.has(tag)) {
          // nothing inside a void element
        } else if (node.firstChild) {
          closers.push(allowed ? `</${tag}>` : "");
          descend = true;
        } else if (allowed) out.push(`</${tag}>`);
      }
    }
    if (descend) {
      node = node.firstChild;
      continue;
    }
    while (node && !node.nextSibling) {
      node = node.parentNode;
      if (!node || node === root) {
        node = null;
        break;
      }
      out.push(closers.pop() ?? "");
    }
    node = node?.nextSibling ?? null;
  }
  return out
    .join("")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
