/**
 * Plain text from a content tree, laid out as a reader sees it: paragraphs
 * and headings separated by blank lines, list items and table rows on lines
 * of their own, table cells separated by tabs, <pre> kept verbatim. Inline
 * whitespace collapses as in a browser.
 */
import { type DomElement, type DomNode, isElement, isText, tagOf } from "./dom.ts";
import { HEADINGS, LIST_ITEMS, LISTS, TABLE_CELLS } from "./element-kinds.ts";

/** Blocks that stand as paragraphs. */
const PARAGRAPH_BLOCKS = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "aside",
  "nav",
  ...HEADINGS,
  ...LISTS,
  "table",
  "blockquote",
  "pre",
  "figure",
  "figcaption",
  "hr",
  "address",
  "details",
  "center",
  "form",
  "fieldset",
  "caption",
  "body",
  "html",
  "hgroup",
  "menu",
  "dialog",
]);
/** Blocks that take a line of their own inside a paragraph-level block. */
const LINE_BLOCKS = new Set([...LIST_ITEMS, "tr", "summary", "legend", "option"]);
const CELLS = new Set(TABLE_CELLS);

const LINE = "\u0000L";
const PARAGRAPH = "\u0000P";
const CELL = "\u0000T";
/** A space inside <pre>, protected from collapsing until the layout is done. */
const HARD_SPACE = "\u0001";

function breakBefore(tag: string): string | null {
  if (PARAGRAPH_BLOCKS.has(tag)) return PARAGRAPH;
  if (LINE_BLOCKS.has(tag)) return LINE;
  if (CELLS.has(tag)) return CELL;
  if (tag === "br") return LINE;
  return null;
}

/** A list inside a list item continues its parent list line by line, without blank lines. */
function isNestedList(element: DomElement): boolean {
  const tag = tagOf(element);
  return (tag === "ul" || tag === "ol") && element.parentElement !== null && tagOf(element.parentElement) === "li";
}

export function renderText(root: DomElement): string {
  const parts: string[] = [];
  let preDepth = 0;
  const enter = (element: DomElement) => {
    const tag = tagOf(element);
    const mark = isNestedList(element) ? LINE : breakBefore(tag);
    if (mark) parts.push(mark);
    if (tag === "pre") preDepth++;
  };
  const leave = (element: DomElement) => {
    const tag = tagOf(element);
    if (tag === "pre") preDepth--;
    if (isNestedList(element)) parts.push(LINE);
    else if (PARAGRAPH_BLOCKS.has(tag)) parts.push(PARAGRAPH);
    else if (LINE_BLOCKS.has(tag)) parts.push(LINE);
  };

  // Iterative walk with enter/leave, so depth costs no stack.
  let node: DomNode | null = root.firstChild;
  while (node) {
    if (isText(node))
      parts.push(preDepth > 0 ? node.data.replace(/\r?\n/g, LINE).replace(/[ \t]/g, HARD_SPACE) : node.data.replace(/\s+/g, " "));
    else if (isElement(node)) {
      enter(node);
      if (node.firstChild) {
        node = node.firstChild;
        continue;
      }
      leave(node);
    }
    while (node && !node.nextSibling) {
      node = node.parentNode;
      if (!node || node === root) {
        node = null;
        break;
      }
      if (isElement(node)) leave(node);
    }
    node = node?.nextSibling ?? null;
  }
  return layout(parts.join(""));
}

/** Resolves the break markers: the strongest break in a run wins; lines are trimmed. */
function layout(marked: string): string {
  const paragraphs: string[] = [];
  for (const paragraph of marked.split(PARAGRAPH)) {
    const lines: string[] = [];
    for (const line of paragraph.split(LINE)) {
      const cells = line.split(CELL).map((c) => c.replace(/ {2,}/g, " ").replace(/^ +| +$/g, ""));
      const text = cells.filter((c) => c !== "").join("\t");
      if (text !== "") lines.push(text);
    }
    if (lines.length > 0) paragraphs.push(lines.join("\n"));
  }
  return paragraphs.join("\n\n").replaceAll(HARD_SPACE, " ");
}
