/**
 * How the answer bench judges one answer, with no model in the loop: pure
 * functions of the question, the answer and its context.
 *
 * - plain: right when the text holds an expected answer; a failure is put
 *   down to the page not being read, the answer declining, or the answer
 *   quoting the wrong sentence;
 * - structured: each expected leaf field right or wrong (and why), and each
 *   filled leaf supported or not by some context entry's text;
 * - citations: each quoted sentence must be in every entry it cites.
 */
import { normalise } from "./answer-set.ts";

export interface ContextEntry {
  id: number;
  metadata: { title: string; url: string; content: string };
}

// ---------------------------------------------------------------- plain answers

export type PlainCause = "request failed" | "page not found" | "no answer" | "wrong sentence";

export function holdsExpected(answer: string, expected: string[]): boolean {
  const text = normalise(answer);
  return expected.some((e) => text.includes(normalise(e)));
}

/** The extractive answerer cites every sentence it quotes; an answer citing nothing declines. */
export function declines(answer: string): boolean {
  return citedSentences(answer).length === 0;
}

export function plainCause(input: { ok: boolean; status: number; found: boolean; answer: string }): PlainCause | null {
  if (input.status !== 200) return "request failed";
  if (input.ok) return null;
  if (!input.found) return "page not found";
  return declines(input.answer) ? "no answer" : "wrong sentence";
}

/**
 * The answer's quoted sentences with the ids cited after each. A marker group
 * counts only between spaces (or at the end): "[12]" inside a quoted
 * sentence, as Wikipedia's footnotes read, is part of the sentence.
 */
export function citedSentences(answer: string): { sentence: string; ids: number[] }[] {
  const out: { sentence: string; ids: number[] }[] = [];
  let start = 0;
  for (const match of answer.matchAll(/\s((?:\[\d+\])+)(?=\s|$)/g)) {
    const sentence = answer.slice(start, match.index).trim();
    const ids = [...match[1]!.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    if (sentence) out.push({ sentence, ids });
    start = match.index + match[0].length;
  }
  return out;
}

/**
 * Whether every entry the sentence cites holds it word for word (normalised).
 * A pronoun's entity the answerer inserted in square brackets ("It [Eiffel
 * Tower] was…") is taken out of the quote and must itself be in the entry.
 */
export function citationHolds(cited: { sentence: string; ids: number[] }, context: ContextEntry[]): boolean {
  const insertions = [...cited.sentence.matchAll(/ \[([^\]\d][^\]]*)\]/g)].map((m) => normalise(m[1]!));
  const sentence = normalise(cited.sentence.replace(/ \[[^\]\d][^\]]*\]/g, ""));
  return cited.ids.every((id) => {
    const entry = context.find((c) => c.id === id);
    const content = entry ? normalise(entry.metadata.content) : "";
    return entry !== undefined && content.includes(sentence) && insertions.every((i) => content.includes(i));
  });
}

// ---------------------------------------------------------------- structured answers

export type FieldGroup = "string" | "date-like string" | "number" | "integer" | "boolean" | "list";
export type FieldCause = "request failed" | "null though expected" | "wrong value" | "value though null expected";

export interface FieldScore {
  path: string;
  group: FieldGroup;
  ok: boolean;
  cause: FieldCause | null;
}

type Shape = string | { [field: string]: Shape } | Shape[];

const DATE_FIELD = /date|day|when|year|born|birth|founded|published|released|opened|died|deadline|time/i;
const MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec";
const DATE_VALUE = new RegExp(
  `^\\d{4}(-\\d\\d){0,2}$|\\b(${MONTHS})[a-z]*\\.?\\s+\\d|\\d\\s+(${MONTHS})|\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}`,
  "i",
);

function isDateLike(field: string, expected: unknown): boolean {
  const values = Array.isArray(expected) ? expected : [expected];
  return DATE_FIELD.test(field) || values.some((v) => typeof v === "string" && DATE_VALUE.test(v.trim()));
}

function leafGroup(type: string, field: string, expected: unknown, inList: boolean): FieldGroup {
  if (inList) return "list";
  if (type === "string") return isDateLike(field, expected) ? "date-like string" : "string";
  if (type === "number" || type === "integer" || type === "boolean") return type;
  return "list";
}

/** A string is right when it equals an alternative (normalised), or holds one while at most twice its length. */
export function stringMatches(answered: unknown, expected: unknown): boolean {
  if (answered === null || answered === undefined || typeof answered === "object") return false;
  const text = normalise(String(answered));
  const alternatives = (Array.isArray(expected) ? expected : [expected]).map((e) => normalise(String(e)));
  return alternatives.some((a) => text === a || (a.length > 0 && text.includes(a) && text.length <= 2 * a.length));
}

export function numberMatches(answered: unknown, expected: number): boolean {
  if (typeof answered !== "number" || !Number.isFinite(answered)) return false;
  return expected === 0 ? answered === 0 : Math.abs(answered - expected) <= 0.005 * Math.abs(expected);
}

function leafMatches(type: string, answered: unknown, expected: unknown): boolean {
  if (type === "number" || type === "integer") return typeof expected === "number" && numberMatches(answered, expected);
  if (type === "boolean") return answered === expected;
  return stringMatches(answered, expected);
}

const isEmpty = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && v.length === 0);

function causeOf(expected: unknown, answered: unknown, ok: boolean): FieldCause | null {
  if (ok) return null;
  if (expected === null) return "value though null expected";
  return isEmpty(answered) ? "null though expected" : "wrong value";
}

/**
 * Each expected leaf field, right or wrong. A list of objects matches each
 * expected item to the answered item that gets most of its leaves right and
 * counts those leaves; a list of scalars counts each expected item as found
 * or not. Null expected is right only for null (an empty list, for a list).
 */
export function scoreFields(shape: Shape, expected: unknown, answered: unknown, path = "", inList = false): FieldScore[] {
  const field =
    path
      .split(/[.[\]]+/)
      .filter(Boolean)
      .at(-1) ?? "";
  if (Array.isArray(shape)) {
    const item = shape[0]!;
    const group: FieldGroup = "list";
    const given = Array.isArray(answered) ? answered : [];
    if (expected === null || !Array.isArray(expected)) {
      const ok = isEmpty(answered);
      return [{ path, group, ok, cause: causeOf(null, answered, ok) }];
    }
    return expected.flatMap((want, i) => {
      const at = `${path}[${i}]`;
      if (typeof item === "string") {
        const ok = given.some((g) => leafMatches(item, g, want));
        return [{ path: at, group, ok, cause: causeOf(want, given.length ? given : null, ok) }];
      }
      const tries = given.length ? given.map((g) => scoreFields(item, want, g, at, true)) : [scoreFields(item, want, null, at, true)];
      return tries.reduce((best, t) => (right(t) > right(best) ? t : best));
    });
  }
  if (typeof shape === "object") {
    const want = expected && typeof expected === "object" ? (expected as Record<string, unknown>) : {};
    const got = answered && typeof answered === "object" && !Array.isArray(answered) ? (answered as Record<string, unknown>) : {};
    return Object.entries(shape).flatMap(([name, child]) =>
      scoreFields(child, expected === null ? null : (want[name] ?? null), got[name] ?? null, path ? `${path}.${name}` : name, inList),
    );
  }
  // "array" is a list of anything: read as a list of strings.
  if (shape === "array") return scoreFields(["string"], expected, answered, path, inList);
  const group = leafGroup(shape, field, expected, inList);
  const ok = expected === null ? answered === null || answered === undefined : leafMatches(shape, answered, expected);
  return [{ path, group, ok, cause: causeOf(expected, answered, ok) }];
}

const right = (scores: FieldScore[]) => scores.filter((s) => s.ok).length;

// ---------------------------------------------------------------- support in the sources

export interface FilledField {
  path: string;
  /** The innermost object key on the path: a boolean is supported by the words of its name. */
  field: string;
  value: string | number | boolean;
}

/** Every non-null leaf of the answer, walked by the shape (lists item by item). */
export function filledFields(shape: Shape, answered: unknown, path = ""): FilledField[] {
  if (answered === null || answered === undefined) return [];
  if (Array.isArray(shape)) {
    if (!Array.isArray(answered)) return [];
    return answered.flatMap((item, i) => filledFields(shape[0]!, item, `${path}[${i}]`));
  }
  if (typeof shape === "object") {
    if (typeof answered !== "object" || Array.isArray(answered)) return [];
    const got = answered as Record<string, unknown>;
    return Object.entries(shape).flatMap(([name, child]) => filledFields(child, got[name], path ? `${path}.${name}` : name));
  }
  if (Array.isArray(answered)) return answered.flatMap((item, i) => filledFields(shape, item, `${path}[${i}]`));
  if (typeof answered === "object") return [];
  const field =
    path
      .split(/[.[\]]+/)
      .filter(Boolean)
      .findLast((p) => !/^\d+$/.test(p)) ?? "";
  return [{ path, field, value: answered as string | number | boolean }];
}

const SCALES: Record<string, number> = {
  thousand: 1e3,
  k: 1e3,
  million: 1e6,
  m: 1e6,
  mn: 1e6,
  billion: 1e9,
  bn: 1e9,
  b: 1e9,
  trillion: 1e12,
};
const WORD_NUMBERS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
  "twenty",
];

/**
 * Every number a text states: digits with "," thousands separators and a
 * decimal point, a sign only after a space, each also multiplied by a scale
 * word after it ("1.2 million", "$4.5bn", "300k", "us$171-million"), and the words one to
 * twenty (with a scale too: "two million"). Both readings are kept; "5 m"
 * may be metres.
 */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  const scale = `(?:\\s+|-)?(${Object.keys(SCALES).join("|")})\\b`;
  const digits = new RegExp(`(^|\\s-|[^\\d.,])(\\d{1,3}(?:,\\d{3})+|\\d+)(\\.\\d+)?(?:${scale})?`, "gi");
  for (const m of text.matchAll(digits)) {
    const value = Number(`${m[2]!.replace(/,/g, "")}${m[3] ?? ""}`) * (m[1]!.length === 2 ? -1 : 1);
    out.push(value);
    if (m[4]) out.push(value * SCALES[m[4].toLowerCase()]!);
  }
  const words = new RegExp(`\\b(${WORD_NUMBERS.join("|")})\\b(?:${scale})?`, "gi");
  for (const m of text.matchAll(words)) {
    const value = WORD_NUMBERS.indexOf(m[1]!.toLowerCase());
    out.push(value);
    if (m[2]) out.push(value * SCALES[m[2].toLowerCase()]!);
  }
  return out;
}

const FIELD_FILLER = new Set(["is", "are", "was", "has", "have", "had", "the", "of", "and", "any", "does", "did", "can", "will", "it"]);

/** The words of a field's name: "is_buy_rating" and "isBuyRating" both give buy, rating. */
export function fieldWords(field: string): string[] {
  return field
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2 && !FIELD_FILLER.has(w));
}

/** Whether some source states the value: strings by containment, numbers as read by numbersIn, booleans by a word of the field's name. */
export function fieldSupported(filled: FilledField, contents: string[]): boolean {
  const { value } = filled;
  if (typeof value === "string") {
    const want = normalise(value);
    return contents.some((c) => normalise(c).includes(want));
  }
  if (typeof value === "number")
    return contents.some((c) => numbersIn(c).some((n) => Math.abs(n - value) <= 1e-9 * Math.max(1, Math.abs(value))));
  const words = fieldWords(filled.field);
  return contents.some((c) => {
    const text = c.toLowerCase();
    return words.some((w) => text.includes(w));
  });
}
