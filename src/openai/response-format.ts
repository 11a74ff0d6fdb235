/**
 * OpenAI's `response_format` as the search's `output_format` (a shape of
 * type names: research/output-format.ts). A `json_schema` is read for its
 * types: objects by their properties, arrays by their items, `$ref`s into
 * its own `$defs`/`definitions`, a union (`anyOf`, `oneOf`, a type list)
 * by its first member that is not null, an `enum` as a string. Anything
 * else it says (formats, patterns, required) the answer does not promise.
 * `json_object` asks for JSON without a schema: the answer is then
 * `{"answer": string}`. The shape's own bounds (fields, depth) are the
 * output_format rules'.
 */
import { invalid } from "../errors.ts";

type Loc = (string | number)[];
const CHAT_SCHEMA: Loc = ["body", "response_format", "json_schema", "schema"];
const MAX_DEPTH = 8;
const SCALARS = new Set(["string", "number", "integer", "boolean"]);

/** What `{"type": "json_object"}` answers with. */
export const JSON_OBJECT_SHAPE = { answer: "string" };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Chat completions' `response_format`. */
export function outputFormatOf(format: { type: string; json_schema?: { schema?: unknown } } | null | undefined): unknown {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return JSON_OBJECT_SHAPE;
  return shapeOfSchema(format.json_schema?.schema, CHAT_SCHEMA);
}

/** The Responses API's `text.format`, whose json_schema carries its schema itself. */
export function textFormatOf(format: { type: string; schema?: unknown } | null | undefined): unknown {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return JSON_OBJECT_SHAPE;
  return shapeOfSchema(format.schema, ["body", "text", "format", "schema"]);
}

function shapeOfSchema(schema: unknown, at: Loc): Json {
  if (!isObject(schema)) throw invalid(at, "a json_schema format needs a schema object");
  const shape = shapeOf(schema, schema, 0, at);
  if (!isObject(shape)) throw invalid(at, "the schema must describe an object");
  return shape;
}

function shapeOf(schema: unknown, root: Json, depth: number, at: Loc): unknown {
  if (depth > MAX_DEPTH) throw invalid(at, `the schema is nested more than ${MAX_DEPTH} deep`);
  if (!isObject(schema)) throw invalid(at, "every part of the schema must be an object");
  if (typeof schema.$ref === "string") return shapeOf(resolve(schema.$ref, root, at), root, depth + 1, at);
  const union = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null) as unknown[] | null;
  if (union) {
    const member = union.find((m) => !(isObject(m) && m.type === "null"));
    if (member === undefined) throw invalid(at, "a union needs a member that is not null");
    return shapeOf(member, root, depth + 1, at);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "object") {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const shape: Json = {};
    for (const [name, property] of Object.entries(properties)) shape[name] = shapeOf(property, root, depth + 1, at);
    return shape;
  }
  if (type === "array") return [shapeOf(schema.items, root, depth + 1, at)];
  if (typeof type === "string" && SCALARS.has(type)) return type;
  if (Array.isArray(schema.enum) || schema.const !== undefined) return "string";
  throw invalid(at, `a schema type this service cannot answer with: ${JSON.stringify(type ?? null).slice(0, 40)}`);
}

function resolve(ref: string, root: Json, at: Loc): unknown {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const defs = match ? root[match[1]!] : undefined;
  const target = match && isObject(defs) ? defs[match[2]!] : undefined;
  if (target === undefined) throw invalid(at, `a $ref this service cannot follow: ${ref.slice(0, 80)}`);
  return target;
}
