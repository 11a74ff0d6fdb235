/**
 * What @elysiajs/openapi generates, finished in one place so that linters and
 * generated clients read the document as the wire contract:
 *
 * - Request bodies. The plugin names a body's media type from the route's
 *   parse hooks and skips hooks that are functions; ours (body.ts) is one, so
 *   every body came out as `content: {}`. `withJsonBodies` shows the plugin
 *   the truth by name: every body is read as JSON.
 * - Optional bodies. Our parser reads an empty body as null, so a body whose
 *   schema admits null may be left out: `required: false`.
 * - Nulls. OpenAPI 3.1 has no `nullable` (Elysia's t.Nullable still writes
 *   it): null goes in the type list, or in an anyOf.
 * - Security. A public operation says so with `security: []`, rather than
 *   leaving a reader to guess whether it was forgotten.
 * - The errors every route can give (401, 422, 429, SPEC 7), where the route
 *   does not document its own.
 * - Numbers. Elysia documents t.Numeric and a parameter's t.Integer as "a
 *   number, or a string holding one (default 0)", its schema for parsing a
 *   URL's text. In a URL both are the same characters, and the server
 *   answers with numbers: the document says the number.
 * - Servers: the configured public URL, else this server ("/").
 */
import type { AnyElysia } from "elysia";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The part of an app that the plugin's toOpenAPISchema reads. */
interface RouteSource {
  getGlobalRoutes(): { hooks?: Json }[];
  getGlobalDefinitions?(): unknown;
}

/** A view of the app's routes in which every route with a body declares the JSON parser, as body.ts reads it. */
export function withJsonBodies(app: AnyElysia): AnyElysia {
  const source = app as unknown as RouteSource;
  const view: RouteSource = {
    getGlobalRoutes: () =>
      source
        .getGlobalRoutes()
        .map((route) => (route.hooks?.body ? { ...route, hooks: { ...route.hooks, parse: [{ fn: "json" }] } } : route)),
    getGlobalDefinitions: () => source.getGlobalDefinitions?.(),
  };
  return view as unknown as AnyElysia;
}

const json = (schema: Json) => ({ "application/json": { schema } });
const ref = (kind: "schemas" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });

const ERROR_COMPONENTS = {
  schemas: {
    Error: {
      type: "object",
      description: "Every error status except 422.",
      required: ["detail", "error"],
      properties: {
        detail: { type: "string", description: "A message for people." },
        error: { type: "string", description: "A stable code, e.g. unauthorized, not_found, rate_limited." },
      },
    },
    RateLimitError: {
      type: "object",
      required: ["detail", "error"],
      properties: {
        detail: { type: "string", examples: ["rate limited, try again in 40 seconds"] },
        error: { type: "string", const: "rate_limited" },
        plan: { type: "string" },
        limit_per_minute: { type: "integer" },
        retry_after_seconds: { type: "integer" },
      },
    },
    ValidationError: {
      type: "object",
      description: "FastAPI's validation body (SPEC 2.4).",
      required: ["detail"],
      properties: {
        detail: {
          type: "array",
          items: {
            type: "object",
            required: ["loc", "msg", "type"],
            properties: {
              loc: {
                type: "array",
                items: { type: ["string", "integer"] },
                description: 'Where, e.g. ["body", "prompt"]; malformed JSON gives ["body", <offset>].',
              },
              msg: { type: "string" },
              type: { type: "string", examples: ["missing", "json_invalid"] },
            },
          },
        },
      },
    },
  },
  responses: {
    Unauthorized: {
      description: "The key (or the dashboard session) is missing, unknown, revoked or malformed.",
      content: json(ref("schemas", "Error")),
    },
    ValidationFailed: {
      description: "The input is invalid. Do not retry unchanged.",
      content: json(ref("schemas", "ValidationError")),
    },
    RateLimited: {
      description: "Rate limited: back off, and honour Retry-After.",
      headers: { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } } },
      content: json(ref("schemas", "RateLimitError")),
    },
  },
};

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

function admitsNull(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  return [schema.anyOf, schema.oneOf].some((union) => Array.isArray(union) && union.some(admitsNull));
}

const isNumberText = (schema: unknown) =>
  isObject(schema) && schema.type === "string" && (schema.format === "integer" || schema.format === "numeric");

/**
 * One schema made plain OpenAPI 3.1: `nullable` (3.0) becomes null in the
 * type list or an anyOf; `anyOf: [number text, integer]` becomes the integer,
 * its annotations kept.
 */
function plainSchema(schema: Json): Json {
  const { anyOf } = schema;
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.some(isNumberText)) {
    const { anyOf: _, ...annotations } = schema;
    return plainSchema({ ...annotations, ...(anyOf.find((branch) => !isNumberText(branch)) as Json) });
  }
  if (typeof schema.nullable !== "boolean") return schema;
  const { nullable, ...rest } = schema;
  if (!nullable || admitsNull(rest)) return rest;
  if (typeof rest.type === "string") return { ...rest, type: [rest.type, "null"] };
  if (Array.isArray(rest.type)) return { ...rest, type: [...rest.type, "null"] };
  return { anyOf: [rest, { type: "null" }] };
}

/** A copy of the document with every object, children first, through plainSchema. */
function plain(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plain);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = plain(value);
  return plainSchema(out);
}

function finishOperation(operation: Json): void {
  const security = operation.security as Json[] | undefined;
  if (!security) operation.security = [];
  const responses = (operation.responses ??= {}) as Json;
  const add = (status: string, name: string) => {
    responses[status] ??= ref("responses", name);
  };
  if (security?.length) {
    add("401", "Unauthorized");
    add("429", "RateLimited");
  }
  const body = operation.requestBody as Json | undefined;
  if (body) {
    const schema = (body.content as Json | undefined)?.["application/json"] as Json | undefined;
    body.required = !admitsNull(schema?.schema);
  }
  if (body || (operation.parameters as unknown[] | undefined)?.length) add("422", "ValidationFailed");
}

export interface DocumentSettings {
  /** PUBLIC_BASE_URL when set: clients that download the document call it there. */
  publicBaseUrl?: string;
}

/** The generated document, finished (see the top of this file). The plugin's objects are left as they are: this works on a copy. */
export function finishDocument(generated: Json, settings: DocumentSettings = {}): Json {
  const document = plain(generated) as Json;
  for (const item of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) if (METHODS.has(method) && isObject(operation)) finishOperation(operation);
  }
  const components = (document.components ?? {}) as Json;
  document.components = {
    ...components,
    schemas: { ...ERROR_COMPONENTS.schemas, ...(components.schemas as Json | undefined) },
    responses: { ...ERROR_COMPONENTS.responses, ...(components.responses as Json | undefined) },
  };
  document.servers = [
    settings.publicBaseUrl
      ? { url: settings.publicBaseUrl, description: "This deployment" }
      : { url: "/", description: "The server this document is served from" },
  ];
  return document;
}
