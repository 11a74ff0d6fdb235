/**
 * Running designed endpoints (spec 4.1) against the loopback search world,
 * and the integration object returned with every record.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint, validatesAgainst } from "../helpers/endpoints.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;
let owner: ReturnType<typeof client>;
let record: Record<string, any>;

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, { env: world.env(), resolver: world.resolver });
  apiKey = (await app.account({ name: "runner", limit: 100_000 })).apiKey;
  owner = client(app, apiKey);
  record = (await owner.json("POST", "/v1/design-api", landmarkEndpoint)).response;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

const run = (stub: string, body: unknown, suffix = "") => {
  mark = world.searxng.requests.length;
  return owner.call("POST", `/v1/user-defined-service/${stub}${suffix}`, body);
};
let mark = 0;
/** Every query the SearXNG peer received since the last call to this function. */
const lastQuery = () => {
  const text = world.searxng.requests
    .slice(mark)
    .map((r) => String(r.params.q ?? ""))
    .join("\n");
  mark = world.searxng.requests.length;
  return text;
};

describe("a call runs the live version and answers in the search shape", () => {
  test("inputs in, an object matching output_format out, with its sources", async () => {
    const response = await run(record.stub, { landmark: "Eiffel Tower" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      response: Record<string, unknown>;
      context: { id: number; metadata: { url: string } }[];
      info: { token_usage: number; tokens: { total: number }; nodes: { id: string; type: string }[] };
    };
    expect(body.response).toEqual({ completed_year: 1889, height_metres: 330, designer: expect.any(String) });
    expect(body.context.length).toBeGreaterThan(0);
    expect(body.context[0]!.id).toBe(1);
    expect(body.info.nodes).toEqual([expect.objectContaining({ id: "research", type: "search_agent" })]);
    expect(body.info.token_usage).toBeGreaterThan(0);
    expect(body.info.tokens.total).toBe(body.info.token_usage);
  });

  test("an omitted optional input takes its default; null does too; a null default is told as not provided", async () => {
    await run(record.stub, { landmark: "Eiffel Tower" });
    expect(lastQuery()).toContain("Facts about Eiffel Tower in Paris");
    await run(record.stub, { landmark: "Eiffel Tower", city: null });
    expect(lastQuery()).toContain("in Paris");
    await run(record.stub, { landmark: "Eiffel Tower", city: "Lyon" });
    expect(lastQuery()).toContain("in Lyon");
    await run(record.stub, { landmark: "Eiffel Tower" });
    expect(lastQuery()).toContain("language: not provided");
  });

  test("missing required inputs are a 400 naming only them, optional ones shown as name?: type", async () => {
    const response = await run(record.stub, { city: "Rome" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      detail: "missing required input: landmark: string (optional: city?: string, language?: string)",
      error: "missing_inputs",
    });
    const empty = await run(record.stub, undefined);
    expect(empty.status).toBe(400);
  });

  test("a value of the wrong type is a 422 at its field", async () => {
    const response = await run(record.stub, { landmark: 42, city: true });
    expect(response.status).toBe(422);
    expect((await response.json()) as unknown).toEqual({
      detail: [
        { loc: ["body", "landmark"], msg: "Input should be a valid string", type: "string_type" },
        { loc: ["body", "city"], msg: "Input should be a valid string", type: "string_type" },
      ],
    });
    expect((await run(record.stub, ["not", "an", "object"])).status).toBe(422);
  });

  test("include_domains and exclude_domains: one or the other, and honoured", async () => {
    const both = await run(record.stub, { landmark: "river bridge", include_domains: ["news.test"], exclude_domains: ["spam.test"] });
    expect(both.status).toBe(422);
    const excluded = (await (await run(record.stub, { landmark: "river bridge", exclude_domains: ["spam.test"] })).json()) as {
      context: { metadata: { url: string } }[];
    };
    expect(excluded.context.length).toBeGreaterThan(0);
    for (const entry of excluded.context) expect(new URL(entry.metadata.url).hostname).not.toBe("spam.test");
    const included = (await (await run(record.stub, { landmark: "river bridge", include_domains: ["blog.test"] })).json()) as {
      context: { metadata: { url: string } }[];
    };
    for (const entry of included.context) expect(new URL(entry.metadata.url).hostname).toBe("blog.test");
  });
});

describe("max_results", () => {
  let listing: Record<string, any>;
  beforeAll(async () => {
    listing = (
      await owner.json("POST", "/v1/design-api", {
        original_prompt: "For a city, list its landmarks with their completion years",
        api_name: "City landmarks",
        inputs: [{ name: "city", type: "string" }],
        output_format: { landmarks: [{ name: "string", completed_year: "integer" }], facts: "array", summary: { highlights: ["string"] } },
        graph: {
          nodes: [
            {
              id: "research",
              type: "search_agent",
              name: "Research",
              system_prompt: "Landmarks of {city}: the Eiffel Tower and the river bridge",
            },
          ],
          edges: [],
        },
      })
    ).response;
  });

  test("must be at least 1 (422), is floored, reaches the engine, and cuts every top-level list only", async () => {
    for (const bad of [0, 0.5, -3]) expect((await run(listing.stub, { city: "Paris", max_results: bad })).status).toBe(422);
    expect((await run(listing.stub, { city: "Paris", max_results: "2" })).status).toBe(422);
    const response = await run(listing.stub, { city: "Paris", max_results: 1.9 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      response: { landmarks: unknown[] | null; facts: unknown[] | null; summary: { highlights: unknown[] | null } | null };
    };
    expect(lastQuery()).toContain("Return at most 1 items");
    if (body.response.landmarks) expect(body.response.landmarks.length).toBeLessThanOrEqual(1);
    if (body.response.facts) expect(body.response.facts.length).toBeLessThanOrEqual(1);
  });
});

describe("pinned and unpinned URLs", () => {
  test("/v{n} runs exactly that version, draft included; absent versions and other strings are 404", async () => {
    const base = (await owner.json("POST", "/v1/design-api", landmarkEndpoint)).response;
    const v2 = (await owner.json("POST", `/v1/design-api/${base.id}/versions`)).response;
    await owner.call("PATCH", `/v1/design-api/${v2.id}`, {
      graph: {
        nodes: [{ id: "research", type: "search_agent", name: "Research", system_prompt: "Version two asks about {landmark} in {city}" }],
        edges: [],
      },
    });
    await run(base.stub, { landmark: "Eiffel Tower" });
    expect(lastQuery()).toContain("Facts about Eiffel Tower");
    await run(base.stub, { landmark: "Eiffel Tower" }, "/v2");
    expect(lastQuery()).toContain("Version two asks about Eiffel Tower");
    await run(base.stub, { landmark: "Eiffel Tower" }, "/v1");
    expect(lastQuery()).toContain("Facts about Eiffel Tower");
    for (const suffix of ["/v3", "/v0", "/2", "/vv2", "/latest"])
      expect((await run(base.stub, { landmark: "x" }, suffix)).status).toBe(404);
    expect((await run("no-such-endpoint-123456", { landmark: "x" })).status).toBe(404);
  });
});

describe("the integration object", () => {
  test("url is unversioned only while the version is live; versioned_url is always pinned", async () => {
    const v1 = (await owner.json("POST", "/v1/design-api", landmarkEndpoint)).response;
    const base = `${app.url}/v1/user-defined-service/${v1.stub}`;
    expect(v1.integration).toMatchObject({ method: "POST", url: base, versioned_url: `${base}/v1` });
    const v2 = (await owner.json("POST", `/v1/design-api/${v1.id}/versions`)).response;
    expect(v2.integration).toMatchObject({ url: `${base}/v2`, versioned_url: `${base}/v2` });
    expect((await owner.json("GET", `/v1/design-api/${v1.id}`)).integration.url).toBe(base);
    await owner.call("POST", `/v1/design-api/${v2.id}/release`);
    expect((await owner.json("GET", `/v1/design-api/${v2.id}`)).integration.url).toBe(base);
    expect((await owner.json("GET", `/v1/design-api/${v1.id}`)).integration).toMatchObject({
      url: `${base}/v1`,
      versioned_url: `${base}/v1`,
    });
  });

  test("request_schema requires only the required inputs and carries defaults; example_request validates against it", async () => {
    const integration = record.integration;
    expect(integration.request_schema.required).toEqual(["landmark"]);
    expect(integration.request_schema.properties.city).toMatchObject({ type: "string", default: "Paris" });
    expect(integration.request_schema.properties.language).toEqual({ type: "string" });
    expect(integration.example_request).toEqual({ landmark: expect.any(String), city: "Paris" });
    expect(validatesAgainst(integration.request_schema, integration.example_request)).toEqual([]);
    expect(integration.response_schema.properties.response).toMatchObject({
      type: "object",
      required: ["completed_year", "height_metres", "designer"],
    });
    for (const language of ["curl", "python", "javascript"]) expect(integration.code[language]).toContain("CRITIQUE_API_KEY");
    expect(JSON.stringify(integration)).not.toContain(apiKey);
    expect(integration.agent_handoff).toContain(integration.url);
  });

  test("the curl sample works as written against the running server", async () => {
    const curl = Bun.which("curl");
    if (!curl) return;
    const child = Bun.spawn(["sh", "-c", record.integration.code.curl], {
      env: { PATH: process.env.PATH ?? "", CRITIQUE_API_KEY: apiKey },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(code).toBe(0);
    const body = JSON.parse(out) as { response: Record<string, unknown> };
    expect(Object.keys(body.response).sort()).toEqual(["completed_year", "designer", "height_metres"]);
  });
});

describe("graphs", () => {
  test("two search nodes feed a general node; the sink gives the response", async () => {
    const combined = (
      await owner.json("POST", "/v1/design-api", {
        original_prompt: "Compare the Eiffel Tower and the river bridge",
        api_name: "Compare",
        inputs: [],
        output_format: { completed_year: "integer", cost: "string" },
        graph: {
          nodes: [
            {
              id: "tower",
              type: "search_agent",
              name: "Tower",
              system_prompt: "When was the Eiffel Tower completed?",
              output_format: { completed_year: "integer" },
            },
            {
              id: "bridge",
              type: "search_agent",
              name: "Bridge",
              system_prompt: "What will the river bridge cost?",
              output_format: { cost: "string" },
            },
            { id: "combine", type: "general_agent", name: "Combine", system_prompt: "Combine the findings" },
          ],
          edges: [
            { id: "e1", source: "tower", target: "combine" },
            { id: "e2", source: "bridge", target: "combine" },
          ],
        },
      })
    ).response;
    const body = (await (await run(combined.stub, {})).json()) as {
      response: { completed_year: number | null; cost: string | null };
      info: { nodes: { id: string }[] };
    };
    expect(body.response.completed_year).toBe(1889);
    expect(body.response.cost).toContain("42 million");
    expect(body.info.nodes.map((n) => n.id).sort()).toEqual(["bridge", "combine", "tower"]);
  });
});

describe("max_results with a model that returns long lists", () => {
  test("every top-level list is cut to max_results; nested lists are not", async () => {
    const { startChatPeer, quoteFirstSource, textOf } = await import("../helpers/peers/openai-compatible.ts");
    const five = (prefix: string) => Array.from({ length: 5 }, (_, i) => `${prefix} ${i + 1}`);
    const peer = startChatPeer({
      script: (request, kind) =>
        kind === "structured" && textOf(request.messages[0]).includes("fill a JSON object")
          ? {
              landmarks: five("Landmark").map((name) => ({ name, completed_year: 1900 })),
              facts: five("Fact"),
              summary: { highlights: five("Highlight") },
            }
          : quoteFirstSource(request, kind),
    });
    const llmApp = await startTestApp(database, {
      env: world.env({ OPENAI_BASE_URL: peer.url, OPENAI_API_KEY: peer.apiKey, LLM_MODEL: "loopback-model" }),
      resolver: world.resolver,
    });
    try {
      const c = client(llmApp, (await llmApp.account({ name: "lists", limit: 100_000 })).apiKey);
      const endpoint = (
        await c.json("POST", "/v1/design-api", {
          original_prompt: "For a city, list its landmarks",
          api_name: "City lists",
          inputs: [{ name: "city", type: "string" }],
          output_format: {
            landmarks: [{ name: "string", completed_year: "integer" }],
            facts: "array",
            summary: { highlights: ["string"] },
          },
          graph: {
            nodes: [{ id: "research", type: "search_agent", name: "Research", system_prompt: "Landmarks of {city}: the Eiffel Tower" }],
            edges: [],
          },
        })
      ).response;
      const body = (await c.json("POST", `/v1/user-defined-service/${endpoint.stub}`, { city: "Paris", max_results: 2.7 })) as {
        response: { landmarks: unknown[]; facts: unknown[]; summary: { highlights: unknown[] } };
      };
      expect(body.response.landmarks).toEqual([
        { name: "Landmark 1", completed_year: 1900 },
        { name: "Landmark 2", completed_year: 1900 },
      ]);
      expect(body.response.facts).toEqual(["Fact 1", "Fact 2"]);
      expect(body.response.summary.highlights.length).toBe(5);
      // The engine was told the limit too.
      expect(peer.requests.some((r) => textOf(r.messages.at(-1)).includes("Return at most 2 items"))).toBe(true);
      const defaulted = (await c.json("POST", `/v1/user-defined-service/${endpoint.stub}`, { city: "Paris" })) as {
        response: { landmarks: unknown[] };
      };
      expect(defaulted.response.landmarks.length).toBe(5);
    } finally {
      await llmApp.stop();
      peer.stop();
    }
  });
});
