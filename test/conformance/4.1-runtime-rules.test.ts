/**
 * SPEC 4.1, the runtime rules of designed and published endpoints: optional
 * inputs and their defaults, the 400 for missing required inputs,
 * max_results (added at creation, at least 1, floored, cutting only
 * top-level lists), include_domains / exclude_domains, and integration.url.
 * What the agent was told is read from the queries the search world received.
 */
import { beforeAll, expect } from "bun:test";
import { startTestApp } from "../helpers/app.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { quoteFirstSource, startChatPeer, textOf } from "../helpers/peers/openai-compatible.ts";
import { clause } from "./clause.ts";
import { designerOnly, endpointCalls, LANDMARK_FIELDS, type Rec } from "./endpoints-world.ts";
import { useSearchApp } from "./search-app.ts";

const s = useSearchApp();
const e = endpointCalls(s);
let record: Rec;
let publicStub: string;

const MISSING = "missing required input: landmark: string (optional: city?: string, language?: string)";
const listEndpoint = {
  original_prompt: "For a city, list its landmarks with their completion years",
  api_name: "City landmarks",
  inputs: [{ name: "city", type: "string" }],
  output_format: { landmarks: [{ name: "string", completed_year: "integer" }], facts: "array", summary: { highlights: ["string"] } },
  graph: {
    nodes: [{ id: "research", type: "search_agent", name: "Research", system_prompt: "Landmarks of {city}: the Eiffel Tower" }],
    edges: [],
  },
};

beforeAll(async () => {
  record = await e.create();
  publicStub = (await e.publish(record.id, { public_stub: "runtime-rules-landmarks" })).public_stub;
});

/** Runs a call on both families (the designed endpoint and its published snapshot). */
const both = (body: unknown) => [e.run(record.stub, body), e.runPublished(publicStub, body)];
const hosts = (body: Rec) => new Set(body.context.map((c: Rec) => new URL(c.metadata.url).hostname));

clause("4.1.1", "an omitted optional input takes its default", async () => {
  const told = await e.queriesDuring(() => e.ok(e.run(record.stub, { landmark: "Eiffel Tower" })));
  expect(told).toContain("Facts about Eiffel Tower in Paris");
  const given = await e.queriesDuring(() => e.ok(e.run(record.stub, { landmark: "Eiffel Tower", city: "Lyon" })));
  expect(given).toContain("Facts about Eiffel Tower in Lyon");
});

clause("4.1.1", "sending null counts as omitting: the default is filled in", async () => {
  const told = await e.queriesDuring(() => e.ok(e.run(record.stub, { landmark: "Eiffel Tower", city: null, language: null })));
  expect(told).toContain("Facts about Eiffel Tower in Paris");
  expect(told).toContain("language: not provided");
});

clause("4.1.1", "when the default is null, the agent is told the value was not provided", async () => {
  const told = await e.queriesDuring(() => e.ok(e.run(record.stub, { landmark: "Eiffel Tower" })));
  expect(told).toContain("language: not provided");
  expect(told).toContain("The caller did not provide: language");
  const given = await e.queriesDuring(() => e.ok(e.run(record.stub, { landmark: "Eiffel Tower", language: "French" })));
  expect(given).not.toContain("not provided");
});

clause("4.1.1", "the same on a published endpoint", async () => {
  const told = await e.queriesDuring(() => e.ok(e.runPublished(publicStub, { landmark: "Eiffel Tower", city: null })));
  expect(told).toContain("Facts about Eiffel Tower in Paris");
  expect(told).toContain("language: not provided");
});

clause("4.1.2", "a missing required input is a 400 listing only the missing required fields, optional ones as name?: type", async () => {
  for (const response of both({ city: "Rome" })) {
    const answered = await response;
    expect(answered.status).toBe(400);
    expect(await answered.json()).toEqual({ detail: MISSING, error: "missing_inputs" });
  }
});

clause("4.1.2", "null for a required input, an empty body or no body at all is the same 400", async () => {
  for (const body of [{ landmark: null }, {}, undefined, null]) {
    const response = await s.call("POST", `/v1/user-defined-service/${record.stub}`, body);
    expect(`${JSON.stringify(body)} ${response.status}`).toBe(`${JSON.stringify(body)} 400`);
    expect((await response.json()).detail).toBe(MISSING);
  }
});

clause("4.1.2", "several missing required inputs are all listed, and only they", async () => {
  const two = await e.create({
    ...landmarkEndpoint,
    inputs: [
      { name: "landmark", type: "string" },
      { name: "year", type: "number" },
      { name: "city", type: "string", default: "Paris" },
    ],
    graph: { nodes: [{ id: "r", type: "search_agent", name: "R", system_prompt: "Facts about {landmark} in {year}" }], edges: [] },
  });
  const response = await e.run(two.stub, { city: "Rome" });
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({
    detail: "missing required inputs: landmark: string, year: number (optional: city?: string)",
    error: "missing_inputs",
  });
  const one = await e.run(two.stub, { year: 1889 });
  expect((await one.json()).detail).toBe("missing required input: landmark: string (optional: city?: string)");
});

clause(
  "4.1.3",
  "an output with a list gets, at creation, an optional input max_results (number, default 10); an output without one does not",
  async () => {
    const listing = await e.create(listEndpoint);
    expect(listing.inputs).toContainEqual({
      name: "max_results",
      type: "number",
      required: false,
      default: 10,
      description: expect.any(String),
    });
    expect(listing.integration.request_schema.properties.max_results).toMatchObject({ type: "number", default: 10, minimum: 1 });
    expect(listing.integration.request_schema.required).toEqual(["city"]);
    const nested = await e.create({ ...listEndpoint, output_format: { summary: { highlights: ["string"] } } });
    expect(nested.inputs.map((i: Rec) => i.name)).toEqual(["city", "max_results"]);
    expect(record.inputs.some((i: Rec) => i.name === "max_results")).toBe(false);
  },
);

clause(
  "4.1.3",
  "the value must be at least 1 (after flooring): 0, 0.5 and -3 are a 422 at [body, max_results]; a string is a 422 too",
  async () => {
    const listing = await e.create(listEndpoint);
    for (const bad of [0, 0.5, -3]) {
      const response = await e.run(listing.stub, { city: "Paris", max_results: bad });
      expect(`${bad} ${response.status}`).toBe(`${bad} 422`);
      expect(await response.json()).toEqual({
        detail: [{ loc: ["body", "max_results"], msg: "Input should be greater than or equal to 1", type: "greater_than_equal" }],
      });
    }
    const text = await e.run(listing.stub, { city: "Paris", max_results: "2" });
    expect(text.status).toBe(422);
    expect((await text.json()).detail.map((d: Rec) => d.loc)).toEqual([["body", "max_results"]]);
  },
);

clause(
  "4.1.3",
  "the runtime asks for at most max_results items (floored) and cuts every top-level list to it; nested lists are not cut; 10 when omitted",
  async () => {
    const twelve = (prefix: string) => Array.from({ length: 12 }, (_, i) => `${prefix} ${i + 1}`);
    const peer = startChatPeer({
      script: (request, kind) =>
        kind === "structured" && textOf(request.messages[0]).includes("fill a JSON object")
          ? {
              landmarks: twelve("Landmark").map((name) => ({ name, completed_year: 1900 })),
              facts: twelve("Fact"),
              summary: { highlights: twelve("Highlight") },
            }
          : quoteFirstSource(request, kind),
    });
    const app = await startTestApp(s.database, {
      env: s.world.env({ OPENAI_BASE_URL: peer.url, OPENAI_API_KEY: peer.apiKey, LLM_MODEL: "loopback-model" }),
      resolver: s.world.resolver,
    });
    try {
      const c = client(app, (await app.account({ name: "lists", limit: 100_000 })).apiKey);
      const listing = (await c.json("POST", "/v1/design-api", listEndpoint)).response;
      const cut = await c.json("POST", `/v1/user-defined-service/${listing.stub}`, { city: "Paris", max_results: 2.7 });
      expect(cut.response.landmarks).toEqual([
        { name: "Landmark 1", completed_year: 1900 },
        { name: "Landmark 2", completed_year: 1900 },
      ]);
      expect(cut.response.facts).toEqual(["Fact 1", "Fact 2"]);
      expect(cut.response.summary.highlights.length).toBe(12);
      expect(peer.requests.some((r) => textOf(r.messages.at(-1)).includes("Return at most 2 items"))).toBe(true);
      const defaulted = await c.json("POST", `/v1/user-defined-service/${listing.stub}`, { city: "Paris" });
      expect(defaulted.response.landmarks.length).toBe(10);
      expect(defaulted.response.facts.length).toBe(10);
      expect(defaulted.response.summary.highlights.length).toBe(12);
    } finally {
      await app.stop();
      peer.stop();
    }
  },
  30_000,
);

clause("4.1.4", "include_domains and exclude_domains are mutually exclusive: both is a 422", async () => {
  for (const response of both({ landmark: "river bridge", include_domains: ["news.test"], exclude_domains: ["spam.test"] })) {
    const answered = await response;
    expect(answered.status).toBe(422);
    expect(await answered.json()).toEqual({
      detail: [
        {
          loc: ["body", "include_domains"],
          msg: "include_domains and exclude_domains cannot both be given: send one of them",
          type: "value_error",
        },
      ],
    });
  }
});

clause("4.1.4", "they are arrays of domain strings: a string or a list holding a non-string is a 422 at the field", async () => {
  for (const [body, loc] of [
    [{ include_domains: "wiki.test" }, ["body", "include_domains"]],
    [{ exclude_domains: [42] }, ["body", "exclude_domains"]],
  ] as [Rec, string[]][]) {
    const response = await e.run(record.stub, { landmark: "Eiffel Tower", ...body });
    expect(response.status).toBe(422);
    expect((await response.json()).detail.map((d: Rec) => d.loc)).toEqual([loc]);
  }
});

clause("4.1.4", "include_domains keeps only those domains' sources; exclude_domains drops them", async () => {
  const excluded = await e.ok(e.run(record.stub, { landmark: "river bridge", exclude_domains: ["spam.test"] }));
  expect(excluded.context.length).toBeGreaterThan(0);
  expect(hosts(excluded).has("spam.test")).toBe(false);
  const included = await e.ok(e.runPublished(publicStub, { landmark: "river bridge", include_domains: ["blog.test"] }));
  expect([...hosts(included)]).toEqual(["blog.test"]);
});

clause("4.1.4", "empty lists are not given: both empty, or one empty beside the other, is no conflict", async () => {
  await e.ok(e.run(record.stub, { landmark: "Eiffel Tower", include_domains: [], exclude_domains: [] }));
  const one = await e.ok(e.run(record.stub, { landmark: "river bridge", include_domains: [], exclude_domains: ["spam.test"] }));
  expect(hosts(one).has("spam.test")).toBe(false);
});

clause("4.1.5", "integration.url of the live version is the unversioned URL, and calling it runs that version", async () => {
  const v1 = await e.create();
  const base = `${s.app.url}/v1/user-defined-service/${v1.stub}`;
  expect(v1.integration.url).toBe(base);
  expect(
    await e.ranFields(
      s.app.fetch(v1.integration.url.slice(s.app.url.length), {
        method: "POST",
        headers: { "X-API-Key": s.apiKey, "content-type": "application/json" },
        body: JSON.stringify(v1.integration.example_request),
      }),
    ),
  ).toEqual(LANDMARK_FIELDS);
});

clause("4.1.5", "for a non-live draft and an older release it is the pinned /v{n} URL, and calling it runs that version", async () => {
  const v1 = await e.create();
  const base = `${s.app.url}/v1/user-defined-service/${v1.stub}`;
  const v2 = await e.newVersion(v1.id);
  const draft = await e.patch(v2.id, designerOnly);
  expect(draft.integration.url).toBe(`${base}/v2`);
  const call = (record: Rec) =>
    fetch(record.integration.url, {
      method: "POST",
      headers: { "X-API-Key": s.apiKey, "content-type": "application/json" },
      body: JSON.stringify(record.integration.example_request),
    });
  expect(await e.ranFields(call(draft))).toEqual(["designer"]);
  await e.release(v2.id);
  const older = await e.get(v1.id);
  expect(older.integration.url).toBe(`${base}/v1`);
  expect(await e.ranFields(call(older))).toEqual(LANDMARK_FIELDS);
  const live = await e.get(v2.id);
  expect(live.integration.url).toBe(base);
  expect(await e.ranFields(call(live))).toEqual(["designer"]);
});
