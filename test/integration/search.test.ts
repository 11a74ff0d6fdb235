/**
 * POST /v1/search end to end: providers speaking SearXNG's and Brave's wire
 * formats on loopback, pages read through the real contents path, the
 * extractive answerer (no LLM configured), and Critique's response shape.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { conforms, toJsonSchema } from "../../src/research/output-format.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { expectGroundedCitations } from "../helpers/citations.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, { env: world.env(), resolver: world.resolver });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

const search = (body: unknown, headers: Record<string, string> = {}) =>
  app.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": apiKey, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("the contract", () => {
  test('a body of only {"prompt": "test"} answers 200 (clients use it to check a key)', async () => {
    const response = await search({ prompt: "test" });
    expect(response.status).toBe(200);
    const body = await jsonOf(response);
    expect(typeof body.response).toBe("string");
    expect(Array.isArray(body.context)).toBe(true);
    expect(Number.isInteger(body.info.token_usage)).toBe(true);
    expect(body.info.token_usage).toBeGreaterThan(0);
  });

  test("null optional fields mean absent", async () => {
    const response = await search({
      prompt: "When was the Eiffel Tower completed?",
      image: null,
      source_blacklist: null,
      source_whitelist: null,
      output_format: null,
    });
    expect(response.status).toBe(200);
  });

  test('empty optional fields ({}, [], "") mean absent: the same text answer as without them', async () => {
    const prompt = "When was the Eiffel Tower completed?";
    const plain = await jsonOf(search({ prompt }));
    const empty = await search({ prompt, image: "", source_blacklist: [], source_whitelist: [], output_format: {} });
    expect(empty.status).toBe(200);
    const body = await jsonOf(empty);
    expect(typeof body.response).toBe("string");
    expect(body.response).toBe(plain.response);
    expect(body.context.map((c: { metadata: { url: string } }) => c.metadata.url)).toEqual(
      plain.context.map((c: { metadata: { url: string } }) => c.metadata.url),
    );
    expect(body.info.image_analysed).toBe(false);
    expect(body.info.image_note).toBeUndefined();
  });

  test("a text answer cites its sources: every [n] resolves to a context entry whose passage supports it", async () => {
    const body = await jsonOf(search({ prompt: "When was the Eiffel Tower completed?" }));
    expect(body.response).toContain("1889");
    expect(body.context.length).toBeGreaterThan(0);
    expect(body.context[0].metadata).toMatchObject({ title: "Eiffel Tower", url: world.url("wiki.test", "/eiffel.html") });
    expectGroundedCitations(body);
    expect(body.info).toMatchObject({ model: "extractive", image_analysed: false });
    expect(body.info.queries.length).toBeGreaterThanOrEqual(1);
    expect(body.info.providers.map((p: { name: string }) => p.name).sort()).toEqual(["brave", "searxng"]);
    for (const stage of ["plan", "search", "read", "rank", "answer", "total"]) expect(typeof body.info.timings_ms[stage]).toBe("number");
    const usage = body.info.tokens;
    expect(usage.total).toBe(usage.prompt + usage.completion);
    expect(body.info.token_usage).toBe(usage.total);
    expect(usage.completion).toBeGreaterThan(0);
  });

  test("a structured answer matches output_format's JSON Schema and holds the facts", async () => {
    const shape = { completed_year: "integer", height_metres: "number", designer: "string" } as const;
    const body = await jsonOf(search({ prompt: "Facts about the Eiffel Tower", output_format: shape }));
    expect(conforms(toJsonSchema(shape), body.response)).toBe(true);
    expect(body.response.completed_year).toBe(1889);
    expect(body.response.height_metres).toBe(330);
    expect(body.context.length).toBeGreaterThan(0);
  });

  test("no sources found: the answer says so and cites nothing", async () => {
    const body = await jsonOf(search({ prompt: "zyxwv qqqq unknowable" }));
    expect(body.context).toEqual([]);
    expect(body.response).not.toMatch(/\[\d+\]/);
    expect(body.response.toLowerCase()).toContain("could not find");
  });
});

describe("domain lists", () => {
  test("a blacklisted domain never appears in context", async () => {
    const body = await jsonOf(search({ prompt: "What will the river bridge cost?", source_blacklist: ["spam.test"] }));
    expect(body.context.length).toBeGreaterThan(0);
    for (const entry of body.context) expect(new URL(entry.metadata.url).hostname).not.toBe("spam.test");
  });

  test("a whitelist keeps context inside it (domains or URL prefixes)", async () => {
    const body = await jsonOf(search({ prompt: "What will the river bridge cost?", source_whitelist: ["blog.test"] }));
    expect(body.context.length).toBeGreaterThan(0);
    for (const entry of body.context) expect(new URL(entry.metadata.url).hostname).toBe("blog.test");
    expect(body.response).toContain("42 million");
    const prefixed = await jsonOf(search({ prompt: "river bridge", source_whitelist: [world.url("news.test", "/bridge")] }));
    for (const entry of prefixed.context) expect(entry.metadata.url.startsWith(world.url("news.test", "/bridge"))).toBe(true);
  });

  test("the whitelist is passed to the provider natively", async () => {
    await search({ prompt: "river bridge", source_whitelist: ["blog.test"] });
    expect(world.brave.last().params.q).toContain("site:blog.test");
  });
});

describe("failing providers degrade the answer, never fail it", () => {
  for (const fault of ["500", "garbage", "hang"] as const) {
    test(`one provider answering ${fault} while the other answers`, async () => {
      world.brave.setFault(fault);
      try {
        const started = performance.now();
        const response = await search({ prompt: "When was the Eiffel Tower completed?" });
        expect(response.status).toBe(200);
        const body = await jsonOf(response);
        expect(body.response).toContain("1889");
        const brave = body.info.providers.find((p: { name: string }) => p.name === "brave");
        expect(brave.failed).toBeGreaterThan(0);
        expect(brave.errors.length).toBeGreaterThan(0);
        // A hung provider costs its timeout (2 s here), not the whole deadline.
        expect(performance.now() - started).toBeLessThan(6_000);
      } finally {
        world.brave.setFault(null);
      }
    });
  }
});

describe("the deadline", () => {
  test("a run past SEARCH_DEADLINE_MS is a 504 with a clean body", async () => {
    const slow = await startTestApp(database, {
      env: world.env({ SEARCH_DEADLINE_MS: "1000", PROVIDER_TIMEOUT_MS: "10000", SEARCH_HEDGING: "false" }),
      resolver: world.resolver,
    });
    world.searxng.setLatency(3_000);
    world.brave.setLatency(3_000);
    try {
      const key = (await slow.account({ limit: 100_000 })).apiKey;
      const started = performance.now();
      const response = await slow.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": key, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "river bridge" }),
      });
      expect(response.status).toBe(504);
      expect(await jsonOf(response)).toEqual({ detail: "the search did not finish within 1 second", error: "deadline_exceeded" });
      expect(performance.now() - started).toBeLessThan(2_500);
      expect(slow.load.value).toBe(0);
    } finally {
      world.searxng.setLatency(0);
      world.brave.setLatency(0);
      await slow.stop();
    }
  });
});

describe("images", () => {
  test("a valid base64 image without a vision model is accepted and reported as not analysed", async () => {
    for (const image of [
      Buffer.from(minimalPng()).toString("base64"),
      `data:image/png;base64,${Buffer.from(minimalPng()).toString("base64")}`,
    ]) {
      const response = await search({ prompt: "What is this bridge?", image });
      expect(response.status).toBe(200);
      const body = await jsonOf(response);
      expect(body.info.image_analysed).toBe(false);
      expect(body.info.image_note).toContain("not analysed");
    }
  });

  const invalid: [string, unknown, string][] = [
    ["an http (not https) URL", "http://images.test/a.png", "https"],
    ["a URL without an image extension", "https://images.test/photo", ".jpg"],
    ["base64 that is not an image", Buffer.from("hello, not an image at all").toString("base64"), "PNG, JPEG, GIF or WebP"],
    ["not base64 at all", "this is ~~ not base64 !!", "base64"],
    ["a data URL of another type", "data:text/plain;base64,aGVsbG8=", "data:image"],
    ["an image over the size cap", Buffer.from(new Uint8Array(6 * 1024 * 1024)).toString("base64"), "larger than"],
    ["an https URL to a blocked address", "https://127.0.0.1/a.png", "could not be fetched"],
  ];
  for (const [label, image, words] of invalid) {
    test(`422 for ${label}`, async () => {
      const response = await search({ prompt: "What is this?", image });
      expect(response.status).toBe(422);
      const detail = (await jsonOf(response)).detail[0];
      expect(detail.loc).toEqual(["body", "image"]);
      expect(detail.msg).toContain(words);
    });
  }
});

describe("422 for every rule", () => {
  const cases: [string, unknown, (string | number)[]][] = [
    ["a missing prompt", {}, ["body", "prompt"]],
    ["an empty prompt", { prompt: "" }, ["body", "prompt"]],
    ["a blank prompt", { prompt: "   " }, ["body", "prompt"]],
    ["a prompt of the wrong type", { prompt: 42 }, ["body", "prompt"]],
    [
      "both a whitelist and a blacklist",
      { prompt: "x", source_whitelist: ["a.com"], source_blacklist: ["b.com"] },
      ["body", "source_whitelist"],
    ],
    ["a list entry that is no domain", { prompt: "x", source_blacklist: ["ok.com", "not a domain"] }, ["body", "source_blacklist", 1]],
    ["a list that is not a list", { prompt: "x", source_whitelist: "a.com" }, ["body", "source_whitelist"]],
    ["an unknown type name", { prompt: "x", output_format: { a: "text" } }, ["body", "output_format", "a"]],
    ["an array of two shapes", { prompt: "x", output_format: { a: ["string", "number"] } }, ["body", "output_format", "a"]],
    [
      "nesting deeper than 8",
      { prompt: "x", output_format: { a: { b: { c: { d: { e: { f: { g: { h: { i: "string" } } } } } } } } } },
      ["body", "output_format", "a", "b", "c", "d", "e", "f", "g", "h"],
    ],
    [
      "more than 200 fields",
      { prompt: "x", output_format: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, "string"])) },
      ["body", "output_format"],
    ],
    ["an output_format that is not an object", { prompt: "x", output_format: "string" }, ["body", "output_format"]],
    ["an image that is not a string", { prompt: "x", image: 5 }, ["body", "image"]],
  ];
  for (const [label, body, loc] of cases) {
    test(label, async () => {
      const response = await search(body);
      expect(response.status).toBe(422);
      const detail = (await jsonOf(response)).detail;
      expect(detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    });
  }
});
