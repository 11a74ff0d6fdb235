/**
 * The answer bench's development set (bench/data/answers/*.json): questions a
 * person would ask about pages of ../shared/data, each with the answer the
 * page states word for word. Plain questions expect a fact in the answer
 * text; structured ones send an output_format and expect each field's value.
 *
 * A question is only fair if what it expects is in the text the service
 * reads from its page, so the set is checked against our own extractor's
 * output before anything is measured (`checkAnswerSet`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { extractDocument } from "../../src/contents/extract/index.ts";
import { sharedPath } from "../../test/helpers/shared.ts";

export type PageSet = "extraction-eval" | "extraction-dev";

/** A page of the shared data: an eval page's file name under pages/, or a dev page's folder name. */
export interface PageRef {
  set: PageSet;
  file: string;
}

/** What a plain question asks for, so failures can be counted by kind. */
export type AnswerKind = "person" | "place" | "organisation" | "date" | "number" | "measure" | "money" | "definition" | "reason" | "other";

interface Common {
  id: string;
  /** "dev" questions may be looked at while tuning; "holdout" ones only measured. */
  split: "dev" | "holdout";
  page: PageRef;
  prompt: string;
}

export interface PlainQuestion extends Common {
  /** Acceptable answers; the answer is right when its text holds any of them (case and spacing aside). Each is in the page. */
  expected: string[];
  /** The page's words (a sentence or part of one) that state the answer, verbatim. */
  evidence: string;
  kind: AnswerKind;
}

/**
 * `expected` has output_format's shape. A leaf is: a string or a list of
 * acceptable strings (the first verbatim in the page) for "string"; a number
 * for "number"/"integer"; a boolean; null where the page does not say. A list
 * of objects expects the listed objects, in any order, among those answered.
 */
export interface StructuredQuestion extends Common {
  output_format: Record<string, unknown>;
  expected: Record<string, unknown>;
  /** Per top-level field with a non-null answer: the page's words that state it, verbatim. */
  evidence: Record<string, string>;
}

export interface AnswerSet {
  plain: PlainQuestion[];
  structured: StructuredQuestion[];
}

export const ANSWER_SET_DIR = fileURLToPath(new URL("../data/answers/", import.meta.url));

export function loadAnswerSet(dir = ANSWER_SET_DIR): AnswerSet {
  const set: AnswerSet = { plain: [], structured: [] };
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort()) {
    const file = JSON.parse(readFileSync(join(dir, name), "utf8")) as { plain?: PlainQuestion[]; structured?: StructuredQuestion[] };
    set.plain.push(...(file.plain ?? []));
    set.structured.push(...(file.structured ?? []));
  }
  return set;
}

let evalUrls: Map<string, string> | null = null;

/** The address a page is served at: an eval page's own URL, a dev page's under a made-up host. */
export function pageUrl(page: PageRef): string {
  if (page.set === "extraction-dev") return `https://${page.file.toLowerCase().replace(/[^a-z0-9-]+/g, "-")}.readability.test/`;
  if (!evalUrls) {
    const data = JSON.parse(readFileSync(sharedPath("data", "extraction-eval", "evaldata.json"), "utf8")) as Record<
      string,
      { file: string }
    >;
    evalUrls = new Map(Object.entries(data).map(([url, v]) => [v.file, url]));
  }
  const url = evalUrls.get(page.file);
  if (!url) throw new Error(`${page.file} is not in extraction-eval/evaldata.json`);
  return url;
}

export function pageBytes(page: PageRef): Uint8Array {
  const path =
    page.set === "extraction-dev"
      ? sharedPath("data", "extraction-dev", page.file, "source.html")
      : sharedPath("data", "extraction-eval", "pages", page.file);
  return new Uint8Array(readFileSync(path));
}

/** Lowercase, curly quotes and dashes made plain, whitespace collapsed: how answers and pages are compared. */
export function normalise(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/\u00a0/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

const pageTexts = new Map<string, string>();

/** The page's text as our extractor reads it, normalised. */
export async function pageText(page: PageRef): Promise<string> {
  const key = `${page.set}/${page.file}`;
  const known = pageTexts.get(key);
  if (known !== undefined) return known;
  const doc = await extractDocument({ body: pageBytes(page), contentType: "text/html", url: pageUrl(page) });
  const text = normalise(`${doc.title ?? ""}\n${doc.text}`);
  pageTexts.set(key, text);
  return text;
}

/** Every problem with the set: a missing page, an answer not in its page's text, a malformed entry, a repeated id. */
export async function checkAnswerSet(set: AnswerSet): Promise<string[]> {
  const problems: string[] = [];
  const ids = new Set<string>();
  const all = [...set.plain, ...set.structured];
  for (const q of all) {
    if (ids.has(q.id)) problems.push(`${q.id}: repeated id`);
    ids.add(q.id);
    if (q.split !== "dev" && q.split !== "holdout") problems.push(`${q.id}: split must be "dev" or "holdout"`);
    if (!q.prompt?.trim()) problems.push(`${q.id}: empty prompt`);
  }
  for (const q of set.plain) {
    const text = await readable(q, problems);
    if (text === null) continue;
    if (!Array.isArray(q.expected) || q.expected.length === 0) problems.push(`${q.id}: expected must be a non-empty list`);
    if (!text.includes(normalise(q.evidence ?? ""))) problems.push(`${q.id}: evidence is not in the page text`);
    const evidence = normalise(q.evidence ?? "");
    if (!q.expected.some((e) => evidence.includes(normalise(e)))) problems.push(`${q.id}: no expected answer is inside the evidence`);
    for (const e of q.expected) if (!text.includes(normalise(e))) problems.push(`${q.id}: expected "${e}" is not in the page text`);
    if (normalise(q.prompt).includes(normalise(q.evidence))) problems.push(`${q.id}: the prompt copies the evidence`);
  }
  for (const q of set.structured) {
    const text = await readable(q, problems);
    if (text === null) continue;
    if (!q.output_format || typeof q.output_format !== "object") problems.push(`${q.id}: output_format must be an object`);
    for (const field of Object.keys(q.expected ?? {})) {
      if (!(field in (q.output_format ?? {}))) problems.push(`${q.id}: expected field ${field} is not in output_format`);
      if (q.expected[field] === null) continue;
      const evidence = q.evidence?.[field];
      if (!evidence) problems.push(`${q.id}: no evidence for ${field}`);
      else if (!text.includes(normalise(evidence))) problems.push(`${q.id}: evidence for ${field} is not in the page text`);
      for (const s of leafStrings(q.expected[field]))
        if (!text.includes(normalise(s))) problems.push(`${q.id}: ${field} "${s}" is not in the page text`);
    }
    for (const field of Object.keys(q.output_format ?? {}))
      if (!(field in (q.expected ?? {}))) problems.push(`${q.id}: output_format field ${field} has no expected value`);
  }
  return problems;
}

/** The strings a leaf expects that must be verbatim: the first of a list of alternatives, every string inside objects and lists. */
function leafStrings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === "string")) return value.length ? [value[0] as string] : [];
    return value.flatMap(leafStrings);
  }
  if (value && typeof value === "object") return Object.values(value).flatMap(leafStrings);
  return [];
}

async function readable(q: Common, problems: string[]): Promise<string | null> {
  try {
    return await pageText(q.page);
  } catch (error) {
    problems.push(`${q.id}: page ${q.page?.set}/${q.page?.file} cannot be read (${(error as Error).message})`);
    return null;
  }
}
