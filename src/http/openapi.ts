import { Elysia } from "elysia";
import { fileURLToPath } from "node:url";
import { notFound } from "../errors.ts";
import { openapi, toOpenAPISchema } from "@elysiajs/openapi";
import type { ElysiaOpenAPIConfig } from "@elysiajs/openapi/types";
import { SESSION_COOKIE } from "./cookies.ts";
import { finishDocument, withJsonBodies } from "./openapi-document.ts";

export const API_VERSION = "1.6.0";
export const SECURITY_SCHEME = "ApiKeyAuth";
export const SESSION_SCHEME = "SessionCookie";
export const SPEC_PATH = "/openapi.json";
const OPENAPI_VERSION = "3.1.0";

/** The OpenAPI extension that marks an operation whose calls are billed for the tokens they use (http/call.ts). */
export const BILLABLE = "x-billable";

/**
 * OpenAPI `detail` for a route that needs X-API-Key. A billable route (one
 * whose calls cost tokens: a research run, a page read) says so here, and
 * only here: the document shows it as `x-billable: true`, and the route's
 * Call (http/call.ts) then lets it, and requires it to, hand over its usage.
 */
export function secured<T extends Record<string, unknown>>(
  detail: T,
  options: { billable?: boolean } = {},
): T & { security: Record<string, string[]>[] } {
  return { ...detail, security: [{ [SECURITY_SCHEME]: [] }], ...(options.billable ? { [BILLABLE]: true } : {}) };
}

/** Whether a route's `detail` declares it billable. */
export function isBillable(detail: unknown): boolean {
  return typeof detail === "object" && detail !== null && (detail as Record<string, unknown>)[BILLABLE] === true;
}

/** OpenAPI `detail` for a dashboard route that only a signed-in session (cookie plus X-CSRF-Token) may call. */
export function sessionOnly<T extends Record<string, unknown>>(detail: T): T & { security: Record<string, string[]>[] } {
  return { ...detail, security: [{ [SESSION_SCHEME]: [] }] };
}

// OpenAPI has no WebSocket operation: the socket is documented by hand below, as the GET it upgrades.
const EXCLUDE = { paths: [/^\/docs/], methods: ["WS", "ws"] };

const DOCUMENTATION = {
  info: {
    title: "Agentic search API",
    version: API_VERSION,
    description:
      "A self-hostable agentic search service, wire-compatible with Critique Labs' public API. Authenticate every call (except discovery, health and docs) with the `X-API-Key` header.",
  },
  components: {
    securitySchemes: {
      [SECURITY_SCHEME]: { type: "apiKey", in: "header", name: "X-API-Key" },
      // The dashboard's own routes; state-changing calls also need the session's X-CSRF-Token header.
      [SESSION_SCHEME]: { type: "apiKey", in: "cookie", name: SESSION_COOKIE },
    },
  },
  paths: {
    "/v1/ws/search": {
      get: secured(
        {
          operationId: "getV1WsSearch",
          tags: ["Search"],
          summary: "Stream a search over a WebSocket",
          description:
            'Upgrade with the key in X-API-Key (browsers: subprotocols ["x-api-key", <key>]; the server answers "x-api-key"). A missing or bad key refuses the upgrade with 401, the key of a suspended or banned account with 403 account_suspended, a rate-limited key with 429. Send one JSON message with the fields of POST /v1/search. The server sends JSON text messages {"type": "context" | "response" | "error", "content": ...}: context first, then response deltas (with output_format, one response holding the object), and closes normally when the run ends. An invalid message gets one error, then the close; so does a run whose account is suspended or banned while it runs. With the query parameter info=true, a run that finished sends one last message before the close, {"type": "info", "content": ...}: the info object POST /v1/search answers, with the call\'s request_id.',
          parameters: [
            {
              name: "info",
              in: "query" as const,
              required: false,
              schema: { type: "boolean" as const, default: false },
              description:
                'Read-only addition: when true, a run that finished ends with an "info" message (its token usage, queries, timings_ms, providers, pages and request_id) before the close.',
            },
          ],
          responses: {
            "101": { description: "Switching protocols: the search socket is open." },
            "401": { description: "Missing or invalid key; the upgrade is refused." },
            "403": { description: "The account is suspended or banned (account_suspended, with the reason); the upgrade is refused." },
            "429": { description: "Rate limited; the upgrade is refused." },
          },
        },
        { billable: true },
      ),
    },
  },
  tags: [
    { name: "Account", description: "The caller's account and API keys." },
    {
      name: "Search",
      description: "Agentic search: a prompt in, a cited answer out (JSON, server-sent events, or the WebSocket at /v1/ws/search).",
    },
    {
      name: "Designed endpoints",
      description: "Private, versioned, typed endpoints designed from a research task in words, and running them.",
    },
    { name: "Marketplace", description: "Published endpoints: publish, browse, and run other accounts' endpoints." },
    { name: "Dashboard", description: "Sign-up, sign-in and the session of the owners' dashboard (served at /dashboard)." },
    { name: "Contents", description: "Read a page's main content, through the SSRF guard and the page cache." },
    { name: "Discovery", description: "How agents integrate with this service." },
    { name: "Operations", description: "Health and readiness." },
  ],
} satisfies ElysiaOpenAPIConfig["documentation"];

type Json = Record<string, unknown>;

/**
 * The finished document of the app the docs are part of (what /openapi.json
 * serves), and the schemas of its operations: other faces (MCP's tools) read
 * their schemas here, so every face states a limit the way the route that
 * validates it does, from the same TypeBox model.
 */
export interface ApiDocument {
  document(): Json;
  /** The JSON request body's schema of an operation (path as the document writes it: `/v1/x/{id}`). */
  requestBody(method: string, path: string): Json | undefined;
  /** The JSON schema of an operation's response with `status`. */
  response(method: string, path: string, status?: string): Json | undefined;
  /** An operation's path parameters as one object schema, each under its name (what a tool takes for them). */
  pathParameters(method: string, path: string): Json | undefined;
}

/**
 * The document at /openapi.json and the reference page at /docs, generated
 * from the route schemas. The plugin serves both; its document is replaced
 * by the finished one (openapi-document.ts), regenerated when routes change.
 */
export function openapiDocs(publicBaseUrl?: string) {
  const docs = new Elysia();
  let cached: { routes: number; document: Json } | undefined;
  const document = () => {
    const routes = (docs as unknown as { getGlobalRoutes(): unknown[] }).getGlobalRoutes().length;
    if (cached?.routes === routes) return cached.document;
    const generated = toOpenAPISchema(withJsonBodies(docs), EXCLUDE, undefined, undefined, OPENAPI_VERSION);
    const full = {
      ...DOCUMENTATION,
      openapi: OPENAPI_VERSION,
      paths: { ...generated.paths, ...DOCUMENTATION.paths },
      components: { ...DOCUMENTATION.components, schemas: generated.components.schemas },
    };
    cached = { routes, document: finishDocument(full, { publicBaseUrl }) };
    return cached.document;
  };
  const operation = (method: string, path: string) =>
    ((document().paths as Record<string, Record<string, Json>> | undefined)?.[path]?.[method.toLowerCase()] ?? undefined) as
      | Json
      | undefined;
  const jsonSchema = (holder: unknown) =>
    ((holder as Json | undefined)?.content as Json | undefined)?.["application/json"] as Json | undefined;
  const plugin = docs
    .onAfterHandle(({ route }) => (route === SPEC_PATH ? document() : undefined))
    .use(
      openapi({
        path: "/docs",
        specPath: SPEC_PATH,
        openapiVersion: OPENAPI_VERSION,
        provider: "swagger-ui",
        // The page loads its viewer from this service (swagger-ui-dist), never from a CDN.
        swagger: { cdn: "/docs/assets/swagger-ui-bundle.js", theme: "/docs/assets/swagger-ui.css", autoDarkMode: false },
        exclude: EXCLUDE,
        documentation: DOCUMENTATION,
      }),
    );
  const api: ApiDocument = {
    document,
    requestBody: (method, path) => jsonSchema(operation(method, path)?.requestBody)?.schema as Json | undefined,
    response: (method, path, status = "200") =>
      jsonSchema((operation(method, path)?.responses as Json | undefined)?.[status])?.schema as Json | undefined,
    pathParameters: (method, path) => {
      const inPath = ((operation(method, path)?.parameters ?? []) as Json[]).filter((p) => p.in === "path");
      if (!inPath.length) return undefined;
      return {
        type: "object",
        properties: Object.fromEntries(inPath.map((p) => [p.name, p.schema])),
        required: inPath.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false,
      };
    },
  };
  return { plugin, document: api };
}

const DOCS_ASSETS: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

/** The docs page's own script and stylesheet, served from node_modules. */
export function docsAssets() {
  return new Elysia().get("/docs/assets/:file", ({ params }) => {
    const type = DOCS_ASSETS[params.file];
    if (!type) throw notFound("asset");
    const file = Bun.file(fileURLToPath(import.meta.resolve(`swagger-ui-dist/${params.file}`)));
    return new Response(file, { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
  });
}
