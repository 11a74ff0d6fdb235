/**
 * The served OpenAPI document as generated clients and linters read it
 * (src/http/openapi-document.ts): bodies with schemas, OpenAPI 3.1 nulls,
 * security stated on every operation, a server to call.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Record<string, unknown> }> };
  responses?: Record<string, unknown>;
}

const PUBLIC = ["GET /healthz", "GET /readyz", "GET /v1/agent-integration", "POST /auth/signup", "POST /auth/signin", "POST /auth/claim"];
const SESSION = ["GET /auth/session", "POST /auth/signout", "POST /dashboard/api/credit"];

let database: TestDatabase;
let app: TestApp;
let doc: any;
let operations: [string, Operation][];

beforeAll(async () => {
  database = await freshDatabase();
  app = await startTestApp(database);
  doc = await jsonOf(app.fetch("/openapi.json"));
  operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation]),
  );
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

/** Every object in the document with its JSON pointer. */
function* objects(node: unknown, at = "#"): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) yield* objects(item, `${at}/${i}`);
  else if (node && typeof node === "object") {
    yield [at, node as Record<string, unknown>];
    for (const [key, value] of Object.entries(node)) yield* objects(value, `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
  }
}

describe("the document", () => {
  test("is OpenAPI 3.1.0, version 1.6.0, with a server to call", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.6.0");
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(doc.servers[0].url).toBe("/");
  });

  test("names PUBLIC_BASE_URL as the server when it is set", async () => {
    const configured = await startTestApp(database, { env: { PUBLIC_BASE_URL: "https://search.example.com/" } });
    try {
      expect((await jsonOf(configured.fetch("/openapi.json"))).servers).toEqual([
        { url: "https://search.example.com", description: "This deployment" },
      ]);
    } finally {
      await configured.stop();
    }
  });

  test("has no `nullable` anywhere (OpenAPI 3.1 puts null in the type)", () => {
    const found = [...objects(doc)].filter(([, node]) => typeof node.nullable === "boolean").map(([at]) => at);
    expect(found).toEqual([]);
  });
});

describe("request bodies", () => {
  test("every operation that takes a body documents it as JSON with a schema", () => {
    const withBody = operations.filter(([, operation]) => operation.requestBody);
    // Every POST, PUT and PATCH takes a body, but these.
    const bodiless = [
      "POST /v1/design-api/{api_id}/release",
      "POST /auth/signout",
      "POST /v1/marketplace/{public_stub}/subscribe",
      "POST /v1/tasks/{task_id}/cancel",
      "POST /v1/webhooks/secret/rotate",
      "POST /v1/webhooks/deliveries/{delivery_id}/redeliver",
      "POST /v1/batches/{batch_id}/cancel",
    ];
    const writes = operations.filter(([name]) => /^(POST|PUT|PATCH) /.test(name) && !bodiless.includes(name)).map(([name]) => name);
    expect(withBody.map(([name]) => name).sort()).toEqual(writes.sort());
    expect(withBody.length).toBeGreaterThanOrEqual(14);
    for (const [name, operation] of withBody) {
      expect({ name, types: Object.keys(operation.requestBody!.content) }).toEqual({ name, types: ["application/json"] });
      expect({ name, schema: typeof operation.requestBody!.content["application/json"]!.schema }).toEqual({ name, schema: "object" });
    }
  });

  test("a body schema is the route's TypeBox schema", () => {
    const search = doc.paths["/v1/search"].post.requestBody;
    expect(search.required).toBe(true);
    expect(search.content["application/json"].schema).toMatchObject({
      type: "object",
      required: ["prompt"],
      properties: { prompt: { type: "string", minLength: 1 } },
    });
    expect(doc.paths["/auth/signin"].post.requestBody.content["application/json"].schema.required).toEqual(["email", "password"]);
  });

  test("a body that may be left out or null is not required: POST /v1/design-api/{api_id}/versions", () => {
    const body = doc.paths["/v1/design-api/{api_id}/versions"].post.requestBody;
    expect(body.required).toBe(false);
    expect(body.content["application/json"].schema.type).toEqual(["object", "null"]);
    expect(body.content["application/json"].schema.properties.version_notes.type).toEqual(["string", "null"]);
  });

  test("operations without a body declare none", () => {
    for (const name of ["GET /v1/account", "DELETE /v1/keys/{key_id}", "POST /v1/design-api/{api_id}/release"]) {
      expect({ name, body: operations.find(([n]) => n === name)![1].requestBody }).toEqual({ name, body: undefined });
    }
  });
});

describe("security", () => {
  test("public operations say `security: []`", () => {
    for (const name of PUBLIC)
      expect({ name, security: operations.find(([n]) => n === name)?.[1].security }).toEqual({ name, security: [] });
  });

  test("every other operation names its scheme: the session cookie on the dashboard's own, X-API-Key on the rest", () => {
    for (const [name, operation] of operations) {
      if (PUBLIC.includes(name)) continue;
      const scheme = SESSION.includes(name) ? "SessionCookie" : "ApiKeyAuth";
      expect({ name, security: operation.security }).toEqual({ name, security: [{ [scheme]: [] }] });
    }
    for (const scheme of ["ApiKeyAuth", "SessionCookie"]) expect(doc.components.securitySchemes[scheme]).toBeDefined();
  });

  test("authenticated operations document 401 and 429; operations with inputs document 422", () => {
    for (const [name, operation] of operations) {
      const codes = Object.keys(operation.responses ?? {});
      if (operation.security?.length) expect({ name, has: ["401", "429"].every((c) => codes.includes(c)) }).toEqual({ name, has: true });
      if (operation.requestBody || operation.parameters?.length) expect({ name, has: codes.includes("422") }).toEqual({ name, has: true });
    }
    expect(doc.components.responses.ValidationFailed.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ValidationError",
    });
  });
});

describe("parameters", () => {
  test("a numeric parameter is documented as the number", () => {
    const apiId = doc.paths["/v1/design-api/{api_id}"].get.parameters.find((p: { name: string }) => p.name === "api_id");
    expect(apiId.schema.type).toBe("integer");
    expect(apiId.schema.anyOf).toBeUndefined();
  });
});
