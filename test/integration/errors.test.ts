/**
 * The error contract: FastAPI's 422 shape for every validation failure, and
 * `{detail, error}` for everything else, never a 500 for bad input and never
 * an internal message in a 500. Part of it runs against a probe route built
 * from the real request-context and body-parser plugins (the foundation has
 * no route with required fields yet); the rest against the real app.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { bodyParser } from "../../src/http/body.ts";
import { requestContext } from "../../src/http/request-context.ts";
import { createLogger } from "../../src/log.ts";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

const logs: string[] = [];
const probe = new Elysia()
  .use(requestContext(createLogger({ level: "debug", sink: (l) => logs.push(l) })))
  .use(bodyParser(64 * 1024))
  .post("/probe", ({ body }) => ({ ok: true, body }), {
    body: t.Object({
      prompt: t.String({ minLength: 1, maxLength: 50 }),
      count: t.Optional(t.Integer({ minimum: 1, maximum: 10 })),
      tags: t.Optional(t.Array(t.String(), { maxItems: 3 })),
      mode: t.Optional(t.Union([t.Literal("fast"), t.Literal("deep")])),
      nested: t.Optional(t.Object({ flag: t.Boolean() })),
      score: t.Optional(t.Nullable(t.Number())),
    }),
  })
  .get("/boom", () => {
    throw new Error("connection to 10.0.0.5 failed: password authentication failed for user admin");
  })
  .get("/pg-error", () => {
    throw Object.assign(new Error('relation "secret_table" does not exist'), { code: "42P01", severity: "ERROR" });
  });
probe.listen({ port: 0, hostname: "127.0.0.1" });
const probeUrl = `http://127.0.0.1:${probe.server!.port}`;

const post = (body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  fetch(`${probeUrl}/probe`, { method: "POST", body, headers });

afterAll(() => probe.stop(true));

describe("validation failures are 422 with FastAPI's exact body", () => {
  test("a missing field", async () => {
    const response = await post(JSON.stringify({ count: 2 }));
    expect(response.status).toBe(422);
    expect(await jsonOf(response)).toEqual({ detail: [{ loc: ["body", "prompt"], msg: "Field required", type: "missing" }] });
  });

  test("a missing body", async () => {
    const response = await fetch(`${probeUrl}/probe`, { method: "POST" });
    expect(response.status).toBe(422);
    expect(await jsonOf(response)).toEqual({ detail: [{ loc: ["body"], msg: "Field required", type: "missing" }] });
  });

  test("wrong types, each named by its location", async () => {
    const response = await post(JSON.stringify({ prompt: 42, count: "many", tags: ["a", 3], nested: { flag: "yes" }, score: "high" }));
    expect(response.status).toBe(422);
    expect(await jsonOf(response)).toEqual({
      detail: [
        { loc: ["body", "prompt"], msg: "Input should be a valid string", type: "string_type" },
        { loc: ["body", "count"], msg: "Input should be a valid integer", type: "int_type" },
        { loc: ["body", "tags", 1], msg: "Input should be a valid string", type: "string_type" },
        { loc: ["body", "nested", "flag"], msg: "Input should be a valid boolean", type: "bool_type" },
        { loc: ["body", "score"], msg: "Input should be a valid number", type: "float_type" },
      ],
    });
  });

  test("bounds, lengths, choices and fractions", async () => {
    const response = await post(JSON.stringify({ prompt: "", count: 11, tags: ["a", "b", "c", "d"], mode: "slow" }));
    expect(await jsonOf(response)).toEqual({
      detail: [
        { loc: ["body", "prompt"], msg: "String should have at least 1 character", type: "string_too_short" },
        { loc: ["body", "count"], msg: "Input should be less than or equal to 10", type: "less_than_equal" },
        { loc: ["body", "tags"], msg: "List should have at most 3 items after validation, not 4", type: "too_long" },
        { loc: ["body", "mode"], msg: "Input should be 'fast' or 'deep'", type: "literal_error" },
      ],
    });
    const fraction = await post(JSON.stringify({ prompt: "x", count: 2.5 }));
    expect((await jsonOf(fraction)).detail).toEqual([
      { loc: ["body", "count"], msg: "Input should be a valid integer, got a number with a fractional part", type: "int_from_float" },
    ]);
  });

  test("malformed JSON is json_invalid at the offset of the error", async () => {
    const response = await post('{"prompt": "hi",, }');
    expect(response.status).toBe(422);
    expect(await jsonOf(response)).toEqual({ detail: [{ loc: ["body", 16], msg: "JSON decode error", type: "json_invalid" }] });
    const truncated = await post('{"prompt": "hi');
    expect((await jsonOf(truncated)).detail[0]).toEqual({ loc: ["body", 14], msg: "JSON decode error", type: "json_invalid" });
  });

  test("a body that is not a JSON object", async () => {
    for (const body of ["[1, 2]", '"text"', "42"]) {
      const response = await post(body);
      expect(response.status).toBe(422);
      expect(await jsonOf(response)).toEqual({
        detail: [
          { loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" },
        ],
      });
    }
  });

  test("a wrong content type", async () => {
    const response = await post("prompt=hello", { "content-type": "application/x-www-form-urlencoded" });
    expect(response.status).toBe(422);
    expect((await jsonOf(response)).detail[0].type).toBe("model_attributes_type");
  });

  test("the input is never echoed back", async () => {
    const secretish = "x".repeat(60) + "UNIQUE-MARKER";
    const text = await (await post(JSON.stringify({ prompt: secretish }))).text();
    expect(text).not.toContain("UNIQUE-MARKER");
  });

  test("a valid body passes, and unknown fields are ignored like FastAPI does", async () => {
    const response = await post(JSON.stringify({ prompt: "ok", extra: 1, __proto__: { polluted: true } }));
    expect(response.status).toBe(200);
    expect(await jsonOf(response)).toEqual({ ok: true, body: { prompt: "ok" } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("bodies over the size limit get 413 with a JSON body", () => {
  test("declared by Content-Length", async () => {
    const response = await post(JSON.stringify({ prompt: "x".repeat(70 * 1024) }));
    expect(response.status).toBe(413);
    expect(await jsonOf(response)).toEqual({ detail: "request body is larger than the 65536 bytes allowed", error: "payload_too_large" });
  });

  test("sent chunked, with no length", async () => {
    const chunk = new TextEncoder().encode("a".repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await fetch(`${probeUrl}/probe`, { method: "POST", body: stream, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(413);
    expect((await jsonOf(response)).error).toBe("payload_too_large");
  });
});

describe("anything unexpected is a generic 500 that carries only the request id", () => {
  test("a thrown error's message never reaches the caller", async () => {
    const response = await fetch(`${probeUrl}/boom`);
    expect(response.status).toBe(500);
    const body = await jsonOf(response);
    const requestId = response.headers.get("x-request-id");
    expect(body).toEqual({
      detail: `internal error; quote request id ${requestId} when reporting it`,
      error: "internal_error",
      request_id: requestId,
    });
  });

  test("an error carrying its own code (as postgres.js errors do) is still a 500", async () => {
    const response = await fetch(`${probeUrl}/pg-error`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain("secret_table");
    expect(text).not.toContain("42P01");
  });

  test("the log line names the error but has no stack trace and no password", () => {
    const line = logs.find((l) => l.includes("unhandled error") && l.includes("password authentication"));
    expect(line).toBeDefined();
    expect(line).not.toContain("    at ");
    expect(line).not.toContain("stack");
  });
});

describe("the real app", () => {
  let database: TestDatabase;
  let app: TestApp;
  let account: TestAccount;
  beforeAll(async () => {
    database = await freshDatabase();
    app = await startTestApp(database);
    account = await app.account({ credit: 1 });
  });
  afterAll(async () => {
    await app.stop();
    await database.drop();
  });
  const keys = (body: string, contentType = "application/json") =>
    app.fetch("/v1/keys", { method: "POST", body, headers: { "X-API-Key": account.apiKey, "content-type": contentType } });

  test("maps its validation failures the same way", async () => {
    expect(await jsonOf(keys('{"name": 5}'))).toEqual({
      detail: [{ loc: ["body", "name"], msg: "Input should be a valid string", type: "string_type" }],
    });
    expect(await jsonOf(keys('{"name": '))).toEqual({ detail: [{ loc: ["body", 9], msg: "JSON decode error", type: "json_invalid" }] });
    const created = await keys('{"name": "ci"}');
    expect(created.status).toBe(201);
  });

  test("unknown fields are never reported, whether the rest of the body is valid or not, on every body", async () => {
    const post = (path: string, body: unknown) =>
      app.fetch(path, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "X-API-Key": account.apiKey, "content-type": "application/json" },
      });
    const failures: [string, unknown, (string | number)[][]][] = [
      ["/v1/keys", { name: 5, extra: 1 }, [["body", "name"]]],
      ["/v1/search", { prompt: 5, id: null }, [["body", "prompt"]]],
      ["/v1/contents", { extra: { deep: [1] } }, [["body", "url"]]],
      ["/v1/design-api", { id: null }, [["body", "original_prompt"]]],
      ["/v1/design-api", { original_prompt: 7, inputs: [{ name: "a", type: "string", colour: "red" }] }, [["body", "original_prompt"]]],
    ];
    for (const [path, body, locs] of failures) {
      const response = await post(path, body);
      expect(response.status).toBe(422);
      expect((await jsonOf(response)).detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual(locs);
    }
    const valid = await post("/v1/keys", { name: "with extras", extra: 1, id: null });
    expect(valid.status).toBe(201);
    expect((await jsonOf(valid)).name).toBe("with extras");
  });

  test("answers unknown routes with a JSON 404", async () => {
    const response = await app.fetch("/v1/nothing-here");
    expect(response.status).toBe(404);
    expect(await jsonOf(response)).toEqual({ detail: "Not Found", error: "not_found" });
  });

  test("returns X-Request-Id, and echoes a sane incoming one", async () => {
    const generated = await app.fetch("/healthz");
    expect(generated.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
    const echoed = await app.fetch("/healthz", { headers: { "X-Request-Id": "trace-abc-12345" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-abc-12345");
    const refused = await app.fetch("/healthz", { headers: { "X-Request-Id": "<script>alert(1)</script>" } });
    expect(refused.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("a database failure is a generic 500 with no SQL in it", async () => {
    await database.handle.db.execute(sql`alter table api_keys rename column name to key_name`);
    try {
      const response = await app.fetch("/v1/keys", { headers: { "X-API-Key": account.apiKey } });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).toContain("internal_error");
      expect(text).not.toMatch(/column|api_keys|select/i);
    } finally {
      await database.handle.db.execute(sql`alter table api_keys rename column key_name to name`);
    }
  });
});
