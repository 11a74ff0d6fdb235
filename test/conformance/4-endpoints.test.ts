/**
 * SPEC 4, the endpoint table: every row over real HTTP, its request, its
 * answer's status and shape, and the choices the service made where the
 * spec says "not shown" (discovery members, the contents request and
 * answer, design-api members, the DELETE and release bodies).
 */
import { beforeAll, expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import { rawUpgrade } from "../helpers/websocket.ts";
import { clause } from "./clause.ts";
import {
  designerOnly,
  endpointCalls,
  INT_PARSING,
  LANDMARK_FIELDS,
  NOT_FOUND,
  RECORD_FIELDS,
  VERSION_NOT_FOUND,
  type Rec,
} from "./endpoints-world.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const e = endpointCalls(s);
const UNAUTHORIZED = { detail: "missing or invalid API key (send it in the X-API-Key header)", error: "unauthorized" };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** info.token_usage is a number (the total) and info.tokens the breakdown, as 2.3 says. */
function expectTokens(info: Rec) {
  expect(typeof info.token_usage).toBe("number");
  expect(Number.isInteger(info.token_usage) && info.token_usage > 0).toBe(true);
  expect(Object.keys(info.tokens).sort()).toEqual(["completion", "prompt", "total"]);
  expect(info.tokens.total).toBe(info.token_usage);
}

let record: Rec;
let publicStub: string;

beforeAll(async () => {
  record = await e.create();
  publicStub = (await e.publish(record.id, { public_stub: "section-four-landmarks" })).public_stub;
});

/** Every authenticated row of the table, with a body where one is needed. */
const ROUTES = (): [string, string, unknown?][] => [
  ["POST", "/v1/search", { prompt: "When was the Eiffel Tower completed?" }],
  ["POST", "/v1/contents", { url: s.world.url("wiki.test", "/eiffel.html") }],
  ["POST", `/v1/user-defined-service/${record.stub}`, { landmark: "Eiffel Tower" }],
  ["POST", `/v1/user-defined-service/${record.stub}/v1`, { landmark: "Eiffel Tower" }],
  ["POST", `/v1/published-service/${publicStub}`, { landmark: "Eiffel Tower" }],
  ["POST", `/v1/published-service/${publicStub}/v1`, { landmark: "Eiffel Tower" }],
  ["POST", "/v1/design-api", { original_prompt: "Given a city, find its mayor" }],
  ["GET", "/v1/design-api"],
  ["GET", `/v1/design-api/${record.id}`],
  ["PATCH", `/v1/design-api/${record.id}`, { api_name: "x" }],
  ["GET", `/v1/design-api/${record.id}/versions`],
  ["POST", `/v1/design-api/${record.id}/versions`],
  ["POST", `/v1/design-api/${record.id}/release`],
  ["DELETE", `/v1/design-api/${record.id}`],
];

const noKey = (method: string, path: string, body?: unknown) =>
  s.app.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

clause("4 · ¶1", "every endpoint but discovery requires X-API-Key: each row without it is a 401, and changes nothing", async () => {
  for (const [method, path, body] of ROUTES()) {
    const response = await noKey(method, path, body);
    expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} 401`);
    expect(await response.json()).toEqual(UNAUTHORIZED);
  }
  expect(await e.get(record.id)).toMatchObject({ api_name: "Landmark facts", version: 1 });
  expect((await noKey("GET", "/v1/agent-integration")).status).toBe(200);
});

clause("4 · ¶1", "bodies are JSON: every answer of the table is application/json", async () => {
  const fresh = await e.create();
  const routes = ROUTES().map(
    ([m, p, b]) => [m, p.replace(`/design-api/${record.id}`, `/design-api/${fresh.id}`), b] as [string, string, unknown?],
  );
  for (const [method, path, body] of [["GET", "/v1/agent-integration"] as [string, string], ...routes]) {
    const response = await s.call(method, path, body);
    expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} 200`);
    expect(response.headers.get("content-type")).toContain("application/json");
    await response.json();
  }
});

clause(
  "4 · ¶1",
  "unknown top-level members of any body are ignored and never reported: every body-taking row answers 200 with one",
  async () => {
    const fresh = await e.create();
    const extra = { unknown_member: { nested: true }, another: [1] };
    const rows: [string, string, Rec][] = [
      ["POST", "/v1/search", { prompt: "When was the Eiffel Tower completed?" }],
      ["POST", "/v1/contents", { url: s.world.url("wiki.test", "/eiffel.html") }],
      ["POST", `/v1/user-defined-service/${record.stub}`, { landmark: "Eiffel Tower" }],
      ["POST", `/v1/user-defined-service/${record.stub}/v1`, { landmark: "Eiffel Tower" }],
      ["POST", `/v1/published-service/${publicStub}`, { landmark: "Eiffel Tower" }],
      ["POST", `/v1/published-service/${publicStub}/v1`, { landmark: "Eiffel Tower" }],
      ["POST", "/v1/design-api", { original_prompt: "Given a city, find its mayor" }],
      ["PATCH", `/v1/design-api/${fresh.id}`, { api_name: "Renamed" }],
      ["POST", `/v1/design-api/${fresh.id}/versions`, { version_notes: "n" }],
      ["POST", `/v1/design-api/${fresh.id}/publish`, {}],
    ];
    for (const [method, path, body] of rows) {
      const response = await s.call(method, path, { ...body, ...extra });
      const text = await response.text();
      expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} 200`);
      expect(text).not.toContain("unknown_member");
    }
  },
);

clause("4 · ¶1", "a body that is not a JSON object is a 422 (model_attributes_type at [body])", async () => {
  const response = await s.app.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": s.apiKey, "content-type": "application/json" },
    body: "[1, 2]",
  });
  expect(response.status).toBe(422);
  expect(await response.json()).toEqual({
    detail: [{ loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" }],
  });
});

clause(
  "4 · ¶1",
  "api_id is an integer: a non-integer is a 422 int_parsing at [path, api_id] on every api_id route, /publish included",
  async () => {
    const routes: [string, string][] = [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["GET", "/versions"],
      ["POST", "/versions"],
      ["POST", "/release"],
      ["POST", "/publish"],
    ];
    for (const bad of ["abc", "1.5", "api_01abc"]) {
      for (const [method, suffix] of routes) {
        const response = await s.call(method, `/v1/design-api/${bad}${suffix}`, method === "PATCH" ? { api_name: "x" } : undefined);
        expect(`${method} ${bad}${suffix} ${response.status}`).toBe(`${method} ${bad}${suffix} 422`);
        expect(await response.json()).toEqual(INT_PARSING);
      }
    }
  },
);

clause(
  "4 · ¶1",
  "api_id is an integer: another account's id and an absent one are 404 {detail: endpoint not found, error: not_found} on every api_id route",
  async () => {
    const other = await s.app.account({ name: "other", limit: 100_000 });
    const routes: [string, string][] = [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["GET", "/versions"],
      ["POST", "/versions"],
      ["POST", "/release"],
      ["POST", "/publish"],
    ];
    for (const [id, key] of [
      [record.id, other.apiKey],
      [2_000_000_000, s.apiKey],
    ] as [number, string][]) {
      for (const [method, suffix] of routes) {
        const response = await s.call(method, `/v1/design-api/${id}${suffix}`, method === "PATCH" ? { api_name: "x" } : undefined, key);
        expect(`${method} ${id}${suffix} ${response.status}`).toBe(`${method} ${id}${suffix} 404`);
        expect(await response.json()).toEqual(NOT_FOUND);
      }
    }
    expect((await e.get(record.id)).api_name).toBe("Landmark facts");
  },
);

clause("4 · ¶1", "version is an integer and api_stub a string: /v{n} with anything but digits is a 404", async () => {
  for (const suffix of ["/vabc", "/v1.5", "/1", "/latest", "/v-1"]) {
    const response = await e.run(record.stub, undefined, suffix);
    expect(`${suffix} ${response.status}`).toBe(`${suffix} 404`);
    expect(await response.json()).toEqual(VERSION_NOT_FOUND);
  }
});

clause("4 · GET /v1/agent-integration", "no authentication: 200 JSON with or without a key", async () => {
  for (const headers of [{}, { "X-API-Key": "not-a-key" }] as Record<string, string>[]) {
    const response = await s.app.fetch("/v1/agent-integration", { headers });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
  }
});

clause("4 · GET /v1/agent-integration", "clients holds per-tool install and invoke commands", async () => {
  const { clients } = await jsonOf(s.app.fetch("/v1/agent-integration"));
  // The tools the guide feeds, the MCP clients that add /mcp (issue 16) and the OpenAI-compatible clients (issue 27).
  expect(Object.keys(clients).sort()).toEqual([
    "claude_code",
    "codex",
    "curl",
    "cursor",
    "javascript",
    "mcp_claude_code",
    "mcp_cursor",
    "mcp_streamable_http",
    "mcp_vscode",
    "openai_python",
    "openai_typescript",
    "python",
    "vercel_ai_sdk",
  ]);
  for (const recipe of Object.values(clients) as Rec[]) {
    expect(Object.keys(recipe).sort()).toEqual(["install", "invoke"]);
    expect(typeof recipe.install).toBe("string");
    expect(recipe.invoke.length).toBeGreaterThan(0);
  }
  expect(clients.curl.invoke).toContain(`${s.app.url}/v1/search`);
  expect(clients.curl.invoke).toContain("X-API-Key");
});

clause(
  "4 · GET /v1/agent-integration",
  "member names besides clients (not shown): name, version, base_url, auth, prompt, routes, resources",
  async () => {
    const body = await jsonOf(s.app.fetch("/v1/agent-integration"));
    expect(Object.keys(body).sort()).toEqual(["auth", "base_url", "clients", "name", "prompt", "resources", "routes", "version"]);
    expect(body).toMatchObject({
      name: "agentic-search",
      version: "1.6.0",
      base_url: s.app.url,
      auth: { header: "X-API-Key", env_var: "CRITIQUE_API_KEY" },
    });
    expect(body.prompt).toContain("X-API-Key");
    expect(body.routes).toContainEqual(expect.objectContaining({ method: "POST", path: "/v1/search", authenticated: true }));
    expect(body.routes).toContainEqual(expect.objectContaining({ method: "GET", path: "/v1/agent-integration", authenticated: false }));
    expect(body.resources).toEqual({ openapi: `${s.app.url}/openapi.json`, docs: `${s.app.url}/docs` });
    expect((await fetch(body.resources.openapi)).status).toBe(200);
  },
);

clause("4 · POST /v1/search", "a search request answers 200 {response, context, info}", async () => {
  const body = await e.ok(s.search({ prompt: "When was the Eiffel Tower completed?" }));
  expect(Object.keys(body).sort()).toEqual(["context", "info", "response"]);
  expect(body.response).toContain("1889");
  expect(typeof body.info.token_usage).toBe("number");
});

clause(
  "4 · POST /v1/search",
  "the body is required: none is a 422 missing at [body]; no prompt is a 422 missing at [body, prompt]",
  async () => {
    const none = await s.app.fetch("/v1/search", { method: "POST", headers: { "X-API-Key": s.apiKey } });
    expect(none.status).toBe(422);
    expect(await none.json()).toEqual({ detail: [{ loc: ["body"], msg: "Field required", type: "missing" }] });
    const empty = await s.search({});
    expect(empty.status).toBe(422);
    expect(await empty.json()).toEqual({ detail: [{ loc: ["body", "prompt"], msg: "Field required", type: "missing" }] });
  },
);

clause("4 · POST /v1/search", "unknown top-level fields are ignored and never reported; empty options are not given", async () => {
  const body = await e.ok(
    s.search({ prompt: "When was the Eiffel Tower completed?", stream: false, model: "whatever", source_blacklist: [], output_format: {} }),
  );
  expect(typeof body.response).toBe("string");
  const invalid = await s.search({ prompt: 5, stream: false });
  expect(invalid.status).toBe(422);
  expect((await invalid.json()).detail.map((d: Rec) => d.loc)).toEqual([["body", "prompt"]]);
});

clause(
  "4 · POST /v1/contents",
  "200 with the post-processed page; the answer's fields (not shown): url, final_url, title, byline, site_name, published_at, language, content_type, content, word_count, token_count, links, fetched_at, cached, truncated",
  async () => {
    const url = s.world.url("wiki.test", "/eiffel.html");
    const body = await e.ok(s.call("POST", "/v1/contents", { url }));
    expect(Object.keys(body).sort()).toEqual([
      "byline",
      "cached",
      "content",
      "content_type",
      "fetched_at",
      "final_url",
      "language",
      "links",
      "published_at",
      "site_name",
      "title",
      "token_count",
      "truncated",
      "url",
      "word_count",
    ]);
    expect(body).toMatchObject({ url, final_url: url, title: "Eiffel Tower", content_type: "text/html", language: "en", truncated: false });
    expect(body.content).toContain("completed in 1889");
    expect(body.content).not.toContain("<p>");
    for (const count of ["word_count", "token_count"]) expect(Number.isInteger(body[count]) && body[count] > 0).toBe(true);
    expect(body.fetched_at).toMatch(ISO);
    expect(typeof body.cached).toBe("boolean");
    expect(body.links.every((l: unknown) => typeof l === "string")).toBe(true);
  },
);

clause(
  "4 · POST /v1/contents",
  "the request's fields (not shown): url (required), format markdown|text|html, max_characters, max_age_seconds",
  async () => {
    const url = s.world.url("wiki.test", "/eiffel.html");
    const markdown = await e.ok(s.call("POST", "/v1/contents", { url, format: "markdown" }));
    expect(markdown.content).toContain("[full report](");
    const text = await e.ok(s.call("POST", "/v1/contents", { url, format: "text", max_age_seconds: 3600 }));
    expect(text.content).toContain("completed in 1889");
    expect(text.content).not.toContain("](");
    const html = await e.ok(s.call("POST", "/v1/contents", { url, format: "html" }));
    expect(html.content).toMatch(/<p>|<a /);
    const cut = await e.ok(s.call("POST", "/v1/contents", { url, max_characters: 20 }));
    expect(cut.content.length).toBe(20);
    expect(cut.truncated).toBe(true);
    const again = await e.ok(s.call("POST", "/v1/contents", { url, unknown_member: true }));
    expect(again.cached).toBe(true);
  },
);

clause("4 · POST /v1/contents", "422 per 2.4: no url, a format outside the three, a non-integer max_characters", async () => {
  const cases: [unknown, (string | number)[]][] = [
    [{}, ["body", "url"]],
    [{ url: s.world.url("wiki.test", "/eiffel.html"), format: "pdf" }, ["body", "format"]],
    [{ url: s.world.url("wiki.test", "/eiffel.html"), max_characters: 2.5 }, ["body", "max_characters"]],
  ];
  for (const [body, loc] of cases) {
    const response = await s.call("POST", "/v1/contents", body);
    expect(response.status).toBe(422);
    const detail = (await response.json()).detail;
    expect(detail.map((d: Rec) => d.loc)).toEqual([loc]);
    for (const d of detail) expect([typeof d.msg, typeof d.type]).toEqual(["string", "string"]);
  }
});

clause(
  "4 · POST /v1/user-defined-service/{api_stub}",
  "the endpoint's inputs in, 200 {response, context, info} out, running the live version",
  async () => {
    const v1 = await e.create();
    const v2 = await e.newVersion(v1.id);
    await e.patch(v2.id, designerOnly);
    const body = await e.ok(e.run(v1.stub, { landmark: "Eiffel Tower" }));
    expect(Object.keys(body).sort()).toEqual(["context", "info", "response"]);
    expect(body.response).toEqual({ completed_year: 1889, height_metres: 330, designer: expect.any(String) });
    expectTokens(body.info);
    await e.release(v2.id);
    expect(await e.ranFields(e.run(v1.stub))).toEqual(["designer"]);
  },
);

clause("4 · POST /v1/user-defined-service/{api_stub}", "plus optional include_domains or exclude_domains", async () => {
  for (const scope of [{ include_domains: ["wiki.test"] }, { exclude_domains: ["spam.test"] }]) {
    const body = await e.ok(e.run(record.stub, { landmark: "Eiffel Tower", ...scope }));
    expect(body.context.length).toBeGreaterThan(0);
  }
});

clause("4 · POST /v1/user-defined-service/{api_stub}", "another account's stub and an unknown stub are 404", async () => {
  const other = await s.app.account({ name: "stub-prober", limit: 100_000 });
  for (const [stub, key] of [
    [record.stub, other.apiKey],
    ["no-such-stub-zzzzzz", s.apiKey],
  ] as [string, string][]) {
    const response = await e.run(stub, undefined, "", key);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(NOT_FOUND);
  }
});

clause(
  "4 · POST /v1/user-defined-service/{api_stub}/v{version}",
  "runs exactly that version: a released one, the live one, a draft",
  async () => {
    const v1 = await e.create();
    const v2 = await e.newVersion(v1.id);
    await e.patch(v2.id, designerOnly);
    await e.release(v2.id);
    const v3 = await e.newVersion(v2.id);
    await e.patch(v3.id, { output_format: { height_metres: "number" } });
    expect(await e.ranFields(e.run(v1.stub, undefined, "/v1"))).toEqual(LANDMARK_FIELDS);
    expect(await e.ranFields(e.run(v1.stub, undefined, "/v2"))).toEqual(["designer"]);
    expect(await e.ranFields(e.run(v1.stub, undefined, "/v3"))).toEqual(["height_metres"]);
  },
);

clause(
  "4 · POST /v1/user-defined-service/{api_stub}/v{version}",
  "404 {detail: endpoint version not found, error: not_found} when the version does not exist",
  async () => {
    for (const suffix of ["/v2", "/v0", "/v999"]) {
      const response = await e.run(record.stub, undefined, suffix);
      expect(`${suffix} ${response.status}`).toBe(`${suffix} 404`);
      expect(await response.json()).toEqual(VERSION_NOT_FOUND);
    }
  },
);

clause(
  "4 · POST /v1/published-service/{api_stub}",
  "the published endpoint's inputs in, 200 per 2.3, running the newest published version",
  async () => {
    const owner = await e.create();
    await e.publish(owner.id, { public_stub: "section-four-newest" });
    const v2 = await e.newVersion(owner.id);
    await e.patch(v2.id, designerOnly);
    expect(await e.ranFields(e.runPublished("section-four-newest"))).toEqual(LANDMARK_FIELDS);
    await e.release(v2.id);
    expect(await e.ranFields(e.runPublished("section-four-newest"))).toEqual(LANDMARK_FIELDS);
    await e.publish(v2.id);
    const body = await e.ok(e.runPublished("section-four-newest"));
    expect(Object.keys(body).sort()).toEqual(["context", "info", "response"]);
    expectTokens(body.info);
    expect(Object.keys(body.response)).toEqual(["designer"]);
  },
);

clause("4 · POST /v1/published-service/{api_stub}", "an unpublished stub is a 404, even the owner's own designed stub", async () => {
  const draft = await e.create();
  const response = await e.runPublished(draft.stub);
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ detail: "published endpoint not found", error: "not_found" });
});

clause("4 · POST /v1/published-service/{api_stub}/v{version}", "runs that published snapshot; 404 when it does not exist", async () => {
  expect(await e.ranFields(e.runPublished(publicStub, undefined, "/v1"))).toEqual(LANDMARK_FIELDS);
  for (const suffix of ["/v2", "/v0", "/vabc"]) {
    const response = await e.runPublished(publicStub, undefined, suffix);
    expect(`${suffix} ${response.status}`).toBe(`${suffix} 404`);
    expect(await response.json()).toEqual({ detail: "published version not found", error: "not_found" });
  }
});

clause("4 · POST /v1/design-api", "original_prompt is required; 200 with response wrapping the record", async () => {
  const created = await e.ok(s.call("POST", "/v1/design-api", { original_prompt: "Given a landmark, find its architect" }));
  expect(Object.keys(created)).toEqual(["response"]);
  expect(Object.keys(created.response).sort()).toEqual(RECORD_FIELDS);
  const missing = await s.call("POST", "/v1/design-api", {});
  expect(missing.status).toBe(422);
  expect(await missing.json()).toEqual({ detail: [{ loc: ["body", "original_prompt"], msg: "Field required", type: "missing" }] });
});

clause(
  "4 · POST /v1/design-api",
  "other accepted members (not shown): api_name, inputs, output_format, graph, each overriding the designer's proposal",
  async () => {
    const created = await e.create(landmarkEndpoint);
    expect(created.api_name).toBe(landmarkEndpoint.api_name);
    expect(created.inputs.map((i: Rec) => i.name)).toEqual(landmarkEndpoint.inputs.map((i) => i.name));
    expect(created.output_format).toEqual(landmarkEndpoint.output_format);
    expect(created.graph.nodes.map((n: Rec) => n.system_prompt)).toEqual(["Facts about {landmark} in {city}"]);
  },
);

clause("4 · POST /v1/design-api", "unknown members are ignored and never reported (langchain-critique sends id: null)", async () => {
  const created = await e.create({ original_prompt: "Given a city, find its mayor", id: null, description: "extra", model: "x" });
  expect(Number.isInteger(created.id)).toBe(true);
  expect(created).not.toHaveProperty("description");
  const invalid = await s.call("POST", "/v1/design-api", { original_prompt: 7, id: null, extra: 1 });
  expect(invalid.status).toBe(422);
  expect((await invalid.json()).detail.map((d: Rec) => d.loc)).toEqual([["body", "original_prompt"]]);
});

clause("4 · POST /v1/design-api", "output_format: {} means not given: the designer's proposal stands", async () => {
  const created = await e.create({ original_prompt: "Given a company name, find its CEO", output_format: {} });
  expect(Object.keys(created.output_format).length).toBeGreaterThan(0);
});

clause(
  "4 · GET /v1/design-api",
  "the caller's endpoints: only the highest-numbered version of each by default (all_versions false)",
  async () => {
    const lister = await s.app.account({ name: "lister", limit: 100_000 });
    const a = await e.create(landmarkEndpoint, lister.apiKey);
    const b = await e.create({ ...landmarkEndpoint, api_name: "Second" }, lister.apiKey);
    const a2 = (await e.ok(s.call("POST", `/v1/design-api/${a.id}/versions`, undefined, lister.apiKey))).response;
    for (const query of ["", "?all_versions=false", "?all_versions=0"]) {
      const list = await e.ok(s.call("GET", `/v1/design-api${query}`, undefined, lister.apiKey));
      expect(Array.isArray(list)).toBe(true);
      expect(list.map((r: Rec) => [r.id, r.version]).sort()).toEqual(
        [
          [a2.id, 2],
          [b.id, 1],
        ].sort(),
      );
      for (const item of list) expect(Object.keys(item).sort()).toEqual(RECORD_FIELDS);
    }
    const all = await e.ok(s.call("GET", "/v1/design-api?all_versions=true", undefined, lister.apiKey));
    expect(all.map((r: Rec) => r.id).sort((x: number, y: number) => x - y)).toEqual([a.id, b.id, a2.id].sort((x, y) => x - y));
    const alsoAll = await e.ok(s.call("GET", "/v1/design-api?all_versions=1", undefined, lister.apiKey));
    expect(alsoAll.length).toBe(3);
  },
);

clause(
  "4 · GET /v1/design-api",
  "all_versions reads as a boolean: anything else is a 422 bool_parsing at [query, all_versions]",
  async () => {
    const response = await s.call("GET", "/v1/design-api?all_versions=maybe");
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      detail: [{ loc: ["query", "all_versions"], msg: "Input should be a valid boolean, unable to interpret input", type: "bool_parsing" }],
    });
  },
);

clause("4 · GET /v1/design-api", "only the caller's endpoints: a new account's list is empty", async () => {
  const empty = await s.app.account({ name: "empty", limit: 100_000 });
  expect(await e.ok(s.call("GET", "/v1/design-api", undefined, empty.apiKey))).toEqual([]);
});

clause("4 · GET /v1/design-api/{api_id}", "200 the endpoint record itself (unwrapped)", async () => {
  const read = await e.get(record.id);
  expect(Object.keys(read).sort()).toEqual(RECORD_FIELDS);
  expect(read).toMatchObject({ id: record.id, stub: record.stub, api_name: "Landmark facts" });
});

clause("4 · PATCH /v1/design-api/{api_id}", "only the fields given change; 200 with the updated record itself", async () => {
  const v1 = await e.create();
  const patched = await e.patch(v1.id, { inputs: [{ name: "landmark", type: "string" }], output_format: { designer: "string" } });
  expect(Object.keys(patched).sort()).toEqual(RECORD_FIELDS);
  expect(patched.inputs).toEqual([{ name: "landmark", type: "string", required: true, default: null }]);
  expect(patched.output_format).toEqual({ designer: "string" });
  expect(patched.api_name).toBe("Landmark facts");
  expect(patched.original_prompt).toBe(v1.original_prompt);
  expect(await e.get(v1.id)).toEqual(patched);
});

clause(
  "4 · PATCH /v1/design-api/{api_id}",
  "patchable fields (not shown): original_prompt, api_name, inputs, output_format, graph, version_notes",
  async () => {
    const v1 = await e.create();
    const graph = { nodes: [{ id: "r", type: "search_agent", name: "R", system_prompt: "About {landmark}" }], edges: [] };
    const patched = await e.patch(v1.id, {
      original_prompt: "New task",
      api_name: "New name",
      inputs: [{ name: "landmark", type: "string" }],
      output_format: { designer: "string" },
      graph,
      version_notes: "notes",
    });
    expect(patched).toMatchObject({
      original_prompt: "New task",
      api_name: "New name",
      output_format: { designer: "string" },
      version_notes: "notes",
    });
    expect(patched.graph.nodes.map((n: Rec) => n.system_prompt)).toEqual(["About {landmark}"]);
  },
);

clause("4 · PATCH /v1/design-api/{api_id}", "409 when the version is released", async () => {
  const v1 = await e.create();
  await e.release(v1.id);
  const response = await s.call("PATCH", `/v1/design-api/${v1.id}`, { api_name: "Too late" });
  expect(response.status).toBe(409);
  expect(await response.json()).toMatchObject({ error: "conflict" });
});

clause(
  "4 · PATCH /v1/design-api/{api_id}",
  "unknown fields are ignored and never reported; checked like creation (422 for a bad input name)",
  async () => {
    const v1 = await e.create();
    const patched = await e.patch(v1.id, { api_name: "Known", stub: "not-patchable", id: 1, whatever: true });
    expect(patched.api_name).toBe("Known");
    expect(patched.stub).toBe(v1.stub);
    const bad = await s.call("PATCH", `/v1/design-api/${v1.id}`, { inputs: [{ name: "bad name", type: "string" }], whatever: true });
    expect(bad.status).toBe(422);
    expect((await bad.json()).detail.map((d: Rec) => d.loc)).toEqual([["body", "inputs", 0, "name"]]);
  },
);

clause("4 · PATCH /v1/design-api/{api_id}", "output_format: {} means not given: the draft's output_format is unchanged", async () => {
  const v1 = await e.create();
  const patched = await e.patch(v1.id, { api_name: "Still landmarks", output_format: {} });
  expect(patched.api_name).toBe("Still landmarks");
  expect(patched.output_format).toEqual(landmarkEndpoint.output_format);
});

clause(
  "4 · DELETE /v1/design-api/{api_id}",
  "200; permanent; body (not shown): {response: {id, deleted: true, versions_deleted}}, id the integer asked for",
  async () => {
    const v1 = await e.create();
    const v2 = await e.newVersion(v1.id);
    const response = await s.call("DELETE", `/v1/design-api/${v2.id}`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({ response: { id: v2.id, deleted: true, versions_deleted: 2 } });
    expect(Number.isInteger(body.response.id)).toBe(true);
    expect((await s.call("GET", `/v1/design-api/${v1.id}`)).status).toBe(404);
  },
);

clause(
  "4 · GET /v1/design-api/{api_id}/versions",
  "200 the whole lineage ascending by version, each entry a record with frozen_at, is_latest, is_live",
  async () => {
    const v1 = await e.create();
    const v2 = await e.newVersion(v1.id);
    await e.release(v2.id);
    const v3 = await e.newVersion(v2.id);
    for (const id of [v1.id, v2.id, v3.id]) {
      const lineage = await e.lineage(id);
      expect(lineage.map((v) => [v.id, v.version, v.frozen_at === null, v.is_live])).toEqual([
        [v1.id, 1, false, false],
        [v2.id, 2, false, true],
        [v3.id, 3, true, false],
      ]);
      for (const entry of lineage) expect(Object.keys(entry)).toEqual(expect.arrayContaining(RECORD_FIELDS));
    }
  },
);

clause("4 · GET /v1/design-api/{api_id}/versions", "each entry carries is_latest (true on the highest number only)", async () => {
  const v1 = await e.create();
  const v2 = await e.newVersion(v1.id);
  const lineage = await e.lineage(v2.id);
  expect(lineage.map((v) => [v.version, v.is_latest])).toEqual([
    [1, false],
    [2, true],
  ]);
});

clause(
  "4 · POST /v1/design-api/{api_id}/versions",
  "the body is optional: none, null, {} or {version_notes} each give 200 with the new draft record",
  async () => {
    let id = (await e.create()).id;
    for (const body of [undefined, null, {}, { version_notes: "with notes", unknown: 1 }]) {
      const response = await s.call("POST", `/v1/design-api/${id}/versions`, body);
      expect(`${JSON.stringify(body)} ${response.status}`).toBe(`${JSON.stringify(body)} 200`);
      const draft = (await response.json()).response;
      expect(draft.state).toBe("draft");
      expect(draft.version_notes).toBe(body && "version_notes" in body ? "with notes" : null);
      id = draft.id;
    }
    expect((await e.lineage(id)).map((v) => v.version)).toEqual([1, 2, 3, 4, 5]);
  },
);

clause(
  "4 · POST /v1/design-api/{api_id}/versions",
  'a body that is JSON but not an object ([1], "x", 5, true) is a 422 model_attributes_type, and no version is made',
  async () => {
    const v1 = await e.create();
    for (const body of [[1], "x", 5, true]) {
      const response = await s.call("POST", `/v1/design-api/${v1.id}/versions`, body);
      expect(`${JSON.stringify(body)} ${response.status}`).toBe(`${JSON.stringify(body)} 422`);
      expect(await response.json()).toEqual({
        detail: [
          { loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" },
        ],
      });
    }
    expect((await e.lineage(v1.id)).map((v) => v.version)).toEqual([1]);
  },
);

clause(
  "4 · POST /v1/design-api/{api_id}/versions",
  "version_notes must be a string: another type is a 422 at [body, version_notes]",
  async () => {
    const v1 = await e.create();
    const response = await s.call("POST", `/v1/design-api/${v1.id}/versions`, { version_notes: 5 });
    expect(response.status).toBe(422);
    expect((await response.json()).detail.map((d: Rec) => d.loc)).toEqual([["body", "version_notes"]]);
    expect((await e.lineage(v1.id)).length).toBe(1);
  },
);

clause("4 · POST /v1/design-api/{api_id}/versions", "409 if another draft exists", async () => {
  const v1 = await e.create();
  await e.newVersion(v1.id);
  const response = await s.call("POST", `/v1/design-api/${v1.id}/versions`);
  expect(response.status).toBe(409);
  expect(await response.json()).toEqual({ detail: "release or delete the draft first", error: "conflict" });
});

clause("4 · POST /v1/design-api/{api_id}/release", "200; body (not shown): {response: the released record}", async () => {
  const v1 = await e.create();
  const response = await s.call("POST", `/v1/design-api/${v1.id}/release`);
  expect(response.status).toBe(200);
  const body = await response.json();
  expect(Object.keys(body)).toEqual(["response"]);
  expect(Object.keys(body.response).sort()).toEqual(RECORD_FIELDS);
  expect(body.response).toMatchObject({ id: v1.id, state: "released", is_live: true });
  expect(body.response.frozen_at).toMatch(ISO);
});

clause("4 · GET (upgrade to streaming) {ws_url}/v1/ws/search", "with X-API-Key the upgrade answers 101", async () => {
  expect((await rawUpgrade(s.wsUrl, { "X-API-Key": s.apiKey })).status).toBe(101);
});

clause("4 · GET (upgrade to streaming) {ws_url}/v1/ws/search", "without a key the upgrade is refused with an HTTP 401", async () => {
  const refused = await rawUpgrade(s.wsUrl, {});
  expect(refused.status).toBe(401);
  expect(JSON.parse(refused.body)).toEqual(UNAUTHORIZED);
});

clause(
  "4 · GET (upgrade to streaming) {ws_url}/v1/ws/search",
  "then messages per section 6: context and response messages, then a normal close",
  async () => {
    const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" });
    expect(run.messages.length).toBeGreaterThan(1);
    expect(run.messages[0]!.type).toBe("context");
    expect(run.messages.slice(1).every((m) => m.type === "response")).toBe(true);
    expect(
      run.messages
        .filter((m) => m.type === "response")
        .map((m) => m.content)
        .join(""),
    ).toContain("1889");
    expect(run.closeCode).toBe(1000);
  },
);
