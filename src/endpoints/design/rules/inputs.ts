/**
 * A prompt's inputs: `{placeholders}` the author wrote, and the subjects the
 * prompt names ("given a company name"), with "optionally" and "defaulting
 * to 2024" applied. Placeholders win over subject phrases that say the same
 * thing, because the author chose those names on purpose.
 */
import type { EndpointInput } from "../../model.ts";
import { titleOf } from "./noun-phrase.ts";
import { findSubjects, PLACEHOLDER, placeholderName, type Subject } from "./subjects.ts";
import { INPUT_NAME_RE, inputType, RESERVED_INPUTS, type Scalar } from "./words.ts";

export interface InputReading {
  inputs: EndpointInput[];
  /** Words naming what each input is about, in the same order: ["company"] for company_name. */
  titles: string[][];
  /** The two subjects of "compare two X", when the prompt has them. */
  pair: [string, string] | null;
  /** Where inputs and defaults are written, blanked before fields are read. */
  spans: [number, number][];
}

/** A subject the prompt names, or a placeholder the author wrote, before the two are reconciled. */
interface Candidate extends Subject {
  placeholder: boolean;
  default?: string | number | boolean;
}

const DEFAULT =
  /(?:defaulting to|defaults? (?:is|of|to)|default value(?: is| of)?|default\s*[:=]|\(\s*default)\s*[:=]?\s*("[^"]{1,80}"|'[^']{1,80}'|[^\s,;()"'][^,;()\n]{0,40}?)(?=\s*(?:[,;)\n]|\.(?:\s|$)|$|\s(?:and|or|if|when|unless|otherwise|with|for)\s))/g;
const MAX_INPUTS = 20;
const ASKING = /\b(?:find|get|return|list|extract|give|tell|include|provide|show|look up)\b/;
// Words an input name shares with a placeholder without meaning the same thing.
const GENERIC = new Set(["name", "id", "first", "second", "start", "end"]);

/** A default as written, in the input's type; undefined when it does not fit (a word for a number). */
function coerce(raw: string, type: Scalar): string | number | boolean | undefined {
  const text = raw.replace(/^["']|["']$/g, "").trim();
  if (type === "number") {
    const n = Number(text.replace(/[$€£,\s]/g, ""));
    return text && Number.isFinite(n) ? n : undefined;
  }
  if (type === "boolean") return /^(yes|true|on)$/i.test(text) ? true : /^(no|false|off)$/i.test(text) ? false : undefined;
  return text.slice(0, 200) || undefined;
}

function describe(candidate: Candidate, type: Scalar): string {
  const [edge, ...rest] = candidate.name.split("_");
  const thing = rest.join(" ");
  if ((edge === "start" || edge === "end") && rest.length) {
    const example = thing === "date" ? "a date, e.g. 2024-01-31" : thing === "year" ? "e.g. 2020" : thing;
    return `${edge === "start" ? "Start" : "End"} of the period (${example}).`;
  }
  if (candidate.pair) {
    const side = /^second_|_b$/.test(candidate.name) ? "second " : /^first_|_a$/.test(candidate.name) ? "first " : "";
    return `The ${side}${candidate.title.join(" ") || candidate.name.replace(/_/g, " ")} to compare.`;
  }
  const kind = type === "boolean" ? " (true or false)" : candidate.name === "year" ? ", e.g. 2024" : "";
  return `The ${candidate.name.replace(/_/g, " ")}${kind}${candidate.optional ? "; optional" : ""}.`;
}

/** Reads the inputs of a prompt; `text` is the prompt and `lower` its lowercase twin of the same length. */
export function readInputs(text: string, lower: string): InputReading {
  const candidates: Candidate[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = placeholderName(m[1]!);
    if (!name) continue;
    const end = m.index + m[0].length;
    const around = lower.slice(Math.max(0, m.index - 24), m.index) + "|" + lower.slice(end, end + 24);
    const optional = /optional(ly)?\s*(?:(?:a|an|the)\s+)?\|/.test(around) || /\|\s*(\(\s*optional|,?\s*optional\b)/.test(around);
    candidates.push({ name, title: titleOf(name.split("_")), start: m.index, end, optional, pair: false, placeholder: true });
  }
  const placeholders = candidates.slice();
  const claimed = new Set(placeholders.flatMap((p) => p.name.split("_").filter((w) => !GENERIC.has(w))));
  for (const s of findSubjects(lower)) {
    const overlaps = placeholders.some((p) => s.end > p.start && s.start < p.end);
    if (overlaps || (placeholders.length && s.name.split("_").some((w) => claimed.has(w)))) continue;
    candidates.push({ ...s, placeholder: false });
  }
  candidates.sort((a, b) => a.start - b.start || a.end - b.end);

  const spans: [number, number][] = candidates.map((c) => [c.start, c.end]);
  for (const m of lower.matchAll(DEFAULT)) {
    // A default belongs to the input just before it, in the same clause: not across "…, find prices, default: USD".
    const owner = candidates.filter((c) => c.end <= m.index && m.index - c.end <= 80 && !ASKING.test(lower.slice(c.end, m.index))).pop();
    spans.push([m.index, m.index + m[0].length]);
    if (!owner || owner.default !== undefined) continue;
    const start = m.index + m[0].length - m[1]!.length;
    const value = coerce(text.slice(start, start + m[1]!.length), inputType(owner.name));
    if (value !== undefined) owner.default = value;
  }

  const inputs: EndpointInput[] = [];
  const titles: string[][] = [];
  const pairNames: string[] = [];
  for (const c of candidates) {
    if (!INPUT_NAME_RE.test(c.name) || RESERVED_INPUTS.has(c.name) || inputs.some((i) => i.name === c.name) || inputs.length >= MAX_INPUTS)
      continue;
    const type = inputType(c.name);
    const input: EndpointInput = { name: c.name, type, required: !c.optional && c.default === undefined, description: describe(c, type) };
    if (c.default !== undefined) input.default = c.default;
    inputs.push(input);
    titles.push(c.title);
    if (c.pair) pairNames.push(c.name);
  }
  if (!inputs.length) {
    inputs.push({ name: "query", type: "string", required: true, description: "What to research: the subject of this call." });
    titles.push([]);
  }
  const pair = pairNames.length >= 2 ? ([pairNames[0]!, pairNames[1]!] as [string, string]) : null;
  return { inputs, titles, pair, spans };
}
