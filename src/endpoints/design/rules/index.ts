/**
 * The endpoint designer without a language model (the embedded default): a
 * research task in words becomes a name, typed inputs, an output_format and
 * a graph, by rules. Pure and deterministic: the same prompt always gives
 * the same design, in well under a millisecond for everyday prompts.
 */
import type { OutputShape } from "../../../research/output-format.ts";
import type { Design } from "../../model.ts";
import { apiName } from "./api-name.ts";
import { readFields } from "./fields.ts";
import { compareGraph, researchGraph, taskText, type Format } from "./graph.ts";
import { readInputs, type InputReading } from "./inputs.ts";
import { rowsOf } from "./subjects.ts";
import { nameParts, plural } from "./words.ts";

// The pieces the language-model designer repairs a model's design with, so both designers name and research alike.
export { aboutLine, describeFormat, researchGraph, searchNode, taskText, type Format } from "./graph.ts";
export { placeholderName } from "./subjects.ts";
export { inputType, nameParts, RESERVED_INPUTS, shortTitle } from "./words.ts";

// Long prompts are read up to here: the subject and the asks come early, and the rules stay fast.
const MAX_TEXT = 6_000;
const DEFAULT_FORMAT: Format = { summary: "string", key_facts: ["string"] };
const COMPARE =
  /(?<![\p{L}])(?:compare|comparing|comparison|versus|vs\.?|differences? between|contrast|vergleiche|comparer|compara|comparar)(?![\p{L}])/u;
// Words of input names that say how the subject is identified, not what it is.
const NOT_SUBJECT = new Set("name id code symbol url title first second start end".split(" "));

function normalize(prompt: string): string {
  return (
    String(prompt ?? "")
      .slice(0, MAX_TEXT * 2)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, " ")
      .replace(/[ \t\f\v\r\u00a0]+/g, " ")
      .replace(/ ?\n[\s]*/g, "\n")
      .trim()
      .slice(0, MAX_TEXT)
  );
}

function blank(text: string, spans: [number, number][]): string {
  const chars = text.split("");
  for (const [start, end] of spans) chars.fill(" ", start, end);
  const out = chars.join("");
  // Placeholders and JSON examples between braces are not facts to find.
  return out.replace(/\{[^{}\n]{0,400}\}\}?/g, (m) => " ".repeat(m.length));
}

/** The compared pair: "compare two X" names it; otherwise the first two text inputs of a prompt that compares. */
function comparedPair(lower: string, reading: InputReading): [string, string] | null {
  if (!COMPARE.test(lower)) return null;
  if (reading.pair) return reading.pair;
  const texts = reading.inputs.filter((i) => i.type === "string" && !/^(start|end)_/.test(i.name) && i.name !== "query");
  return texts.length >= 2 ? [texts[0]!.name, texts[1]!.name] : null;
}

export function designByRules(prompt: string): Design {
  const text = normalize(prompt);
  const lower = text.toLowerCase();
  // Indexes found in `lower` must hold in `text`; the few scripts whose lowercase changes length read lowercase only.
  const reading = readInputs(lower.length === text.length ? text : lower, lower);
  const subject = new Set(
    reading.inputs
      .flatMap((input, i) => [...nameParts(input.name), ...reading.titles[i]!.flatMap(nameParts)])
      .filter((w) => !NOT_SUBJECT.has(w)),
  );
  const asked = readFields(blank(lower, reading.spans), subject);
  const pair = comparedPair(lower, reading);
  let format: Format = Object.keys(asked.fields).length ? { ...asked.fields } : DEFAULT_FORMAT;
  const rows = rowsOf(lower);
  if (rows && format !== DEFAULT_FORMAT && !Object.values(format).some(Array.isArray))
    format = { [plural(rows)]: [{ name: "string", ...format }] };
  if (asked.summary && format !== DEFAULT_FORMAT && !("summary" in format)) format = { summary: "string", ...format };
  if (pair) {
    const each: Record<string, OutputShape> = { name: "string", ...(format === DEFAULT_FORMAT ? DEFAULT_FORMAT : format) };
    format = { [pair[0]]: each, [pair[1]]: each, comparison: "string" };
  }
  const api_name = apiName(reading, format === DEFAULT_FORMAT ? {} : format, asked.topic, pair, text);
  const task = taskText(text, new Set(reading.inputs.map((i) => i.name)));
  const graph = pair ? compareGraph(api_name, task, reading.inputs, pair, format) : researchGraph(api_name, task, reading.inputs, format);
  // A copy, so a caller editing the design cannot change what the next call returns.
  return structuredClone({ api_name, inputs: reading.inputs, output_format: format, graph });
}
