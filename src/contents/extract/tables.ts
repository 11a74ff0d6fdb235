/**
 * Tables come in two kinds: data tables, which should stay tables (GFM in
 * markdown, tab-separated rows in text), and layout tables, which only
 * position content and should read as the blocks they hold. Both outputs are
 * derived from the tree after this pass, so it decides once for all.
 */
import { type DomElement, isElement, isText, tagOf } from "./dom.ts";
import { HEADINGS, LIST_ITEMS, LISTS, TABLE_CELLS } from "./element-kinds.ts";

const TABLE_STRUCTURE = new Set(["table", "thead", "tbody", "tfoot", "tr"]);
const CELL = new Set(TABLE_CELLS);
/** Blocks that cannot live in a GFM cell; their content is kept, separated by line breaks. */
const CELL_BLOCKS = new Set([
  "p",
  "div",
  ...LISTS,
  ...LIST_ITEMS,
  ...HEADINGS,
  "blockquote",
  "pre",
  "section",
  "article",
  "header",
  "footer",
  "figure",
  "figcaption",
  "center",
  "form",
]);

/** The rows that belong to `table` itself, not to a table nested in it. */
export function ownRows(table: DomElement): DomElement[] {
  return Array.from(table.getElementsByTagName("tr")).filter((row) => closestTable(row) === table);
}

export function ownCells(row: DomElement): DomElement[] {
  return Array.from(row.children).filter((cell) => CELL.has(tagOf(cell)));
}

function closestTable(element: DomElement): DomElement | null {
  for (let node = element.parentElement; node; node = node.parentElement) if (tagOf(node) === "table") return node;
  return null;
}

const textLength = (element: DomElement) => (element.textContent ?? "").replace(/\s+/g, " ").trim().length;

/** Readability's test, roughly: structure that only data tables use, else shape and cell size. */
export function isDataTable(table: DomElement): boolean {
  const role = table.getAttribute("role");
  if (role === "presentation" || role === "none" || table.getAttribute("datatable") === "0") return false;
  if (Array.from(table.getElementsByTagName("table")).length > 0) return false;
  const rows = ownRows(table);
  let columns = 0;
  for (const row of rows)
    columns = Math.max(
      columns,
      ownCells(row).reduce((n, cell) => n + Math.max(1, Number(cell.getAttribute("colspan")) || 1), 0),
    );
  if (rows.length === 0 || columns === 0) return false;
  if (table.getAttribute("summary") || table.querySelector("caption, thead, th, colgroup")) return columns > 1 || rows.length > 1;
  if (rows.length === 1 || columns === 1) return false;
  const cells = rows.flatMap(ownCells);
  const averageCell = cells.reduce((sum, cell) => sum + textLength(cell), 0) / Math.max(1, cells.length);
  return averageCell <= 200;
}

/** Replaces a layout table with its cells' contents, one block per cell. */
function unwrapLayoutTable(table: DomElement): void {
  const document = table.ownerDocument;
  const blocks: DomElement[] = [];
  for (const row of ownRows(table)) {
    for (const cell of ownCells(row)) {
      const block = document.createElement("div");
      while (cell.firstChild) block.appendChild(cell.firstChild);
      blocks.push(block);
    }
  }
  // A caption of a layout table is a heading-like line; keep it first.
  const caption = Array.from(table.children).find((child) => tagOf(child) === "caption");
  if (caption) {
    const block = document.createElement("p");
    while (caption.firstChild) block.appendChild(caption.firstChild);
    blocks.unshift(block);
  }
  table.replaceWith(...blocks);
}

/** Cells hold one line of inline content in GFM: blocks become line breaks. */
function flattenCell(cell: DomElement): void {
  const document = cell.ownerDocument;
  for (const block of Array.from(cell.querySelectorAll("*")).reverse()) {
    if (!CELL_BLOCKS.has(tagOf(block))) continue;
    const parts: (DomElement | string)[] = [];
    if (block.previousSibling) parts.push(document.createElement("br"));
    while (block.firstChild) {
      const child = block.firstChild;
      block.removeChild(child);
      parts.push(child as DomElement);
    }
    block.replaceWith(...(parts as DomElement[]));
  }
}

/** Whitespace text between rows and cells is not content, and confuses column counting. */
function dropStructuralWhitespace(table: DomElement): void {
  for (const element of [table, ...Array.from(table.querySelectorAll("thead, tbody, tfoot, tr"))]) {
    for (const child of Array.from(element.childNodes)) if (isText(child) && child.data.trim() === "") child.remove();
  }
}

/** Normalises every table under `root`, innermost first. */
export function normaliseTables(root: DomElement): void {
  const tables = Array.from(root.getElementsByTagName("table")).reverse();
  for (const table of tables) {
    if (!table.parentNode) continue;
    if (!isDataTable(table)) {
      unwrapLayoutTable(table);
      continue;
    }
    dropStructuralWhitespace(table);
    for (const row of ownRows(table)) for (const cell of ownCells(row)) flattenCell(cell);
    // Stray non-structural children of table parts (text, divs between rows) cannot be rendered in GFM.
    for (const part of [table, ...Array.from(table.querySelectorAll("thead, tbody, tfoot, tr"))]) {
      for (const child of Array.from(part.childNodes)) {
        if (
          isElement(child) &&
          (TABLE_STRUCTURE.has(tagOf(child)) || CELL.has(tagOf(child)) || ["caption", "colgroup", "col"].includes(tagOf(child)))
        )
          continue;
        if (isText(child) || isElement(child)) child.remove();
      }
    }
  }
}
