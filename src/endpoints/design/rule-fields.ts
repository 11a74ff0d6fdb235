/**
 * The facts a prompt asks for, as an output_format. The enumeration after
 * an asking verb ("find", "list", "give me", "tell me", ":", a question) is
 * split into items; "with their ticket prices and opening hours" after a
 * list turns its rows into objects. Subjects and defaults are blanked out of
 * the text beforehand, so "the capital of a country" asks for the capital.
 */
import type { OutputShape } from "../../research/output-format.ts";
import { readItem, type Field } from "./rule-field-item.ts";

export interface FieldReading {
  /** The asked-for fields, in the prompt's order; empty when nothing specific is asked. */
  fields: Record<string, OutputShape>;
  /** Whether a summary, description or explanation was asked for. */
  summary: boolean;
  /** What "summarize …" or "tell me about …" names: the title when no subject does. */
  topic: string;
}

const L = "(?<![\\p{L}\\p{N}_'])";
const R = "(?![\\p{L}\\p{N}_])";
const SUMMARY_VERBS = "summari[sz]e|describe|explain|r[ée]sume|resumir|zusammenfassen|beschreibe|d[ée]cris|describe";
const ASK_VERBS =
  "compare|comparing|find out|find|get(?: me)?|return|(?<!(?:a|the) )list|extract|give(?: me| us)?|tell(?: me| us)?|include|provide|show(?: me)?|identify|determine|collect|gather|retrieve|fetch|look up|report|compile|output|know|i need|we need|i want|i'd like|i would like|" +
  "finde|finden|gib|nenne|liste|ermittle|suche|zeige|trouve|trouver|donne|donner|indique|retourne|renvoie|encuentra|encontrar|busca|dame|lista|indica|devuelve|obtener";
const TRIGGER = new RegExp(`${L}(?:(${SUMMARY_VERBS})|(?:${ASK_VERBS}))${R}|:(?=\\s)`, "gu");
const QUESTION = new RegExp(`^\\s*(?:what|what's|who|when|where|which|how many|how much|is|are|does|do|can|was|were|quel(?:le)?s?|qui|combien|wer|welche[rsn]?|wie viele|cu[aá]l(?:es)?|qui[eé]n|cu[aá]nt[oa]s)${R}`, "u");
const ITEM_SPLIT = /\s*(?:[,;&]|(?<![\p{L}])(?:and|as well as|plus|also|und|sowie|et|y)(?![\p{L}]))\s*/u;
// "with their prices" always describes the thing before it; a bare "with" or "and their" only after a list.
const ROWS = /(?<![\p{L}])(?:(?:along |together )?with (?:their|its|his|her|the)|including (?:their|its|his|her)|and their|including|with)(?![\p{L}])/gu;
const FILTER_AFTER_WITH = /^\s*(?:more|less|fewer|over|under|at|a|an|no|than|\d)/;
// Rows that are works are known by their title; everything else by its name.
const TITLED = new Set("paper article book movie film song album episode video post headline publication show podcast study".split(" "));
const MAX_FIELDS = 40;
const MAX_ROW_FIELDS = 25;

function items(text: string): string[] {
  return text
    .split(ITEM_SPLIT)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Fields of one enumeration, nesting the part after "with their" under the thing before it. */
function readEnumeration(text: string, subject: Set<string>, out: Map<string, OutputShape>): void {
  for (const m of text.matchAll(ROWS)) {
    const head = items(text.slice(0, m.index));
    const owner = head.length ? readItem(head[head.length - 1]!, subject, "top") : null;
    if (!owner) continue;
    const after = text.slice(m.index + m[0].length);
    const strong = /their|its|his|her|the$/.test(m[0]) && !m[0].startsWith("and");
    if ((!strong && !owner.collection) || (m[0] === "with" && FILTER_AFTER_WITH.test(after))) continue;
    for (const item of head.slice(0, -1)) add(out, readItem(item, subject, "top"));
    // ", and the main competitors" ends the rows; ", and whether they are open" still speaks of each row.
    const end = /,\s*and\s+(?!(?:whether|if|their|its|each|they|how)\b)/.exec(after);
    const row = new Map<string, OutputShape>();
    for (const item of items(end ? after.slice(0, end.index) : after)) if (row.size < MAX_ROW_FIELDS) add(row, readItem(item, subject, owner.collection ? "row" : "top"));
    const identity = TITLED.has(owner.head) ? "title" : "name";
    const shape = Object.fromEntries([...(row.has(identity) ? [] : [[identity, "string"]]), ...row]) as Record<string, OutputShape>;
    add(out, row.size ? { ...owner, shape: owner.collection ? [shape] : shape } : owner);
    if (end) for (const item of items(after.slice(end.index + end[0].length))) add(out, readItem(item, subject, "top"));
    return;
  }
  for (const item of items(text)) add(out, readItem(item, subject, "top"));
}

function add(out: Map<string, OutputShape>, field: Field | null): void {
  if (field && !out.has(field.name) && out.size < MAX_FIELDS) out.set(field.name, field.shape);
}

/** The fields a prompt asks for; `text` is lowercased, with subjects and defaults blanked. */
export function readFields(text: string, subject: Set<string>): FieldReading {
  const out = new Map<string, OutputShape>();
  let summary = false;
  let topic = "";
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const marks = [...sentence.matchAll(TRIGGER)];
    const regions: { text: string; summary: boolean }[] = [];
    if (QUESTION.test(sentence)) regions.push({ text: sentence.slice(0, marks[0]?.index ?? sentence.length), summary: false });
    marks.forEach((m, i) => regions.push({ text: sentence.slice(m.index + m[0].length, marks[i + 1]?.index ?? sentence.length), summary: Boolean(m[1]) }));
    for (const region of regions) {
      const body = region.text.replace(/[.!?]+\s*$/, "").trim();
      // "summarize the latest developments" names a topic; "describe its history and culture" names fields.
      if (region.summary && !/^(?:its|their|his|her)\b/.test(body)) {
        summary = true;
        topic ||= body.replace(/^(?:the|a|an)\s+/, "");
        continue;
      }
      const about = /^\s*about\s+(?!(?:its|their|his|her)\b)(.+)$/.exec(body);
      if (about) topic ||= about[1]!;
      readEnumeration(body, subject, out);
    }
  }
  return { fields: Object.fromEntries(out), summary, topic: topic.replace(/\s+/g, " ").trim() };
}
