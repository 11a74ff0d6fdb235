/**
 * The frameworks people point at an OpenAI-compatible base URL, run against
 * the real server and the loopback web: OpenAI's SDK with a zod schema
 * through its `parse` helper, and the Vercel AI SDK's OpenAI-compatible
 * provider (generateText, streamText, generateObject).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ChatOpenAI } from "@langchain/openai";
import { generateObject, generateText, streamText } from "ai";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import { z } from "zod";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;

const QUESTION = "When was the Eiffel Tower completed?";
const Tower = z.object({ year_completed: z.number().nullable(), architect: z.string().nullable() });

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

describe("OpenAI's SDK", () => {
  test("parse with a zod response format gives the parsed object", async () => {
    const client = new OpenAI({ apiKey, baseURL: `${app.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.parse({
      model: "search",
      messages: [{ role: "user", content: QUESTION }],
      response_format: zodResponseFormat(Tower, "tower"),
    });
    const parsed = completion.choices[0]!.message.parsed!;
    expect(Object.keys(parsed).sort()).toEqual(["architect", "year_completed"]);
    expect(parsed.year_completed === null || typeof parsed.year_completed === "number").toBe(true);
  });
});

describe("the Vercel AI SDK's OpenAI-compatible provider", () => {
  const provider = () =>
    createOpenAICompatible({
      name: "agentic-search",
      baseURL: `${app.url}/v1`,
      apiKey,
      includeUsage: true,
      supportsStructuredOutputs: true,
    });

  test("generateText: the cited answer and the run's tokens", async () => {
    const { text, usage, finishReason } = await generateText({ model: provider()("search"), prompt: QUESTION, maxRetries: 0 });
    expect(text).toMatch(/1889/);
    expect(text).toMatch(/\[\d+\]/);
    expect(finishReason).toBe("stop");
    expect(usage.totalTokens).toBeGreaterThan(0);
  });

  test("streamText: the deltas add up to generateText's answer", async () => {
    const { text: whole } = await generateText({ model: provider()("search"), prompt: QUESTION, maxRetries: 0 });
    const result = streamText({ model: provider()("search"), prompt: QUESTION, maxRetries: 0 });
    let streamed = "";
    for await (const delta of result.textStream) streamed += delta;
    expect(streamed).toBe(whole);
    expect((await result.usage).totalTokens).toBeGreaterThan(0);
  });

  test("generateObject: an object of the zod schema's shape", async () => {
    const { object } = await generateObject({ model: provider()("search"), schema: Tower, prompt: QUESTION, maxRetries: 0 });
    expect(Object.keys(object).sort()).toEqual(["architect", "year_completed"]);
  });
});

describe("LangChain's ChatOpenAI with a base URL", () => {
  const chat = () => new ChatOpenAI({ model: "search", apiKey, configuration: { baseURL: `${app.url}/v1` }, maxRetries: 0 });

  test("invoke: the cited answer, and the run's tokens in its usage metadata", async () => {
    const message = await chat().invoke(QUESTION);
    expect(String(message.content)).toMatch(/1889/);
    expect(message.usage_metadata!.total_tokens).toBeGreaterThan(0);
  });

  test("stream: the chunks add up to invoke's answer", async () => {
    const whole = String((await chat().invoke(QUESTION)).content);
    let streamed = "";
    for await (const chunk of await chat().stream(QUESTION)) streamed += String(chunk.content);
    expect(streamed).toBe(whole);
  });

  test("withStructuredOutput (JSON schema): an object of the zod schema's shape", async () => {
    const object = await chat().withStructuredOutput(Tower, { method: "jsonSchema" }).invoke(QUESTION);
    expect(Object.keys(object).sort()).toEqual(["architect", "year_completed"]);
  });
});
