/**
 * SPEC 2.4, the validation error body (422): `{"detail": [{loc, msg, type}]}`
 * on every route that validates, for bodies, path parameters and queries.
 * FastAPI's convention is followed for `loc`: strings, except a list index
 * or a JSON offset, which are integers.
 */
import { beforeAll, expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import { clause } from "./clause.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
let endpoint: { id: string | number; stub: string };

beforeAll(async () => {
  endpoint = (await jsonOf(s.call("POST", "/v1/design-api", landmarkEndpoint))).response;
});

type Issue = { loc: (string | number)[]; msg: string; type: string };

/** The 422's body, checked against 2.4 member by member. */
async function detailOf(response: Response | Promise<Response>): Promise<Issue[]> {
  const answered = await response;
  expect(answered.status).toBe(422);
  expect(answered.headers.get("content-type")).toContain("application/json");
  const body = await jsonOf(answered);
  expect(Object.keys(body)).toEqual(["detail"]);
  expect(Array.isArray(body.detail)).toBe(true);
  expect(body.detail.length).toBeGreaterThan(0);
  for (const issue of body.detail) {
    expect(Object.keys(issue).sort()).toEqual(["loc", "msg", "type"]);
    expect(Array.isArray(issue.loc)).toBe(true);
    expect(["body", "path", "query"]).toContain(issue.loc[0]);
    for (const part of issue.loc) expect(typeof part === "string" || Number.isInteger(part)).toBe(true);
    expect(typeof issue.msg).toBe("string");
    expect(issue.msg.length).toBeGreaterThan(0);
    expect(typeof issue.type).toBe("string");
    expect(issue.type).toMatch(/^[a-z_]+$/);
  }
  return body.detail;
}

const raw = (path: string, body: string, contentType = "application/json") =>
  s.app.fetch(path, { method: "POST", headers: { "X-API-Key": s.apiKey, "content-type": contentType }, body });

clause("2.4 · ¶1", "POST /v1/search: detail lists every problem, each with loc, msg, type", async () => {
  const detail = await detailOf(s.search({ prompt: 42, source_whitelist: "a.com", output_format: { a: "text" } }));
  expect(detail).toEqual(
    expect.arrayContaining([
      { loc: ["body", "prompt"], msg: "Input should be a valid string", type: "string_type" },
      { loc: ["body", "source_whitelist"], msg: "Input should be a valid list", type: "list_type" },
    ]),
  );
});

clause("2.4 · ¶1", "a missing field is type missing with FastAPI's message", async () => {
  expect(await detailOf(s.search({}))).toEqual([{ loc: ["body", "prompt"], msg: "Field required", type: "missing" }]);
  expect(await detailOf(s.call("POST", "/v1/design-api", {}))).toEqual([
    { loc: ["body", "original_prompt"], msg: "Field required", type: "missing" },
  ]);
  expect(await detailOf(s.call("POST", "/v1/contents", {}))).toEqual([{ loc: ["body", "url"], msg: "Field required", type: "missing" }]);
});

clause("2.4 · ¶1", "a missing or non-object body is a 422 at loc [body]", async () => {
  expect(await detailOf(s.app.fetch("/v1/search", { method: "POST", headers: { "X-API-Key": s.apiKey } }))).toEqual([
    { loc: ["body"], msg: "Field required", type: "missing" },
  ]);
  for (const body of ["[1, 2]", '"text"', "42"]) {
    expect(await detailOf(raw("/v1/search", body))).toEqual([
      { loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" },
    ]);
  }
});

clause("2.4 · ¶1", "malformed JSON is json_invalid with the offset of the error in loc (an integer, as FastAPI does)", async () => {
  expect(await detailOf(raw("/v1/search", '{"prompt": "x",}'))).toEqual([
    { loc: ["body", 15], msg: "JSON decode error", type: "json_invalid" },
  ]);
});

clause("2.4 · ¶1", "a list entry's index in loc is an integer", async () => {
  const detail = await detailOf(s.search({ prompt: "x", source_blacklist: ["ok.test", 7] }));
  expect(detail).toEqual([{ loc: ["body", "source_blacklist", 1], msg: "Input should be a valid string", type: "string_type" }]);
});

clause(
  "2.4 · ¶1",
  "the same body shape on the other routes: contents, design-api, PATCH, versions, keys, a designed endpoint's run",
  async () => {
    expect(await detailOf(s.call("POST", "/v1/contents", { url: 5 }))).toEqual([
      { loc: ["body", "url"], msg: "Input should be a valid string", type: "string_type" },
    ]);
    expect(await detailOf(s.call("POST", "/v1/design-api", { original_prompt: "x", inputs: [{ name: "1a", type: "string" }] }))).toEqual([
      { loc: ["body", "inputs", 0, "name"], msg: expect.stringContaining("pattern"), type: "string_pattern_mismatch" },
    ]);
    expect(await detailOf(s.call("PATCH", `/v1/design-api/${endpoint.id}`, { api_name: 5 }))).toEqual([
      { loc: ["body", "api_name"], msg: "Input should be a valid string", type: "string_type" },
    ]);
    expect(await detailOf(s.call("POST", `/v1/design-api/${endpoint.id}/versions`, { version_notes: 5 }))).toEqual([
      { loc: ["body", "version_notes"], msg: "Input should be a valid string", type: "string_type" },
    ]);
    expect(await detailOf(s.call("POST", "/v1/keys", { name: 5 }))).toEqual([
      { loc: ["body", "name"], msg: "Input should be a valid string", type: "string_type" },
    ]);
    expect(await detailOf(s.call("POST", `/v1/user-defined-service/${endpoint.stub}`, { landmark: 5 }))).toEqual([
      { loc: ["body", "landmark"], msg: "Input should be a valid string", type: "string_type" },
    ]);
  },
);

clause("2.4 · ¶1", "a query parameter's problem is at loc [query, name]", async () => {
  const detail = await detailOf(s.call("GET", "/v1/design-api?all_versions=maybe"));
  expect(detail.length).toBe(1);
  expect(detail[0]!.loc).toEqual(["query", "all_versions"]);
});

clause("2.4 · ¶1", "a non-integer api_id is a 422 at loc [path, api_id], type int_parsing, on every design-api route", async () => {
  const calls: [string, string][] = [
    ["GET", "/v1/design-api/abc"],
    ["PATCH", "/v1/design-api/abc"],
    ["DELETE", "/v1/design-api/abc"],
    ["GET", "/v1/design-api/abc/versions"],
    ["POST", "/v1/design-api/abc/versions"],
    ["POST", "/v1/design-api/abc/release"],
    ["GET", "/v1/design-api/1.5"],
  ];
  for (const [method, path] of calls) {
    const detail = await detailOf(s.call(method, path, method === "PATCH" ? { api_name: "x" } : undefined));
    expect(detail).toEqual([{ loc: ["path", "api_id"], msg: expect.any(String), type: "int_parsing" }]);
  }
});

clause("2.4 · ¶1", "unknown fields are never reported: no detail entry is an extra field", async () => {
  const bodies: [string, string, unknown][] = [
    ["POST", "/v1/search", { prompt: 5, zzz: 1 }],
    ["POST", "/v1/contents", { url: 5, zzz: 1 }],
    ["POST", "/v1/design-api", { original_prompt: 5, zzz: 1 }],
    ["POST", "/v1/design-api", { original_prompt: "x", inputs: [{ name: "1a", type: "string", zzz: 1 }] }],
    ["PATCH", `/v1/design-api/${endpoint.id}`, { api_name: 5, zzz: 1 }],
    ["POST", "/v1/keys", { name: 5, zzz: 1 }],
    ["POST", `/v1/user-defined-service/${endpoint.stub}`, { landmark: 5, zzz: 1 }],
  ];
  for (const [method, path, body] of bodies) {
    const detail = await detailOf(s.call(method, path, body));
    expect(detail.length).toBe(1);
    for (const issue of detail) {
      expect(issue.type).not.toBe("extra_forbidden");
      expect(issue.msg).not.toContain("Extra inputs");
      expect(issue.loc).not.toContain("zzz");
    }
  }
});

clause("2.4 · ¶1", "the 422 never echoes the input back", async () => {
  const marker = "UNIQUE-MARKER-" + "x".repeat(30);
  const text = await (await s.search({ prompt: 5, source_blacklist: [marker + " not a domain"] })).text();
  expect(text).not.toContain("UNIQUE-MARKER");
});
