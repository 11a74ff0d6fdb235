/**
 * The facts a prompt asks for, as an output_format. The enumeration after
 * an asking verb ("find", "list", "give me", "tell me", ":", a question) is
 * split into items; "with their ticket prices and opening hours" after a
 * list turns its rows into objects. Subjects and defaults are blanked out of
 * the text beforehand, so "the capital of a country" asks for the capital.
 */
import type { OutputShape } from "../../../research/output-format.ts";
import { isStopword } from "../../../terms.ts";
import type { Field } from "./field.ts";
import { readItem } from "./field-item.ts";
import { asSeries, periodOf } from "./series.ts";

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
const SUMMARY_VERBS = "summari[sz]e|describe|explain|r[ée]sume|resumir|zusammenfassen|beschreibe|d[ée]cris";
const ASK_VERBS =
  "compare|comparing|find out|find|get(?: me)?|return|(?<!(?:a|the) )list|extract|give(?: me| us)?|tell(?: me| us)?|include|provide|show(?: me)?|identify|determine|collect|gather|retrieve|fetch|look up|report|compile|output|know|check|verify|i need|we need|i want|i'd like|i would like|" +
  "finde|finden|gib|nenne|liste|ermittle|suche|zeige|trouve|trouver|donne|donner|indique|retourne|renvoie|encuentra|encontrar|busca|dame|lista|indica|devuelve|obtener";
// "Takes a company name and returns their ESG score": the endpoint described in the third person. Only before
// what starts a noun phrase or a question, since "annual returns" and "price lists" are facts, not verbs.
const SUMMARY_VERBS_3RD = "summari[sz]es|describes|explains";
const ASK_VERBS_3RD =
  "returns|gives|lists|finds|provides|outputs|fetches|retrieves|extracts|tells(?: me| us)?|gets|looks up|checks|verifies";
const NOUN_PHRASE_NEXT = `(?=\\s+(?:(?:the|a|an|its|their|his|her|all|each|every|whether|if|how|what|who|when|where|which|me|us)(?![\\p{L}])|\\d))`;
// "I give you" is not an ask: a verb right after a pronoun is the speaker talking. Nor is "Context: …".
const TRIGGER = new RegExp(
  `${L}(?:(?<!(?:^|\\s)(?:i|you|we|they|it) )(?:(${SUMMARY_VERBS})|(?:${ASK_VERBS}))|(?:(${SUMMARY_VERBS_3RD})|(?:${ASK_VERBS_3RD}))${NOUN_PHRASE_NEXT})${R}|(?<!(?:context|notes?|background|examples?|fyi|ps|edit|update)):(?=\\s)`,
  "gu",
);
// A sentence that is a question asks from its first word; "What I'd love is…" is not one.
const QUESTION = new RegExp(
  `^\\s*(?:(?:what|who|when|where|which|quel(?:le)?s?|qui|wer|welche[rsn]?|cu[aá]l(?:es)?|qui[eé]n)(?=['’]s|\\s+(?:is|are|was|were|does|do|did|can|has|have|est|sont|ist|sind|es|son)${R}|.*\\?\\s*$)|how many|how much|wie viele|combien|cu[aá]nt[oa]s|(?:is|are|does|do|can|was|were)(?=.*\\?\\s*$))${R}`,
  "u",
);
const ITEM_SPLIT = /\s*(?:[,;&]|(?<![\p{L}])(?:and|as well as|plus|also|und|sowie|et|y)(?![\p{L}]))\s*/u;
// "with their prices" always describes the thing before it; a bare "with" or "and their" only after a list.
const ROWS =
  /(?<![\p{L}])(?:(?:along |together )?with (?:their|its|his|her|the)|including (?:their|its|his|her)|and their|including|with)(?![\p{L}])/gu;
const FILTER_AFTER_WITH = /^\s*(?:more|less|fewer|over|under|at|a|an|no|than|\d)/;
// Rows that are works are known by their title; everything else by its name.
const TITLED = new Set("paper article book movie film song album episode video post headline publication show podcast study".split(" "));
const OPPOSITES =
  "high|low|highest|lowest|min|max|minimum|maximum|opening|closing|start|end|first|last|best|worst|upper|lower|buy|sell|bid|ask|daytime|nighttime|peak|off-peak|home|away|import|export";
const SHARED_NOUN = new RegExp(`(?<![\\p{L}])(${OPPOSITES}) (?:and|&|/) (${OPPOSITES}) (\\p{L}[\\p{L}\\p{N}-]*)`, "gu");
const STANDALONE = new Set(["high", "low"]);
const MAX_FIELDS = 40;
const MAX_ROW_FIELDS = 25;

/**
 * "minimum and maximum price" → "minimum price and maximum price": two opposite modifiers sharing a
 * noun ask for two values. "High" and "low" are nouns of their own ("the day's high"), so
 * "high and low temperatures" asks for the high and the low.
 */
function shareNoun(text: string): string {
  return text.replace(SHARED_NOUN, (whole, a: string, b: string, noun: string) =>
    isStopword(noun) ? whole : STANDALONE.has(a) && STANDALONE.has(b) ? `${a} and ${b}` : `${a} ${noun} and ${b} ${noun}`,
  );
}

function items(text: string): string[] {
  return shareNoun(text)
    .split(ITEM_SPLIT)
    .map((s) => s.trim())
    .filter(Boolean);
}

interface Reading {
  out: Map<string, OutputShape>;
  /** The last list asked for: "give me their names and prices" later describes its rows. */
  list: { name: string; identity: string } | null;
}

/** A row shape for `list`, made from the fields `texts` ask for. */
function addRows(reading: Reading, texts: string[], subject: Set<string>): boolean {
  const list = reading.list;
  const current = list && reading.out.get(list.name);
  if (!list || !Array.isArray(current)) return false;
  const row = new Map<string, OutputShape>(
    typeof current[0] === "object" && !Array.isArray(current[0]) ? Object.entries(current[0]) : [[list.identity, "string"]],
  );
  for (const text of texts) if (row.size < MAX_ROW_FIELDS) add(row, readItem(text, subject, "row"));
  reading.out.set(list.name, [Object.fromEntries(row) as Record<string, OutputShape>]);
  return true;
}

/** Fields of one enumeration, nesting the part after "with their" under the thing before it. */
function readEnumeration(text: string, subject: Set<string>, reading: Reading): void {
  const out = reading.out;
  if (out.size >= MAX_FIELDS || (/^\s*their\b/.test(text) && addRows(reading, items(text), subject))) return;
  // Only the first few "with"s can start rows: beyond them a prompt is a list of filters, and the rules stay linear.
  for (const m of [...text.matchAll(ROWS)].slice(0, 3)) {
    const head = items(text.slice(0, m.index));
    const owner = head.length ? readItem(head[head.length - 1]!, subject, "top") : null;
    if (!owner) continue;
    const after = text.slice(m.index + m[0].length);
    const strong = /their|its|his|her|the$/.test(m[0]) && !m[0].startsWith("and");
    if ((!strong && !owner.collection) || (m[0] === "with" && FILTER_AFTER_WITH.test(after))) continue;
    for (const item of head.slice(0, -1)) add(out, readItem(item, subject, "top"), reading);
    // ", and the main competitors" ends the rows; ", and whether they are open" still speaks of each row.
    const end = /,\s*and\s+(?!(?:whether|if|their|its|each|they|how)\b)/.exec(after);
    const row = new Map<string, OutputShape>();
    for (const item of items(end ? after.slice(0, end.index) : after))
      if (row.size < MAX_ROW_FIELDS) add(row, readItem(item, subject, owner.collection ? "row" : "top"));
    const [identity, type] = owner.key ?? [TITLED.has(owner.head) ? "title" : "name", "string"];
    const shape = Object.fromEntries([...(row.has(identity) ? [] : [[identity, type]]), ...row]) as Record<string, OutputShape>;
    add(out, row.size ? { ...owner, shape: owner.collection ? [shape] : shape } : owner, reading);
    if (end) for (const item of items(after.slice(end.index + end[0].length))) add(out, readItem(item, subject, "top"), reading);
    return;
  }
  const list = items(text);
  // "the high and low prices for the last 10 days": a period ending the enumeration is every measured value's.
  const period = list.length > 1 ? periodOf(list[list.length - 1]!) : null;
  for (const item of list) {
    const field = readItem(item, subject, "top");
    const measured = field?.shape === "number" || field?.shape === "integer";
    add(out, field && period && measured ? asSeries(field, period) : field, reading);
  }
}

function add(out: Map<string, OutputShape>, field: Field | null, reading?: Reading): void {
  if (!field || out.has(field.name) || out.size >= MAX_FIELDS) return;
  out.set(field.name, field.shape);
  if (reading && field.collection && field.shape !== "string")
    reading.list = { name: field.name, identity: field.key?.[0] ?? (TITLED.has(field.head) ? "title" : "name") };
}

/** The fields a prompt asks for; `text` is lowercased, with subjects and defaults blanked. */
export function readFields(text: string, subject: Set<string>): FieldReading {
  const reading: Reading = { out: new Map(), list: null };
  let summary = false;
  let topic = "";
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const marks = [...sentence.matchAll(TRIGGER)];
    const regions: { text: string; summary: boolean }[] = [];
    // A question may follow the (blanked) subject: "Given a company, when was it founded?"
    const lead = /^[\s,;:]*/.exec(sentence)![0].length;
    if (QUESTION.test(sentence.slice(lead)))
      regions.push({ text: sentence.slice(lead, marks[0]?.index ?? sentence.length), summary: false });
    marks.forEach((m, i) =>
      regions.push({ text: sentence.slice(m.index + m[0].length, marks[i + 1]?.index ?? sentence.length), summary: Boolean(m[1] ?? m[2]) }),
    );
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
      readEnumeration(body, subject, reading);
    }
  }
  return { fields: Object.fromEntries(reading.out), summary, topic: topic.replace(/\s+/g, " ").trim() };
}
