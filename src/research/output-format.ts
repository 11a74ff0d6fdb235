/**
 * `output_format`: the caller's JSON shape of type names, e.g.
 * `{"name": "string", "founded": "integer", "products": [{"name": "string"}]}`.
 * Values are type names (string, number, integer, boolean, array), nested
 * objects of the same kind, or a one-item array holding the item shape.
 * It is checked once (problems are 422s naming the path) and converted once
 * to a JSON Schema that every answer must validate against. Every field is
 * required and nullable: null is the honest answer when the sources do not
 * say, and it keeps the schema usable by strict structured-output modes.
 */
import type { ValidationIssue } from "../errors.ts";

export const TYPE_NAMES = ["string", "number", "integer", "boolean", "array"] as const;
export type TypeName = (typeof TYPE_NAMES)[number];

export type OutputShape = TypeName | { [field: string]: OutputShape } | [OutputShape];

export const MAX_DEPTH = 8;
export const MAX_FIELDS = 200;
const MAX_FIELD_NAME = 100;

export type JsonSchema = Record<string, unknown>;

/** Problems with an output_format, each at its path under `loc` (e.g. ["body", "output_format"]). */
export function checkOutputFormat(value: unknown, loc: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  let fields = 0;
  const visit = (node: unknown, path: (string | number)[], depth: number): void => {
    if (issues.length >= 20) return;
    if (typeof node === "string") {
      if (!(TYPE_NAMES as readonly string[]).includes(node)) {
        issues.push({
          loc: path,
          msg: `unknown type name "${node.slice(0, 40)}": use one of ${TYPE_NAMES.join(", ")}, an object, or a one-item array`,
          type: "value_error",
        });
      }
      return;
    }
    if (depth > MAX_DEPTH) {
      issues.push({ loc: path, msg: `output_format is nested deeper than ${MAX_DEPTH} levels`, type: "value_error" });
      return;
    }
    if (Array.isArray(node)) {
      if (node.length !== 1) {
        issues.push({ loc: path, msg: `an array must hold exactly one item shape (found ${node.length})`, type: "value_error" });
        return;
      }
      visit(node[0], [...path, 0], depth + 1);
      return;
    }
    if (node !== null && typeof node === "object") {
      const entries = Object.entries(node);
      if (entries.length === 0) {
        issues.push({ loc: path, msg: "an object must have at least one field", type: "value_error" });
        return;
      }
      for (const [name, child] of entries) {
        if (++fields > MAX_FIELDS) {
          issues.push({ loc, msg: `output_format has more than ${MAX_FIELDS} fields`, type: "value_error" });
          return;
        }
        if (!name.trim() || name.length > MAX_FIELD_NAME) {
          issues.push({
            loc: [...path, name.slice(0, 40)],
            msg: `a field name must be 1 to ${MAX_FIELD_NAME} characters`,
            type: "value_error",
          });
          continue;
        }
        visit(child, [...path, name], depth + 1);
      }
      return;
    }
    issues.push({ loc: path, msg: "expected a type name, an object or a one-item array", type: "value_error" });
  };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return [{ loc, msg: "output_format must be an object of field names to type names", type: "value_error" }];
  }
  visit(value, loc, 1);
  return issues;
}

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });

function itemSchema(shape: OutputShape): JsonSchema {
  if (typeof shape === "string") {
    // A bare "array" is a list of strings: the most useful reading of "a list of things".
    return shape === "array" ? { type: "array", items: { type: "string" } } : { type: shape };
  }
  if (Array.isArray(shape)) return { type: "array", items: itemSchema(shape[0]) };
  return objectSchema(shape);
}

function objectSchema(shape: { [field: string]: OutputShape }): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, child] of Object.entries(shape)) properties[name] = nullable(itemSchema(child));
  return { type: "object", properties, required: Object.keys(shape), additionalProperties: false };
}

/** The JSON Schema of a checked output_format (call checkOutputFormat first). */
export function toJsonSchema(shape: { [field: string]: OutputShape }): JsonSchema {
  return objectSchema(shape);
}

/** Whether a value matches the schema toJsonSchema makes: the last check before an answer leaves. */
export function conforms(schema: JsonSchema, value: unknown): boolean {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).some((s) => conforms(s, value));
  switch (schema.type) {
    case "null":
      return value === null;
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value) && value.every((item) => conforms(schema.items as JsonSchema, item));
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
      const properties = schema.properties as Record<string, JsonSchema>;
      const record = value as Record<string, unknown>;
      if (Object.keys(record).some((k) => !(k in properties))) return false;
      return Object.entries(properties).every(([k, s]) => k in record && conforms(s, record[k]));
    }
  }
  return false;
}

/** The words of every field name in a shape ("founded_year", "headquarters.city"): what a structured answer asks about. */
export function shapeWords(shape: { [field: string]: OutputShape }): string {
  const out: string[] = [];
  const walk = (node: OutputShape | { [field: string]: OutputShape }) => {
    if (typeof node === "string") return;
    if (Array.isArray(node)) return walk(node[0] as OutputShape);
    for (const [name, child] of Object.entries(node)) {
      out.push(name.replace(/([a-z\d])([A-Z])/g, "$1 $2").replace(/[_\-.]+/g, " "));
      walk(child);
    }
  };
  walk(shape);
  return out.join(" ");
}
