/**
 * A model's filled design schema as a valid Design. Models mostly follow the
 * schema, but a name may break the input pattern, a path may clash with
 * another, a type may be made up: each part is repaired where the intent is
 * clear, dropped where it is not, and replaced by the rule-based designer's
 * part when nothing usable is left.
 */
import { checkOutputFormat, type OutputShape } from "../../research/output-format.ts";
import { INPUT_TYPES, type Design, type EndpointInput } from "../model.ts";
import {
  aboutLine,
  describeFormat,
  designByRules,
  inputType,
  nameParts,
  placeholderName,
  RESERVED_INPUTS,
  researchGraph,
  searchNode,
  shortTitle,
  taskText,
  type Format,
} from "./rules/index.ts";

const MAX_INPUTS = 20;
const MAX_PATHS = 150;
const MAX_SEGMENTS = 7;
const MAX_INSTRUCTION = 12_000;
const SCALARS = new Set(["string", "number", "integer", "boolean"]);
// Type names models write instead of the schema's.
const INPUT_ALIASES = new Map(
  Object.entries({ integer: "number", int: "number", float: "number", bool: "boolean", text: "string", str: "string" }),
);

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function snake(text: string): string {
  const name = nameParts(text).join("_").slice(0, 64);
  return /^[a-z_]/.test(name) ? name : name ? `_${name}`.slice(0, 64) : "";
}

function coerceDefault(value: unknown, type: EndpointInput["type"]): string | number | boolean | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  if (type === "number") {
    const n = typeof value === "number" ? value : Number(String(value).replace(/[$€£,\s]/g, ""));
    return Number.isFinite(n) ? n : undefined;
  }
  if (type === "boolean")
    return typeof value === "boolean"
      ? value
      : /^(true|yes)$/i.test(String(value))
        ? true
        : /^(false|no)$/i.test(String(value))
          ? false
          : undefined;
  return typeof value === "object" ? undefined : String(value).slice(0, 2_000);
}

function repairInputs(raw: unknown): EndpointInput[] | null {
  if (!Array.isArray(raw)) return null;
  const inputs: EndpointInput[] = [];
  for (const item of raw) {
    if (!isRecord(item) || typeof item.name !== "string") continue;
    const name = snake(item.name);
    if (!name || RESERVED_INPUTS.has(name) || inputs.some((i) => i.name === name) || inputs.length >= MAX_INPUTS) continue;
    const said = typeof item.type === "string" ? (INPUT_ALIASES.get(item.type.toLowerCase()) ?? item.type.toLowerCase()) : "";
    const type = (INPUT_TYPES as readonly string[]).includes(said) ? (said as EndpointInput["type"]) : inputType(name);
    const fallback = coerceDefault(item.default, type);
    const description =
      typeof item.description === "string" && item.description.trim()
        ? item.description.trim().slice(0, 500)
        : `The ${name.replace(/_/g, " ")}.`;
    const input: EndpointInput = { name, type, required: fallback === undefined && item.required !== false, description };
    if (fallback !== undefined) input.default = fallback;
    inputs.push(input);
  }
  return inputs.length ? inputs : null;
}

function leafShape(type: unknown, list: boolean): OutputShape {
  const text = typeof type === "string" ? type.trim().toLowerCase() : "";
  const base = text.replace(/\[\]$/, "");
  // A made-up type ("text", "date", "url") is text: the value is still worth having.
  const scalar = (
    SCALARS.has(base)
      ? base
      : base === "float" || base === "double"
        ? "number"
        : base === "int"
          ? "integer"
          : base === "bool"
            ? "boolean"
            : "string"
  ) as OutputShape;
  return list || text.endsWith("[]") || text === "array" ? [scalar] : scalar;
}

/** Puts one flat field at its path; false when the path clashes with fields already placed. */
function place(root: Record<string, OutputShape>, path: string, type: unknown): boolean {
  const segments = path.split(".").map((s) => ({ name: snake(s.replace(/\[\]\s*$/, "")), list: /\[\]\s*$/.test(s) }));
  if (!segments.length || segments.length > MAX_SEGMENTS || segments.some((s) => !s.name)) return false;
  let node = root;
  for (const [i, segment] of segments.entries()) {
    // Own fields only: a path named "constructor" is a field, not Object.prototype's.
    const existing = Object.hasOwn(node, segment.name) ? node[segment.name] : undefined;
    if (i === segments.length - 1) {
      if (existing !== undefined) return false;
      node[segment.name] = leafShape(type, segment.list);
      return true;
    }
    if (existing === undefined) node[segment.name] = segment.list ? [{}] : {};
    const next = node[segment.name]!;
    const inner = Array.isArray(next) ? next[0] : next;
    if (Array.isArray(next) !== segment.list || typeof inner !== "object" || Array.isArray(inner)) return false;
    node = inner as Record<string, OutputShape>;
  }
  return false;
}

/** Drops objects left empty by clashing paths, which output_format refuses. */
function prune(shape: OutputShape): OutputShape | null {
  if (typeof shape === "string") return shape;
  if (Array.isArray(shape)) {
    const inner = prune(shape[0]);
    return inner === null ? null : [inner];
  }
  const kept = Object.entries(shape).flatMap(([k, v]) => {
    const p = prune(v);
    return p === null ? [] : [[k, p] as const];
  });
  return kept.length ? Object.fromEntries(kept) : null;
}

function assembleFormat(raw: unknown): Format | null {
  if (!Array.isArray(raw)) return null;
  const root: Record<string, OutputShape> = {};
  for (const field of raw.slice(0, MAX_PATHS)) if (isRecord(field) && typeof field.path === "string") place(root, field.path, field.type);
  const format = prune(root);
  if (!format || typeof format !== "object" || Array.isArray(format)) return null;
  return checkOutputFormat(format, []).length ? null : format;
}

/** The model's instruction, its placeholders limited to the inputs, with what the call is about and the fields to fill. */
function instructionFor(raw: unknown, inputs: EndpointInput[], format: Format): string | null {
  if (typeof raw !== "string" || !raw.trim()) return null;
  const names = new Set(inputs.map((i) => i.name));
  const text = raw
    .trim()
    .slice(0, MAX_INSTRUCTION)
    .replace(/\{\{?\s*([^{}\n]{0,60}?)\s*\}\}?|[{}]/g, (whole, inner: string | undefined) => {
      if (inner === undefined) return whole === "{" ? "(" : ")";
      const name = names.has(inner) ? inner : placeholderName(inner);
      return names.has(name) ? `{${name}}` : `(${inner})`;
    });
  const about = inputs.some((i) => text.includes(`{${i.name}}`)) ? "" : `\nThis call is about: ${aboutLine(inputs)}.`;
  return `${text}${about}\nFill these fields: ${describeFormat(format)}.`;
}

export function fromLlmDesign(raw: unknown, prompt: string): Design {
  const rules = designByRules(prompt);
  if (!isRecord(raw)) return rules;
  const inputs = repairInputs(raw.inputs) ?? rules.inputs;
  const format = assembleFormat(raw.output_fields) ?? (rules.output_format as Format);
  const api_name =
    typeof raw.api_name === "string" && raw.api_name.trim() ? shortTitle(raw.api_name.replace(/["“”]/g, "")) : rules.api_name;
  const instruction = instructionFor(raw.search_instruction, inputs, format);
  // The rules' graph (perhaps a comparison) fits only the rules' own inputs and format.
  const graph = instruction
    ? { nodes: [searchNode("research", api_name, instruction, format)], edges: [] }
    : inputs === rules.inputs && format === rules.output_format
      ? rules.graph
      : researchGraph(api_name, taskText(prompt, new Set(inputs.map((i) => i.name))), inputs, format);
  return { api_name, inputs, output_format: format, graph };
}
