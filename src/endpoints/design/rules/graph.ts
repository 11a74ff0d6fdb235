/**
 * The agent graph of a design: one search node that researches the task,
 * or, for "compare two X", one search node per subject and a general node
 * that puts them side by side. Each node's prompt restates the task with the
 * inputs as `{name}` placeholders (the runtime fills them) and names the
 * fields to fill, so the node knows what "done" looks like.
 */
import type { OutputShape } from "../../../research/output-format.ts";
import type { EndpointInput, Graph, GraphNode } from "../../model.ts";
import { PLACEHOLDER, placeholderName } from "./subjects.ts";

export type Format = Record<string, OutputShape>;

const MAX_TASK = 4_000;
const MAX_FIELD_TEXT = 6_000;
const CAREFUL =
  "Use only what reliable sources say, and null where they do not say: never guess. Prefer official, primary and recent sources. Give numbers as plain numbers in the units the field names imply, and dates as ISO 8601 text.";

function describeShape(shape: OutputShape): string {
  if (typeof shape === "string") return shape;
  if (Array.isArray(shape))
    return typeof shape[0] === "string" ? `a list of ${shape[0]} values` : `a list, each item with ${describeShape(shape[0]!)}`;
  return Object.entries(shape)
    .map(([name, inner]) => (typeof inner === "string" ? `${name} (${inner})` : `${name} (${describeShape(inner)})`))
    .join(", ");
}

/** "ceo (string), tourist_attractions (a list, each item with name (string), ticket_price (number))". */
export function describeFormat(format: Format): string {
  const text = describeShape(format);
  return text.length > MAX_FIELD_TEXT ? `${text.slice(0, MAX_FIELD_TEXT)}…` : text;
}

/** The owner's prompt, safe inside a system prompt: placeholders that name inputs stay, other braces become parentheses. */
export function taskText(prompt: string, inputs: Set<string>): string {
  return prompt
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_TASK)
    .replace(new RegExp(`${PLACEHOLDER.source}|[{}]`, "gu"), (whole, raw: string | undefined) => {
      if (raw === undefined) return whole === "{" ? "(" : ")";
      const name = placeholderName(raw);
      return inputs.has(name) ? `{${name}}` : `(${raw.trim()})`;
    });
}

/** "company name {company_name}, country {country}": what the call is about, with its placeholders. */
export function aboutLine(inputs: EndpointInput[]): string {
  return inputs.map((i) => (i.name === "query" ? `{query}` : `${i.name.replace(/_/g, " ")} {${i.name}}`)).join("; ");
}

export function searchNode(id: string, name: string, system_prompt: string, output_format: Format): GraphNode {
  return { id, type: "search_agent", name, system_prompt, output_format, configuration: {} };
}

export function researchGraph(apiName: string, task: string, inputs: EndpointInput[], format: Format): Graph {
  const prompt = [
    `Research task for the "${apiName}" endpoint.`,
    `This call is about: ${aboutLine(inputs)}.`,
    `The task, as the owner wrote it: ${task}`,
    `Fill these fields: ${describeFormat(format)}.`,
    CAREFUL,
  ].join("\n");
  return { nodes: [searchNode("research", apiName, prompt, format)], edges: [] };
}

/**
 * "Compare two companies": each subject is researched on its own (in
 * parallel), each node filling its own half of the answer under the same
 * key as the endpoint's output, so that even without a model the general
 * node can combine them by matching fields; with a model it also writes the
 * comparison.
 */
export function compareGraph(apiName: string, task: string, inputs: EndpointInput[], pair: [string, string], format: Format): Graph {
  const shared = inputs.filter((i) => !pair.includes(i.name));
  const nodes: GraphNode[] = pair.map((subject, i) => {
    const half: Format = { [subject]: format[subject]! };
    const context = shared.length ? `\nThe call also gives: ${aboutLine(shared)}.` : "";
    const prompt = [
      `Research {${subject}} (${subject.replace(/_/g, " ")}) for the "${apiName}" endpoint, which compares it with {${pair[1 - i]}}; research only {${subject}} here.${context}`,
      `The task, as the owner wrote it: ${task}`,
      `Fill these fields: ${describeFormat(half)}.`,
      CAREFUL,
    ].join("\n");
    return searchNode(`research_${i === 0 ? "first" : "second"}`, `Research ${subject.replace(/_/g, " ")}`, prompt, half);
  });
  const combine: GraphNode = {
    id: "compare",
    type: "general_agent",
    name: "Compare",
    system_prompt: [
      `Combine the findings on {${pair[0]}} and {${pair[1]}} for the "${apiName}" endpoint.`,
      `The task, as the owner wrote it: ${task}`,
      `Copy ${pair[0]} and ${pair[1]} from the findings unchanged, and write comparison: a few sentences on how the two differ on each field, using only the findings.`,
      `Fields: ${describeFormat(format)}.`,
    ].join("\n"),
    output_format: format,
    configuration: {},
  };
  nodes.push(combine);
  return { nodes, edges: nodes.slice(0, 2).map((n, i) => ({ id: `e${i + 1}`, source: n.id, target: combine.id })) };
}
