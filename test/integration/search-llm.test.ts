/**
 * The research run with a language model: an OpenAI-compatible server on
 * loopback (streaming chat completions and json_schema structured output),
 * reached through the AI SDK exactly as in production.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { conforms, toJsonSchema } from "../../src/research/output-format.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { expectExtractiveFallback, expectStreamedDeltas } from "../helpers/llm-checks.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import { quoteFirstSource, startChatPeer, textOf, type ChatPeer } from "../helpers/peers/openai-compatible.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { expectGroundedCitations } from "../helpers/citations.ts";

let database: TestDatabase;
let world: SearchWorld;
let peer: ChatPeer;
let app: TestApp;
let apiKey: string;

beforeAll(async () => {
  world = startSearchWorld();
  peer = startChatPeer();
  database = await freshDatabase();
  app = await startTestApp(database, {
    env: world.env({ OPENAI_BASE_URL: peer.url, OPENAI_API_KEY: peer.apiKey, LLM_MODEL: "loopback-model", LLM_VISION: "true" }),
    resolver: world.resolver,
  });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
  peer.stop();
});

const search = (body: unknown) =>
  app.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

function reset(script = quoteFirstSource) {
  peer.requests.length = 0;
  peer.script = script;
  peer.failNext = null;
}

describe("with an OpenAI-compatible model", () => {
  test("plans with one structured call, answers with a streamed, cited, grounded answer, and reports the model's usage", async () => {
    reset();
    const body = await jsonOf(search({ prompt: "When was the Eiffel Tower completed?" }));
    expect(body.info.model).toBe("loopback-model");
    expect(body.info.planner).toBe("llm");
    const kinds = peer.requests.map((r) => (r.response_format ? "structured" : r.stream ? "stream" : "plain"));
    expect(kinds).toEqual(["structured", "stream"]);
    expect(body.response).toMatch(/\[1\]$/);
    expectGroundedCitations(body);
    // The model saw the numbered sources it was asked to cite.
    expect(textOf(peer.requests[1]!.messages.at(-1))).toContain("[1] Eiffel Tower");
    expect(body.info.tokens.prompt).toBeGreaterThan(0);
    expect(body.info.tokens.completion).toBeGreaterThan(0);
    expect(body.info.token_usage).toBe(body.info.tokens.total);
  });

  test("citations of sources that do not exist are removed from the answer", async () => {
    reset((request, kind) =>
      kind === "answer" ? "The tower was completed in 1889 [1]. It is made of cheese [7]." : quoteFirstSource(request, kind),
    );
    const body = await jsonOf(search({ prompt: "When was the Eiffel Tower completed?" }));
    expect(body.response).toContain("completed in 1889 [1]");
    expect(body.response).not.toContain("[7]");
  });

  test("the WebSocket streams the model's deltas after the context", async () => {
    reset();
    peer.chunkDelayMs = 5;
    try {
      await expectStreamedDeltas(app, apiKey);
    } finally {
      peer.chunkDelayMs = 0;
    }
  });

  test("structured output follows the JSON Schema sent as response_format", async () => {
    reset((request, kind) =>
      kind === "structured" && textOf(request.messages[0]).includes("fill a JSON object")
        ? { completed_year: 1889, designer: "Gustave Eiffel" }
        : quoteFirstSource(request, kind),
    );
    const shape = { completed_year: "integer", designer: "string" } as const;
    const body = await jsonOf(search({ prompt: "Eiffel Tower facts", output_format: shape }));
    expect(body.response).toEqual({ completed_year: 1889, designer: "Gustave Eiffel" });
    const sent = peer.requests.at(-1)!.response_format!.json_schema!.schema;
    expect(sent).toMatchObject({ type: "object", required: ["completed_year", "designer"], additionalProperties: false });
  });

  test("an invalid structured answer is repaired once", async () => {
    let attempts = 0;
    reset((request, kind) => {
      if (kind !== "structured" || !textOf(request.messages[0]).includes("fill a JSON object")) return quoteFirstSource(request, kind);
      attempts++;
      return attempts === 1 ? { completed_year: "eighteen eighty-nine" } : { completed_year: 1889 };
    });
    const body = await jsonOf(search({ prompt: "Eiffel Tower facts", output_format: { completed_year: "integer" } }));
    expect(attempts).toBe(2);
    expect(textOf(peer.requests.at(-1)!.messages.at(-1))).toContain("previous answer was invalid");
    expect(body.response).toEqual({ completed_year: 1889 });
  });

  test("invalid twice: typed extraction fills it, and info says so", async () => {
    reset((request, kind) =>
      kind === "structured" && textOf(request.messages[0]).includes("fill a JSON object")
        ? { wrong: true }
        : quoteFirstSource(request, kind),
    );
    const shape = { completed_year: "integer" } as const;
    const body = await jsonOf(search({ prompt: "When was the Eiffel Tower completed?", output_format: shape }));
    expect(conforms(toJsonSchema(shape), body.response)).toBe(true);
    expect(body.response.completed_year).toBe(1889);
    expect(body.info.notes.join(" ")).toContain("typed extraction");
  });

  test("a failing model falls back to key-phrase planning and an extractive answer", async () => {
    reset();
    peer.failNext = { status: 500, count: 100 };
    await expectExtractiveFallback(search);
    peer.failNext = null;
  });

  test("with a vision model the image goes to the model", async () => {
    reset();
    const image = Buffer.from(minimalPng()).toString("base64");
    const body = await jsonOf(search({ prompt: "Which bridge is this?", image }));
    expect(body.info.image_analysed).toBe(true);
    const described = peer.requests.find((r) => textOf(r.messages[0]).includes("Describe the image"))!;
    const parts = described.messages.at(-1)!.content as { type: string; image_url?: { url: string } }[];
    expect(parts.some((p) => p.type === "image_url" && p.image_url!.url.startsWith("data:image/png;base64,"))).toBe(true);
    // The description joined the planning request.
    expect(textOf(peer.requests.find((r) => textOf(r.messages[0]).includes("plan web searches"))!.messages.at(-1))).toContain(
      "red river bridge",
    );
  });
});
