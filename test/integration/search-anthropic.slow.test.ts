/**
 * The research run with LLM_PROVIDER=anthropic: a Messages API server on
 * loopback, reached through the AI SDK's Anthropic provider exactly as in
 * production. Two models, because the SDK asks for structured output in two
 * ways: newer models get `output_config.format`, older ones a forced `json`
 * tool whose tool_use block carries the object.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { expectGroundedCitations } from "../helpers/citations.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { expectExtractiveFallback, expectStreamedDeltas } from "../helpers/llm-checks.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import { startAnthropicPeer, structuredMode, type AnthropicPeer } from "../helpers/peers/anthropic.ts";
import { quoteFirstSource, textOf, type ChatScript } from "../helpers/peers/openai-compatible.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

const FACTS: ChatScript = (request, kind) =>
  kind === "structured" && textOf(request.messages[0]).includes("fill a JSON object")
    ? { completed_year: 1889, designer: "Gustave Eiffel" }
    : quoteFirstSource(request, kind);

let world: SearchWorld;
let peer: AnthropicPeer;

beforeAll(() => {
  world = startSearchWorld();
  peer = startAnthropicPeer();
});
afterAll(() => {
  world.stop();
  peer.stop();
});

function reset(script: ChatScript = quoteFirstSource) {
  peer.requests.length = 0;
  peer.seen.length = 0;
  peer.script = script;
  peer.failNext = null;
}

for (const { model, mode } of [
  { model: "claude-sonnet-4-5", mode: "output_format" },
  { model: "claude-sonnet-4-20250514", mode: "json_tool" },
] as const) {
  describe(`with Anthropic's ${model} (structured output by ${mode})`, () => {
    let database: TestDatabase;
    let app: TestApp;
    let apiKey: string;

    beforeAll(async () => {
      database = await freshDatabase();
      app = await startTestApp(database, {
        env: world.env({
          LLM_PROVIDER: "anthropic",
          ANTHROPIC_BASE_URL: peer.url,
          ANTHROPIC_API_KEY: peer.apiKey,
          LLM_MODEL: model,
          LLM_VISION: "true",
        }),
        resolver: world.resolver,
      });
      apiKey = (await app.account({ limit: 100_000 })).apiKey;
    });
    afterAll(async () => {
      await app.stop();
      await database.drop();
    });

    const search = (body: unknown) =>
      app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": apiKey, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    test("plans with a structured call, streams a cited, grounded answer, and reports Anthropic's usage", async () => {
      reset();
      const body = await jsonOf(search({ prompt: "When was the Eiffel Tower completed?" }));
      expect(body.info.model).toBe(model);
      expect(body.info.planner).toBe("llm");
      expect(peer.requests.map((r) => structuredMode(r) ?? (r.stream ? "stream" : "plain"))).toEqual([mode, "stream"]);
      expect(peer.requests.every((r) => r.model === model && r.max_tokens > 0)).toBe(true);
      expect(body.response).toMatch(/\[1\]$/);
      expectGroundedCitations(body);
      expect(textOf(peer.seen[1]!.messages.at(-1))).toContain("[1] Eiffel Tower");
      // The usage is the peer's count (input + output), not our own estimate.
      const sent = peer.seen.map((r) => ({ input: Math.ceil(r.messages.map(textOf).join("\n").length / 4) }));
      expect(body.info.tokens.prompt).toBe(sent.reduce((sum, r) => sum + r.input, 0));
      expect(body.info.tokens.completion).toBeGreaterThan(0);
      expect(body.info.token_usage).toBe(body.info.tokens.total);
    });

    test("the WebSocket streams the text deltas after the context", async () => {
      reset();
      peer.chunkDelayMs = 5;
      try {
        await expectStreamedDeltas(app, apiKey);
      } finally {
        peer.chunkDelayMs = 0;
      }
    });

    test("structured output comes back as the object, with the schema sent the model's way", async () => {
      reset(FACTS);
      const body = await jsonOf(search({ prompt: "Eiffel Tower facts", output_format: { completed_year: "integer", designer: "string" } }));
      expect(body.response).toEqual({ completed_year: 1889, designer: "Gustave Eiffel" });
      const last = peer.requests.at(-1)!;
      expect(structuredMode(last)).toBe(mode);
      const schema = peer.seen.at(-1)!.response_format!.json_schema!.schema as { properties: Record<string, unknown> };
      expect(schema).toMatchObject({ type: "object", required: ["completed_year", "designer"], additionalProperties: false });
      expect(Object.keys(schema.properties)).toEqual(["completed_year", "designer"]);
    });

    test("the image goes to the model as a base64 image block", async () => {
      reset();
      const body = await jsonOf(search({ prompt: "Which bridge is this?", image: Buffer.from(minimalPng()).toString("base64") }));
      expect(body.info.image_analysed).toBe(true);
      const described = peer.requests.find((r) => JSON.stringify(r.system ?? "").includes("Describe the image"))!;
      const parts = described.messages.at(-1)!.content as { type: string; source?: { type: string; media_type: string; data: string } }[];
      const image = parts.find((p) => p.type === "image")!;
      expect(image.source).toMatchObject({ type: "base64", media_type: "image/png" });
      expect(image.source!.data).toBe(Buffer.from(minimalPng()).toString("base64"));
    });

    test("an overloaded model (529) falls back to key-phrase planning and an extractive answer", async () => {
      reset();
      peer.failNext = { status: 529, count: 100 };
      await expectExtractiveFallback(search);
      peer.failNext = null;
    });
  });
}

test("a wrong Anthropic key is the model's failure, not the caller's: the search still answers, and the provider's message stays in the log", async () => {
  const database = await freshDatabase();
  const app = await startTestApp(database, {
    env: world.env({
      LLM_PROVIDER: "anthropic",
      ANTHROPIC_BASE_URL: peer.url,
      ANTHROPIC_API_KEY: "wrong-key",
      LLM_MODEL: "claude-sonnet-4-5",
    }),
    resolver: world.resolver,
  });
  try {
    reset();
    const { apiKey } = await app.account({ limit: 100_000 });
    const response = await app.fetch("/v1/search", {
      method: "POST",
      headers: { "X-API-Key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.info.planner).toBe("keyphrases");
    expect(body.response).toContain("1889");
    expect(peer.requests.length).toBe(0); // refused at the door: nothing reached the peer's log
    // The provider's own words stay in our log; the caller reads ours.
    expect(JSON.stringify(body)).not.toContain("x-api-key");
    expect(body.info.notes.join(" ")).toContain("model_auth_failed");
    expect(app.logs.some((line) => line.includes("model call failed") && line.includes("invalid x-api-key"))).toBe(true);
  } finally {
    await app.stop();
    await database.drop();
  }
});
