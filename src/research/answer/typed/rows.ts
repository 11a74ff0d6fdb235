/**
 * Lists of objects read from rows: runs of lines that share one layout, which
 * the sentence splitter cuts apart or reads as one run-on sentence. Four
 * layouts are read:
 *
 * - numbered: "1. Finland", "2. Norway" (a rank and a name);
 * - measured: "2 tablespoons vegetable oil", "250 g minced lamb" (a quantity and a name);
 * - table: "apache_builds 2.3 GB/s 0.098 GB/s" (a name and the same count of numbers on every row);
 * - dated: "Groundhog Day 1993 Self-centered weatherman…" (a title, a year, a description).
 *
 * A run is used only where its surroundings (the line or two before it, the
 * lines after, its heading, its page's title) name the list's field; its item
 * fields' names and the prompt's words for it then rank the runs that do. A
 * table about something else is no answer. Every value is a verbatim piece of its row, and the row is
 * what is cited.
 */
import type { OutputShape } from "../../output-format.ts";
import type { EvidenceSource } from "../../types.ts";
import { termsOf } from "../evidence.ts";
import { hasTerm, nameWords, type FieldQuery } from "./fields.ts";
import { numberMentions } from "../values.ts";

export interface RowsFound {
  objects: Record<string, unknown>[];
  /** The rows the objects were read from, by source: what is cited. */
  rows: { sourceId: number; text: string }[];
}

type Layout = "numbered" | "measured" | "table" | "dated";

interface Row {
  text: string;
  /** The item's name as the row writes it. */
  name: string;
  ordinal?: number;
  quantity?: string;
  numbers: number[];
  year?: number;
}

const MIN_ROWS = 2;
const MAX_ROWS = 50;
const FRACTION = "[¼½¾⅓⅔⅛]";
const AMOUNT = `(?:\\d+(?:[.,/]\\d+)?${FRACTION}?|${FRACTION})`;
const UNIT =
  "(?:tablespoons?|tbsps?|teaspoons?|tsps?|cups?|kg|g|mg|ml|l|oz|lbs?|pounds?|grams?|kilograms?|litres?|liters?|cubes?|cloves?|pinch(?:es)?|cans?|jars?|slices?|pieces?|sticks?|packets?|bunch(?:es)?|large|medium|small)";
const MEASURED = new RegExp(`^(${AMOUNT}(?:\\s*${UNIT}\\.?)?(?:\\s+or\\s+${AMOUNT}\\s*${UNIT}\\.?)?)\\s+(\\p{L}.*)$`, "iu");
// "1. Finland", "2) Norway", and the "1\. Finland" of text converted from markdown.
const NUMBERED = /^(\d{1,3})\\?[.)]\s+(\p{L}.*)$/u;
const DATED = /^(\p{Lu}[^.!?]{0,80}?)\s+((?:1[89]|20)\d\d)\s+(\p{Lu}.*)$/u;
// What a page's links and footnotes leave between rows: "](https://…#cite_note-14)", the tail of a split address.
const DEBRIS = /^(?:\]\(|\[\d+\]$|\^|[\w.-]+\/\S*$)/u;
const RANK_FIELD = /^(?:rank|ranking|position|place|no|number|order|spot)$/;
const QUANTITY_FIELD = /^(?:quantity|amount|qty|measure|measurement)$/;
const YEAR_FIELD = /^(?:year|released|release|date)$/;

/**
 * Objects for a list field from the best run of rows whose surroundings name
 * it, or null when no run does.
 */
export function rowObjects(itemShape: { [field: string]: OutputShape }, field: FieldQuery, sources: EvidenceSource[]): RowsFound | null {
  const itemWords = Object.keys(itemShape).flatMap(nameWords);
  let best: { rows: Row[]; sourceId: number; score: number; header: string; layout: Layout; siblings: Row[][] } | null = null;
  for (const [rank, source] of sources.entries()) {
    const lines = source.passages.flatMap((p) =>
      p.text
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !DEBRIS.test(l))
        .map((text) => ({ text, heading: p.heading ?? "" })),
    );
    const found = runs(lines.map((l) => l.text));
    for (const run of found) {
      const around = [
        ...lines.slice(Math.max(0, run.start - 2), run.start).map((l) => l.text),
        ...lines.slice(run.end, run.end + 2).map((l) => l.text),
        lines[run.start]!.heading,
        source.title,
      ].join(" ");
      const aroundTerms = { text: around, terms: termsOf(around) };
      const names = (terms: string[]) => terms.filter((t) => hasTerm(aroundTerms, [t])).length;
      // The list's own words count most; its items' field names and the prompt's words for it a little.
      const score =
        (names(field.terms) * 2 + names(itemWords) + names(field.clause ?? [])) * fit(run.layout, itemShape) * (1 / (1 + rank * 0.2));
      // The list must be named: its items' field names ("film", "actor") fit too many tables.
      if (names(field.terms) === 0) continue;
      if (!best || score > best.score) {
        // One list cut apart by a page's passages or debris is still one list: the source's other runs of its layout join it.
        const width = run.rows[0]!.numbers.length;
        const siblings = found.filter((r) => r.layout === run.layout && r.rows[0]!.numbers.length === width).map((r) => r.rows);
        best = {
          rows: run.rows,
          sourceId: source.id,
          score,
          header: run.start > 0 ? lines[run.start - 1]!.text : "",
          layout: run.layout,
          siblings,
        };
      }
    }
  }
  if (!best || best.score === 0) return null;
  const order = numberOrder(itemShape, best.header);
  const rows = best.siblings
    .flat()
    .filter((row, i, all) => all.findIndex((r) => r.name === row.name) === i)
    .slice(0, MAX_ROWS);
  const objects = rows.map((row) => fillRow(row, itemShape, order));
  return { objects, rows: rows.map((r) => ({ sourceId: best.sourceId, text: r.text })) };
}

/** Runs of at least two consecutive lines of one layout. */
function runs(lines: string[]): { start: number; end: number; layout: Layout; rows: Row[] }[] {
  const out: { start: number; end: number; layout: Layout; rows: Row[] }[] = [];
  for (let i = 0; i < lines.length; ) {
    let taken = 0;
    for (const layout of ["numbered", "measured", "dated", "table"] as const) {
      const rows: Row[] = [];
      let j = i;
      while (j < lines.length) {
        const row = readRow(lines[j]!, layout);
        if (!row || (layout === "table" && rows.length && row.numbers.length !== rows[0]!.numbers.length)) break;
        rows.push(row);
        j++;
      }
      if (rows.length >= MIN_ROWS) {
        out.push({ start: i, end: j, layout, rows });
        taken = j - i;
        break;
      }
    }
    i += Math.max(1, taken);
  }
  return out;
}

function readRow(line: string, layout: Layout): Row | null {
  switch (layout) {
    case "numbered": {
      const m = NUMBERED.exec(line);
      // A numbered step ("1. Pick the next unused connection and…") is prose, not a named item.
      if (!m || termsOf(m[2]!).length > 8 || /[.!?]$/.test(m[2]!.trim())) return null;
      return { text: line, name: cleanName(m[2]!), ordinal: Number(m[1]), numbers: [] };
    }
    case "measured": {
      const m = MEASURED.exec(line);
      if (!m || line.length > 100) return null;
      return { text: line, name: cleanName(m[2]!), quantity: m[1]!, numbers: [] };
    }
    case "dated": {
      const m = DATED.exec(line);
      if (!m) return null;
      return { text: line, name: m[1]!.trim(), year: Number(m[2]), numbers: [] };
    }
    case "table": {
      // A name (its first token not a number) and then numbers with their units: "gsoc-2018 3.3 GB/s 0.091 GB/s".
      if (line.length > 120 || /[.!?]$/.test(line)) return null;
      const firstNumber = /\s(?=[-−]?\$?\d)/.exec(line);
      if (!firstNumber || firstNumber.index === 0) return null;
      const name = line.slice(0, firstNumber.index).trim();
      const rest = line.slice(firstNumber.index);
      const numbers = numberMentions(rest).map((n) => n.value);
      if (numbers.length === 0 || termsOf(name).length > 8 || rest.trim().split(/\s+/).length > numbers.length * 3) return null;
      return { text: line, name: cleanName(name), numbers };
    }
  }
}

/** A name without what trails it: ", chopped", ":" or a closing bracket. */
function cleanName(raw: string): string {
  return raw
    .split(/,\s|\s[–—-]\s|:\s?/u)[0]!
    .replace(/[\s.;:]+$/u, "")
    .trim();
}

/** How well a layout fits the item's fields: a quantity field wants measured rows, a rank numbered ones. */
function fit(layout: Layout, shape: { [field: string]: OutputShape }): number {
  const fields = Object.entries(shape).map(([name, type]) => ({ words: nameWords(name), type }));
  const wants = (re: RegExp) => fields.some((f) => f.words.some((w) => re.test(w)));
  const numbers = fields.filter((f) => f.type === "number" || f.type === "integer").length;
  switch (layout) {
    case "numbered":
      return wants(RANK_FIELD) ? 2 : 1;
    case "measured":
      return wants(QUANTITY_FIELD) ? 2 : 0.5;
    case "dated":
      return wants(YEAR_FIELD) ? 2 : 0.5;
    case "table":
      return numbers > 0 ? 1.5 : 0.5;
  }
}

/**
 * Which of a row's numbers each number field takes: by where the field's
 * words stand in the header line ("file simdjson JSON for Modern C++"), or
 * else in the order the fields are given.
 */
function numberOrder(shape: { [field: string]: OutputShape }, header: string): string[] {
  const numeric = Object.entries(shape)
    .filter(
      ([name, type]) => (type === "number" || type === "integer") && !nameWords(name).some((w) => RANK_FIELD.test(w) || YEAR_FIELD.test(w)),
    )
    .map(([name]) => name);
  const lower = header.toLowerCase();
  const at = (name: string) => {
    const found = nameWords(name)
      .filter((w) => w.length > 2)
      .map((w) => lower.indexOf(w))
      .filter((i) => i >= 0);
    return found.length ? Math.min(...found) : Infinity;
  };
  return [...numeric].sort((a, b) => {
    const [x, y] = [at(a), at(b)];
    return x === y ? numeric.indexOf(a) - numeric.indexOf(b) : x - y;
  });
}

function fillRow(row: Row, shape: { [field: string]: OutputShape }, order: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let named = false;
  for (const [name, type] of Object.entries(shape)) {
    const words = nameWords(name);
    let value: unknown = null;
    if (type === "integer" || type === "number") {
      if (words.some((w) => RANK_FIELD.test(w))) value = row.ordinal ?? null;
      else if (words.some((w) => YEAR_FIELD.test(w))) value = row.year ?? null;
      else {
        const n = row.numbers[order.indexOf(name)];
        value = n === undefined || (type === "integer" && !Number.isInteger(n)) ? null : n;
      }
    } else if (type === "string") {
      if (words.some((w) => QUANTITY_FIELD.test(w))) value = row.quantity ?? null;
      else if (words.some((w) => YEAR_FIELD.test(w))) value = row.year === undefined ? null : String(row.year);
      else if (!named) {
        value = row.name;
        named = true;
      }
    }
    out[name] = value;
  }
  return out;
}
