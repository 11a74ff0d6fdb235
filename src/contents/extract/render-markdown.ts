/**
 * Markdown through turndown: ATX headings, "-" bullets, fenced code with the
 * language when the markup names one, GFM tables. The joplin GFM plugin
 * supplies strikethrough and task lists; its table rules read
 * `HTMLTableElement.rows`, which linkedom does not implement, so tables have
 * rules of their own here (tables.ts has already made every remaining table
 * a flat data table).
 */
import TurndownService from "turndown";
import { strikethrough, taskListItems } from "@joplin/turndown-plugin-gfm";
import { type DomElement, tagOf } from "./dom.ts";
import { ownCells, ownRows } from "./tables.ts";

type TurndownNode = Parameters<TurndownService.ReplacementFunction>[1];
/** turndown hands rules its own node type; they are our linkedom elements. */
const asElement = (node: TurndownNode) => node as unknown as DomElement;

const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight-source|highlight|brush:?|hljs)-?\s*([a-z0-9_+#-]+)/i;
const NOT_A_LANGUAGE = new Set(["plain", "plaintext", "text", "none", "nohighlight", "no-highlight", "hljs", "source", "code", "default"]);

/** The language a code block names in its own, its <code>'s or its wrapper's class or data-lang. */
export function codeLanguage(pre: DomElement): string {
  const code = pre.querySelector("code");
  const holders = [code, pre, pre.parentElement];
  for (const holder of holders) {
    if (!holder) continue;
    const named = holder.getAttribute("data-lang") ?? holder.getAttribute("data-language") ?? holder.getAttribute("lang");
    if (named && /^[a-z0-9_+#-]{1,20}$/i.test(named) && !NOT_A_LANGUAGE.has(named.toLowerCase())) return named.toLowerCase();
    const match = (holder.getAttribute("class") ?? "").match(LANGUAGE_CLASS);
    if (match?.[1] && !NOT_A_LANGUAGE.has(match[1].toLowerCase())) return match[1].toLowerCase();
  }
  return "";
}

/** Code text with <br> as line breaks (some highlighters emit them instead of newlines). */
function codeText(pre: DomElement): string {
  const clone = pre.cloneNode(true);
  for (const br of Array.from(clone.getElementsByTagName("br"))) br.replaceWith(clone.ownerDocument.createTextNode("\n"));
  return (clone.textContent ?? "").replace(/^\n+|\s+$/g, "");
}

function fence(code: string): string {
  let longest = 2;
  for (const match of code.matchAll(/^`{3,}/gm)) longest = Math.max(longest, match[0].length);
  return "`".repeat(longest + 1);
}

const escapeCell = (content: string) => content.trim().replace(/\n+/g, "<br>").replace(/\|/g, "\\|") || " ";

const rowWidth = (row: DomElement) => ownCells(row).reduce((n, cell) => n + Math.max(1, Number(cell.getAttribute("colspan")) || 1), 0);

/** Per table: its header row and its width, computed once (per row it would be quadratic). */
const tableShapes = new WeakMap<DomElement, { headerRow: DomElement | null; columns: number }>();

function shapeOf(table: DomElement): { headerRow: DomElement | null; columns: number } {
  let shape = tableShapes.get(table);
  if (!shape) {
    const rows = ownRows(table);
    let columns = 1;
    for (const row of rows) columns = Math.max(columns, rowWidth(row));
    shape = { headerRow: rows[0] ?? null, columns };
    tableShapes.set(table, shape);
  }
  return shape;
}

function enclosingTable(element: DomElement): DomElement | null {
  for (let node = element.parentElement; node; node = node.parentElement) if (tagOf(node) === "table") return node;
  return null;
}

/** Item numbers per ordered list, computed once per list (counting siblings per item is quadratic). */
const itemNumbers = new WeakMap<DomElement, Map<DomElement, number>>();

function itemNumber(list: DomElement, item: DomElement): number {
  let numbers = itemNumbers.get(list);
  if (!numbers) {
    numbers = new Map();
    let next = Number(list.getAttribute("start")) || 1;
    for (const child of Array.from(list.children)) if (tagOf(child) === "li") numbers.set(child, next++);
    itemNumbers.set(list, numbers);
  }
  return numbers.get(item) ?? 1;
}

/**
 * Escapes text for markdown where it would otherwise turn into markup, and
 * nowhere else: turndown's default escapes every "_", "*", "[" and "\\",
 * which litters snake_case, "[1]" citations and Windows paths with
 * backslashes that readers (and language models) then see. CommonMark never
 * treats an intraword "_" or a "*" between spaces as emphasis, nor a "[x]"
 * without a following "(" as a link. Text that looks like HTML or an entity
 * is escaped too, so a renderer with HTML enabled cannot be fed markup.
 */
export function escapeMarkdownText(text: string): string {
  return text
    .replace(/\\(?=[!-/:-@[-`{-~])/g, "\\\\")
    .replace(/\*/g, (star, at: number) => (/\s/.test(text[at - 1] ?? " ") && /\s/.test(text[at + 1] ?? " ") ? star : "\\*"))
    .replace(/_/g, (underscore, at: number) =>
      /[\p{L}\p{N}]/u.test(text[at - 1] ?? "") && /[\p{L}\p{N}]/u.test(text[at + 1] ?? "") ? underscore : "\\_",
    )
    .replace(/`/g, "\\`")
    .replace(/\](?=[([:])/g, "\\]")
    .replace(/<(?=[a-z/!?])/gi, "\\<")
    .replace(/&(?=#?\w+;)/g, "\\&")
    .replace(/^(\s*)([-+>]|#{1,6}|=+|~~~)(?=\s|$)/, "$1\\$2")
    .replace(/^(\s*\d+)([.)])(?=\s|$)/, "$1\\$2");
}

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
    fence: "```",
    emDelimiter: "_",
    strongDelimiter: "**",
    hr: "---",
  });
  service.use([strikethrough, taskListItems]);
  service.escape = escapeMarkdownText;
  // "- item" and "1. item", nested content indented to the marker's width (turndown pads markers to four).
  service.addRule("listItem", {
    filter: "li",
    replacement: (content, node) => {
      const item = asElement(node);
      const parent = item.parentElement;
      const marker = parent && tagOf(parent) === "ol" ? `${itemNumber(parent, item)}. ` : "- ";
      const body = content
        .replace(/^\n+/, "")
        .replace(/\n+$/, "\n")
        .replace(/\n(?=.)/g, `\n${" ".repeat(marker.length)}`);
      return `${marker}${body.trimEnd()}${item.nextSibling ? "\n" : ""}`;
    },
  });
  service.addRule("codeBlock", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) => {
      const pre = asElement(node);
      const code = codeText(pre);
      if (!code.trim()) return "";
      const marks = fence(code);
      return `\n\n${marks}${codeLanguage(pre)}\n${code}\n${marks}\n\n`;
    },
  });
  service.addRule("tableCell", {
    filter: ["th", "td"],
    replacement: (content, node) => {
      const cell = asElement(node);
      const span = Math.max(1, Number(cell.getAttribute("colspan")) || 1);
      const prefix = cell.previousElementSibling ? " " : "| ";
      return `${prefix}${escapeCell(content)} |${" |".repeat(span - 1)}`;
    },
  });
  service.addRule("tableRow", {
    filter: "tr",
    replacement: (content, node) => {
      const row = asElement(node);
      const table = enclosingTable(row);
      if (!table) return content;
      const { headerRow, columns } = shapeOf(table);
      // GFM rows must all be as wide as the header.
      const padded = content.trim() + "   |".repeat(Math.max(0, columns - rowWidth(row)));
      const separator = headerRow === row ? `\n|${" --- |".repeat(columns)}` : "";
      return `\n${padded}${separator}`;
    },
  });
  service.addRule("tableSection", { filter: ["thead", "tbody", "tfoot"], replacement: (content) => content });
  // The caption goes above the table as its own paragraph; a line glued to the header row would join the table.
  service.addRule("tableCaption", { filter: ["caption", "colgroup", "col"], replacement: () => "" });
  service.addRule("table", {
    filter: "table",
    replacement: (content, node) => {
      const caption = asElement(node).querySelector("caption")?.textContent?.replace(/\s+/g, " ").trim();
      return `\n\n${caption ? `${service!.escape(caption)}\n\n` : ""}${content.replace(/\n{2,}/g, "\n").trim()}\n\n`;
    },
  });
  // Images without a usable source are noise in markdown.
  service.addRule("image", {
    filter: "img",
    replacement: (_content, node) => {
      const image = asElement(node);
      const src = image.getAttribute("src");
      if (!src) return "";
      const alt = (image.getAttribute("alt") ?? "").replace(/[[\]\n]/g, " ").trim();
      return `![${alt}](${src.replace(/[()\s]/g, encodeURIComponent)})`;
    },
  });
  service.remove([
    "script",
    "style",
    "noscript",
    "template",
    "iframe",
    "object",
    "embed",
    "button",
    "input",
    "select",
    "textarea",
    "svg",
  ] as TurndownService.TagName[]);
  return service;
}

let service: TurndownService | null = null;

export function renderMarkdown(root: DomElement): string {
  service ??= createService();
  const markdown = service.turndown(root as unknown as TurndownService.Node);
  return markdown.replace(/\n{3,}/g, "\n\n").trim();
}
