/**
 * Turns a TypeBox schema and the value that failed it into FastAPI's 422
 * detail: `[{loc, msg, type}]` with pydantic's types and messages, so clients
 * written against Critique's FastAPI service read our errors unchanged.
 * It never echoes the input back.
 */
import type { ValidationIssue } from "../errors.ts";

type Schema = Record<string, unknown>;
type Loc = (string | number)[];

const MAX_ISSUES = 20;
// Formats Elysia adds to unions so strings can coerce; they are not part of our contract.
const COERCION_FORMATS = new Set(["integer", "numeric", "boolean", "ObjectString", "ArrayString"]);

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const jsonType = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

export function validationIssues(schema: unknown, value: unknown, root: Loc): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  walk(schema as Schema, value, root, issues, true);
  return issues.slice(0, MAX_ISSUES);
}

function walk(schema: Schema, value: unknown, loc: Loc, out: ValidationIssue[], isRoot = false): void {
  if (out.length >= MAX_ISSUES || !schema || typeof schema !== "object") return;
  // An absent or `null` body is "missing" to FastAPI, as is an absent field.
  if (value === undefined || (isRoot && value === null && schema.type === "object")) {
    out.push({ loc, msg: "Field required", type: "missing" });
    return;
  }
  if (Array.isArray(schema.anyOf)) return walkUnion(schema.anyOf as Schema[], value, loc, out, isRoot);
  if ("const" in schema) {
    if (value !== schema.const)
      out.push({ loc, msg: `Input should be ${JSON.stringify(schema.const).replaceAll('"', "'")}`, type: "literal_error" });
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value as never)) {
    out.push({ loc, msg: `Input should be ${listChoices(schema.enum)}`, type: "enum" });
    return;
  }
  switch (schema.type) {
    case "object":
      return walkObject(schema, value, loc, out, isRoot);
    case "array":
      return walkArray(schema, value, loc, out);
    case "string":
      return walkString(schema, value, loc, out);
    case "integer":
    case "number":
      return walkNumber(schema, value, loc, out);
    case "boolean":
      if (typeof value !== "boolean") out.push({ loc, msg: "Input should be a valid boolean", type: "bool_type" });
      return;
    case "null":
      if (value !== null) out.push({ loc, msg: "Input should be None", type: "none_required" });
      return;
  }
}

function listChoices(values: unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length <= 1 ? (quoted[0] ?? "''") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

function walkUnion(branches: Schema[], value: unknown, loc: Loc, out: ValidationIssue[], isRoot: boolean): void {
  const meaningful = branches.filter((b) => !(b.type === "string" && COERCION_FORMATS.has(String(b.format))) || branches.length === 1);
  const attempts = meaningful.map((branch) => {
    const issues: ValidationIssue[] = [];
    walk(branch, value, loc, issues, isRoot);
    return { branch, issues };
  });
  if (attempts.some((a) => a.issues.length === 0)) return;
  if (meaningful.every((b) => "const" in b)) {
    out.push({ loc, msg: `Input should be ${listChoices(meaningful.map((b) => b.const))}`, type: "literal_error" });
    return;
  }
  // Report against the branch the value was evidently meant for (same JSON type), else the first non-null one.
  const kind = jsonType(value);
  const sameType = attempts.find((a) => a.branch.type === kind || (kind === "number" && a.branch.type === "integer"));
  const chosen = sameType ?? attempts.find((a) => a.branch.type !== "null") ?? attempts[0];
  if (chosen) out.push(...chosen.issues);
}

function walkObject(schema: Schema, value: unknown, loc: Loc, out: ValidationIssue[], isRoot: boolean): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    out.push(
      isRoot && loc.length === 1
        ? { loc, msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" }
        : { loc, msg: "Input should be a valid dictionary", type: "dict_type" },
    );
    return;
  }
  const record = value as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  for (const [name, propertySchema] of Object.entries(properties)) {
    const present = Object.hasOwn(record, name) ? record[name] : undefined;
    if (present === undefined && !required.has(name)) continue;
    walk(propertySchema, present, [...loc, name], out);
  }
  const patterns = schema.patternProperties as Record<string, Schema> | undefined;
  for (const [name, v] of Object.entries(record)) {
    if (name in properties) continue;
    if (patterns) {
      const entry = Object.entries(patterns).find(([pattern]) => new RegExp(pattern).test(name));
      if (entry) {
        walk(entry[1], v, [...loc, name], out);
        continue;
      }
    }
    // Unknown fields are ignored, never reported (FastAPI's default): Elysia's compiled schemas say
    // additionalProperties: false only so that it can strip them.
    if (schema.additionalProperties && typeof schema.additionalProperties === "object")
      walk(schema.additionalProperties as Schema, v, [...loc, name], out);
  }
  const count = Object.keys(record).length;
  if (typeof schema.minProperties === "number" && count < schema.minProperties) {
    out.push({
      loc,
      msg: `Dictionary should have at least ${plural(schema.minProperties, "item")} after validation, not ${count}`,
      type: "too_short",
    });
  }
  if (typeof schema.maxProperties === "number" && count > schema.maxProperties) {
    out.push({
      loc,
      msg: `Dictionary should have at most ${plural(schema.maxProperties, "item")} after validation, not ${count}`,
      type: "too_long",
    });
  }
}

function walkArray(schema: Schema, value: unknown, loc: Loc, out: ValidationIssue[]): void {
  if (!Array.isArray(value)) {
    out.push({ loc, msg: "Input should be a valid list", type: "list_type" });
    return;
  }
  if (typeof schema.minItems === "number" && value.length < schema.minItems) {
    out.push({
      loc,
      msg: `List should have at least ${plural(schema.minItems, "item")} after validation, not ${value.length}`,
      type: "too_short",
    });
  }
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
    out.push({
      loc,
      msg: `List should have at most ${plural(schema.maxItems, "item")} after validation, not ${value.length}`,
      type: "too_long",
    });
    return;
  }
  if (schema.items && typeof schema.items === "object") {
    value.forEach((item, index) => walk(schema.items as Schema, item, [...loc, index], out));
  }
}

function walkString(schema: Schema, value: unknown, loc: Loc, out: ValidationIssue[]): void {
  if (typeof value !== "string") {
    out.push({ loc, msg: "Input should be a valid string", type: "string_type" });
    return;
  }
  const length = [...value].length;
  if (typeof schema.minLength === "number" && length < schema.minLength) {
    out.push({ loc, msg: `String should have at least ${plural(schema.minLength, "character")}`, type: "string_too_short" });
  } else if (typeof schema.maxLength === "number" && length > schema.maxLength) {
    out.push({ loc, msg: `String should have at most ${plural(schema.maxLength, "character")}`, type: "string_too_long" });
  } else if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) {
    out.push({ loc, msg: `String should match pattern '${schema.pattern}'`, type: "string_pattern_mismatch" });
  }
}

function walkNumber(schema: Schema, value: unknown, loc: Loc, out: ValidationIssue[]): void {
  const integer = schema.type === "integer";
  // Path and query values arrive as text: one that does not read as a number failed to parse, as FastAPI says it.
  if (typeof value === "string" && (loc[0] === "path" || loc[0] === "query")) {
    out.push(
      integer
        ? { loc, msg: "Input should be a valid integer, unable to parse string as an integer", type: "int_parsing" }
        : { loc, msg: "Input should be a valid number, unable to parse string as a number", type: "float_parsing" },
    );
    return;
  }
  if (typeof value !== "number" || !Number.isFinite(value)) {
    out.push(
      integer
        ? { loc, msg: "Input should be a valid integer", type: "int_type" }
        : { loc, msg: "Input should be a valid number", type: "float_type" },
    );
    return;
  }
  if (integer && !Number.isInteger(value)) {
    out.push({ loc, msg: "Input should be a valid integer, got a number with a fractional part", type: "int_from_float" });
    return;
  }
  const bound = (key: string, ok: (limit: number) => boolean, msg: string, type: string) => {
    const limit = schema[key];
    if (typeof limit === "number" && !ok(limit)) out.push({ loc, msg: `${msg} ${limit}`, type });
  };
  bound("minimum", (l) => value >= l, "Input should be greater than or equal to", "greater_than_equal");
  bound("exclusiveMinimum", (l) => value > l, "Input should be greater than", "greater_than");
  bound("maximum", (l) => value <= l, "Input should be less than or equal to", "less_than_equal");
  bound("exclusiveMaximum", (l) => value < l, "Input should be less than", "less_than");
}

/**
 * The offset of the first syntax error in a JSON text, for the
 * `["body", offset]` location FastAPI reports. JavaScriptCore's JSON.parse
 * message carries no position, so this scans the text once.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return;
      }
      if (c < 32) fail();
      if (c === 92) {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail();
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else {
          i++;
          fail();
        }
      } else i++;
    }
    fail();
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) fail();
    i += match![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 512) fail();
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number();
    fail();
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail();
    return 0;
  } catch (offset) {
    return typeof offset === "number" ? Math.min(offset, text.length) : 0;
  }
}
