/**
 * SPEC 2.3, the search / runtime response (200): POST /v1/search, a designed
 * endpoint's run and a published endpoint's run all answer
 * `{response, context, info}`.
 */
import { beforeAll, expect } from "bun:test";
import { jsonOf } from "../helpers/app.ts";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import { clause } from "./clause.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
let stub: string;
let publicStub: string;

beforeAll(async () => {
  const created = await jsonOf(s.call("POST", "/v1/design-api", landmarkEndpoint));
  stub = created.response.stub;
  const published = await jsonOf(s.call("POST", `/v1/design-api/${created.response.id}/publish`, { public_stub: "conformance-landmarks" }));
  publicStub = published.public_stub;
});

const SEARCH_INFO = [
  "image_analysed",
  "model",
  "notes",
  "pages",
  "planner",
  "providers",
  "queries",
  "sources_found",
  "timings_ms",
  "token_usage",
  "tokens",
];
const RUN_INFO = ["model", "nodes", "notes", "token_usage", "tokens"];

async function ok(response: Response | Promise<Response>) {
  const answered = await response;
  expect(answered.status).toBe(200);
  expect(answered.headers.get("content-type")).toContain("application/json");
  return jsonOf(answered);
}

const searchBody = () => ok(s.search({ prompt: "When was the Eiffel Tower completed?" }));
const designedRun = () => ok(s.call("POST", `/v1/user-defined-service/${stub}`, { landmark: "Eiffel Tower" }));
const publishedRun = () => ok(s.call("POST", `/v1/published-service/${publicStub}`, { landmark: "Eiffel Tower" }));

function expectContextEntries(context: unknown) {
  expect(Array.isArray(context)).toBe(true);
  const entries = context as Record<string, any>[];
  entries.forEach((entry, i) => {
    expect(Object.keys(entry).sort()).toEqual(["id", "metadata"]);
    expect(Number.isInteger(entry.id)).toBe(true);
    expect(entry.id).toBe(i + 1);
    expect(Object.keys(entry.metadata).sort()).toEqual(["content", "title", "url"]);
    for (const field of ["title", "url", "content"]) expect(typeof entry.metadata[field]).toBe("string");
    expect(new URL(entry.metadata.url).protocol).toMatch(/^https?:$/);
  });
}

function expectTokens(info: Record<string, any>) {
  expect(typeof info.token_usage).toBe("number");
  expect(Number.isInteger(info.token_usage)).toBe(true);
  expect(info.token_usage).toBeGreaterThan(0);
  expect(Object.keys(info.tokens).sort()).toEqual(["completion", "prompt", "total"]);
  for (const part of ["prompt", "completion", "total"]) expect(Number.isInteger(info.tokens[part])).toBe(true);
  expect(info.tokens.total).toBe(info.tokens.prompt + info.tokens.completion);
  expect(info.tokens.total).toBe(info.token_usage);
}

clause("2.3 · response", "without output_format the response is a string: the answer with [n] citations", async () => {
  const body = await searchBody();
  expect(typeof body.response).toBe("string");
  expect(body.response).toContain("1889");
  expect(body.response).toMatch(/\[\d+\]/);
});

clause("2.3 · response", "with output_format the response is an object matching it", async () => {
  const body = await ok(
    s.search({ prompt: "Eiffel Tower facts", output_format: { completed_year: "integer", height_metres: "number", designer: "string" } }),
  );
  expect(body.response).toEqual({ completed_year: 1889, height_metres: 330, designer: expect.any(String) });
});

clause(
  "2.3 · response",
  "a designed endpoint's run and a published endpoint's run answer an object matching the endpoint's output_format",
  async () => {
    for (const body of [await designedRun(), await publishedRun()]) {
      expect(Object.keys(body).sort()).toEqual(["context", "info", "response"]);
      expect(body.response).toEqual({ completed_year: 1889, height_metres: 330, designer: expect.any(String) });
    }
  },
);

clause("2.3 · context", "context is the array of sources used, on every face that answers 2.3", async () => {
  for (const body of [await searchBody(), await designedRun(), await publishedRun()]) {
    expectContextEntries(body.context);
    expect(body.context.length).toBeGreaterThan(0);
    expect(body.context[0].metadata.url).toBe(s.world.url("wiki.test", "/eiffel.html"));
  }
});

clause("2.3 · context", "no sources found: context is an empty array, not null or absent", async () => {
  const body = await ok(s.search({ prompt: "zyxwv qqqq unknowable" }));
  expect(body.context).toEqual([]);
  expect(typeof body.response).toBe("string");
});

clause("2.3 · info", "info.token_usage is a number: the total tokens consumed (search)", async () => {
  const body = await searchBody();
  expect(typeof body.info).toBe("object");
  expectTokens(body.info);
});

clause("2.3 · info", "info.token_usage is a number on designed and published runs too", async () => {
  expectTokens((await designedRun()).info);
  expectTokens((await publishedRun()).info);
});

clause("2.3 · info", "info.tokens is the breakdown {prompt, completion, total}, integers, total = prompt + completion", async () => {
  const body = await ok(s.search({ prompt: "Eiffel Tower facts", output_format: { completed_year: "integer" } }));
  expectTokens(body.info);
  expect(body.info.tokens.completion).toBeGreaterThan(0);
});

clause(
  "2.3 · info",
  "other members of info (not shown): a search's are model, planner, queries, timings_ms, providers, pages, sources_found, image_analysed, notes",
  async () => {
    const { info } = await searchBody();
    expect(Object.keys(info).sort()).toEqual(SEARCH_INFO);
    expect(info.model).toBe("extractive");
    expect(typeof info.planner).toBe("string");
    expect(info.queries.every((q: unknown) => typeof q === "string")).toBe(true);
    for (const stage of ["plan", "search", "read", "rank", "answer", "total"]) expect(Number.isInteger(info.timings_ms[stage])).toBe(true);
    expect(info.providers.map((p: { name: string }) => p.name).sort()).toEqual(["brave", "searxng"]);
    expect(Object.keys(info.pages).sort()).toEqual(["cut", "errors", "failed", "from_cache", "read"]);
    expect(info.sources_found).toBe(1);
    expect(info.image_analysed).toBe(false);
    expect(Array.isArray(info.notes)).toBe(true);
  },
);

clause("2.3 · info", "other members of info (not shown): with an image, image_note says why it was not analysed", async () => {
  const { info } = await ok(
    s.search({ prompt: "When was the Eiffel Tower completed?", image: Buffer.from(minimalPng()).toString("base64") }),
  );
  expect(Object.keys(info).sort()).toEqual([...SEARCH_INFO, "image_note"].sort());
  expect(info.image_analysed).toBe(false);
  expect(info.image_note).toContain("not analysed");
});

clause(
  "2.3 · info",
  "other members of info (not shown): a designed or published run's are model, nodes (per graph node), notes",
  async () => {
    for (const { info } of [await designedRun(), await publishedRun()]) {
      expect(Object.keys(info).sort()).toEqual(RUN_INFO);
      expect(info.nodes).toEqual([expect.objectContaining({ id: "research", type: "search_agent", sources: 1 })]);
      // A search node tells how its providers fared, as a search's info does (read by the dashboard's run details).
      expect(info.nodes[0].providers.map((p: { name: string }) => p.name).sort()).toEqual(["brave", "searxng"]);
      expect(Number.isInteger(info.nodes[0].ms)).toBe(true);
    }
  },
);

clause("2.3 · ¶1", "a context entry is {id: integer, metadata: {title, url, content}}, ids 1..n in order", async () => {
  const body = await ok(s.search({ prompt: "What will the river bridge cost?" }));
  expect(body.context.length).toBeGreaterThan(1);
  expectContextEntries(body.context);
});

clause("2.3 · ¶1", "every [n] in the answer names a context entry, so the kept context gives each cited source's URL", async () => {
  const body = await ok(s.search({ prompt: "What will the river bridge cost?" }));
  const cited = [...body.response.matchAll(/\[(\d+)\]/g)].map((m: RegExpMatchArray) => Number(m[1]));
  expect(cited.length).toBeGreaterThan(0);
  const ids = body.context.map((c: { id: number }) => c.id);
  for (const n of cited) expect(ids).toContain(n);
  const cost = body.context.find((c: { metadata: { url: string } }) => c.metadata.url === s.world.url("blog.test", "/bridge-costs.html"));
  expect(cost.metadata.content).toContain("42 million");
});

clause("2.3 · ¶1", "the WebSocket's context message carries the same entries as the JSON context", async () => {
  const json = await ok(s.search({ prompt: "When was the Eiffel Tower completed?" }));
  const run = await s.socket({ prompt: "When was the Eiffel Tower completed?" });
  const context = run.messages.find((m) => m.type === "context")!.content;
  expectContextEntries(context);
  expect(context).toEqual(json.context);
});

clause(
  "2.3 · ¶2",
  "a 200 body never carries an error field (the service's choice): its members are exactly response, context, info",
  async () => {
    for (const body of [await searchBody(), await ok(s.search({ prompt: "zyxwv qqqq unknowable" })), await designedRun()]) {
      expect(Object.keys(body).sort()).toEqual(["context", "info", "response"]);
      expect(body).not.toHaveProperty("error");
    }
  },
);

clause("2.3 · ¶2", "a failed run is a non-200 status whose body carries error (a stable code) instead of response", async () => {
  const missing = await s.call("POST", `/v1/user-defined-service/${stub}`, {});
  expect(missing.status).toBe(400);
  const body = await jsonOf(missing);
  expect(body).toEqual({ detail: expect.any(String), error: "missing_inputs" });
  expect(body).not.toHaveProperty("response");
});
