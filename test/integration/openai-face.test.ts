/**
 * The OpenAI-compatible face, driven by OpenAI's own SDK (the `openai` npm
 * package) against the real server and the loopback web the other research
 * tests use: chat completions, streamed and not, with a JSON schema, the
 * models list, and the SDK's typed errors from our 401, 404, 400 and 429.
 * The same question through POST /v1/search cites the same sources and
 * bills the same.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;
let client: OpenAI;

const QUESTION = "When was the Eiffel Tower completed?";

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, { env: world.env(), resolver: world.resolver });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
  client = new OpenAI({ apiKey, baseURL: `${app.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

const post = (path: string, body: unknown, key = apiKey) =>
  app.fetch(path, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("chat completions through OpenAI's SDK", () => {
  test("the answer, its sources both ways (citations and annotations at the [n] markers) and its usage", async () => {
    const completion = await client.chat.completions.create({ model: "search", messages: [{ role: "user", content: QUESTION }] });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("search");
    const message = completion.choices[0]!.message;
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(message.role).toBe("assistant");
    expect(message.content).toMatch(/1889/);
    const extra = completion as unknown as { citations: string[]; search_results: { title: string; url: string }[] };
    expect(extra.citations.length).toBeGreaterThan(0);
    expect(extra.search_results.map((r) => r.url)).toEqual(extra.citations);
    const markers = [...message.content!.matchAll(/\[(\d+)\]/g)];
    expect(markers.length).toBeGreaterThan(0);
    expect(message.annotations).toHaveLength(markers.length);
    for (const [i, annotation] of (message.annotations ?? []).entries()) {
      const marker = markers[i]!;
      expect(annotation.type).toBe("url_citation");
      expect(message.content!.slice(annotation.url_citation.start_index, annotation.url_citation.end_index)).toBe(marker[0]);
      expect(annotation.url_citation.url).toBe(extra.citations[Number(marker[1]) - 1]!);
    }
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
  });

  test("the same question through POST /v1/search cites the same sources and bills the same", async () => {
    const searched = await jsonOf(
      await app.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": apiKey, "content-type": "application/json" },
        body: JSON.stringify({ prompt: QUESTION }),
      }),
    );
    const completion = await client.chat.completions.create({ model: "search", messages: [{ role: "user", content: QUESTION }] });
    const extra = completion as unknown as { citations: string[] };
    expect(extra.citations).toEqual(searched.context.map((c: { metadata: { url: string } }) => c.metadata.url));
    expect(completion.choices[0]!.message.content).toBe(searched.response);
    expect(completion.usage!.total_tokens).toBe(searched.info.token_usage);
  });

  test("streamed: the sources first, the answer in deltas that add up to the whole one, then the usage chunk", async () => {
    const whole = await client.chat.completions.create({ model: "search", messages: [{ role: "user", content: QUESTION }] });
    const stream = await client.chat.completions.create({
      model: "search",
      messages: [{ role: "user", content: QUESTION }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.object).toBe("chat.completion.chunk");
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect((chunks[0] as unknown as { search_results: unknown[] }).search_results.length).toBeGreaterThan(0);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe(whole.choices[0]!.message.content!);
    const finished = chunks.filter((c) => c.choices[0]?.finish_reason === "stop");
    expect(finished).toHaveLength(1);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.total_tokens).toBe(whole.usage!.total_tokens);
  });

  test("a JSON schema in response_format makes the content JSON of that shape", async () => {
    const completion = await client.chat.completions.create({
      model: "search",
      messages: [{ role: "user", content: QUESTION }],
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "tower",
          schema: {
            type: "object",
            properties: { year_completed: { type: "integer" }, architect: { type: "string" } },
            required: ["year_completed"],
          },
        },
      },
    });
    const content = JSON.parse(completion.choices[0]!.message.content!);
    expect(Object.keys(content).sort()).toEqual(["architect", "year_completed"]);
    expect(content.year_completed === null || Number.isInteger(content.year_completed)).toBe(true);
  });

  test("earlier turns and the system message are context; the last user message is the question", async () => {
    const completion = await client.chat.completions.create({
      model: "search",
      messages: [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: "Tell me about Paris landmarks." },
        { role: "assistant", content: "Paris has many landmarks." },
        { role: "user", content: QUESTION },
      ],
    });
    expect(completion.choices[0]!.message.content).toMatch(/1889/);
  });
});

describe("responses through OpenAI's SDK", () => {
  test("output_text and an assistant message whose output_text carries url_citation annotations at the [n] markers", async () => {
    const response = await client.responses.create({ model: "search", input: QUESTION });
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toMatch(/1889/);
    const message = response.output[0]!;
    if (message.type !== "message") throw new Error(`unexpected output item ${message.type}`);
    const part = message.content[0]!;
    if (part.type !== "output_text") throw new Error(`unexpected part ${part.type}`);
    expect(part.text).toBe(response.output_text);
    const markers = [...part.text.matchAll(/\[(\d+)\]/g)];
    expect(part.annotations).toHaveLength(markers.length);
    for (const [i, annotation] of part.annotations.entries()) {
      if (annotation.type !== "url_citation") throw new Error(`unexpected annotation ${annotation.type}`);
      expect(part.text.slice(annotation.start_index, annotation.end_index)).toBe(markers[i]![0]);
    }
    expect(response.usage!.total_tokens).toBeGreaterThan(0);
  });

  test("message items with instructions, and a JSON schema in text.format", async () => {
    const response = await client.responses.create({
      model: "search",
      instructions: "Answer briefly.",
      input: [{ role: "user", content: [{ type: "input_text", text: QUESTION }] }],
      text: {
        format: {
          type: "json_schema",
          name: "tower",
          schema: { type: "object", properties: { year_completed: { type: ["integer", "null"] } } },
        },
      },
    });
    expect(Object.keys(JSON.parse(response.output_text))).toEqual(["year_completed"]);
  });

  test("streamed: the Responses events in order, deltas adding up to the text, annotations, then completed", async () => {
    const whole = await client.responses.create({ model: "search", input: QUESTION });
    const stream = await client.responses.create({ model: "search", input: QUESTION, stream: true });
    const types: string[] = [];
    let text = "";
    let annotations = 0;
    let completed: { output_text?: string; usage?: { total_tokens: number } | null } | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.output_text.annotation.added") annotations++;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types).toContain("response.output_item.added");
    expect(types).toContain("response.output_text.done");
    expect(text).toBe(whole.output_text);
    expect(annotations).toBe([...whole.output_text.matchAll(/\[\d+\]/g)].length);
    expect(completed!.output_text).toBe(whole.output_text);
    expect(completed!.usage!.total_tokens).toBe(whole.usage!.total_tokens);
  });

  test("tools, previous_response_id and an unknown model are refused in OpenAI's shape", async () => {
    for (const [extra, param] of [
      [{ tools: [{ type: "web_search" }] }, "tools"],
      [{ previous_response_id: "resp_x" }, "previous_response_id"],
      [{ model: "gpt-5" }, "model"],
    ] as const) {
      const error = (await client.responses
        .create({ model: "search", input: QUESTION, ...extra } as never)
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.param).toBe(param);
    }
  });
});

describe("models", () => {
  test("listed and retrieved in OpenAI's shape; an unknown one is the SDK's NotFoundError", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((m) => [m.id, m.object])).toEqual([["search", "model"]]);
    expect((await client.models.retrieve("search")).id).toBe("search");
    const error = await client.models.retrieve("gpt-nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("errors in OpenAI's shape", () => {
  test("a bad key is the SDK's AuthenticationError", async () => {
    const stranger = new OpenAI({ apiKey: "sk_live_not_a_key", baseURL: `${app.url}/v1`, maxRetries: 0 });
    const error = (await stranger.chat.completions
      .create({ model: "search", messages: [{ role: "user", content: QUESTION }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.code).toBe("invalid_api_key");
  });

  test("an unknown model is a 404 naming the model; n > 1, tools and logprobs are 400s naming the parameter", async () => {
    const model = (await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: QUESTION }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(model).toBeInstanceOf(OpenAI.NotFoundError);
    expect(model.param).toBe("model");
    for (const [extra, param] of [
      [{ n: 2 }, "n"],
      [{ tools: [{ type: "function", function: { name: "f", parameters: {} } }] }, "tools"],
      [{ logprobs: true }, "logprobs"],
    ] as const) {
      const error = (await client.chat.completions
        .create({ model: "search", messages: [{ role: "user", content: QUESTION }], ...extra } as never)
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe(param);
    }
  });

  test("ignored parameters are accepted", async () => {
    const completion = await client.chat.completions.create({
      model: "search",
      messages: [{ role: "user", content: QUESTION }],
      temperature: 0.2,
      top_p: 0.9,
      seed: 7,
      max_tokens: 50,
    });
    expect(completion.choices[0]!.message.content).toMatch(/1889/);
  });

  test("a field the caller got wrong is a 400 invalid_request_error naming it, never a 422 or a 500", async () => {
    const cases: [unknown, string | null][] = [
      [{ model: "search", messages: "hello" }, "messages"],
      [{ model: "search", messages: [] }, "messages"],
      [{ model: "search", messages: [{ role: "wizard", content: "hi" }] }, "messages[0].role"],
      [{ model: "search", messages: [{ role: "assistant", content: "no question" }] }, "messages"],
      [{ model: "search", messages: [{ role: "user", content: "a\u0000b" }] }, null],
      [{ model: "search", messages: Array.from({ length: 300 }, () => ({ role: "user", content: "x" })) }, "messages"],
      [
        {
          model: "search",
          messages: [{ role: "user", content: QUESTION }],
          response_format: { type: "json_schema", json_schema: { schema: nest(10) } },
        },
        "response_format.json_schema.schema",
      ],
      [
        {
          model: "search",
          messages: [{ role: "user", content: QUESTION }],
          response_format: { type: "json_schema", json_schema: { schema: nest(40) } },
        },
        null,
      ],
      [
        {
          model: "search",
          messages: [{ role: "user", content: QUESTION }],
          response_format: {
            type: "json_schema",
            json_schema: { schema: { type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { $ref: "#/$defs/a" } } } },
          },
        },
        "response_format.json_schema.schema",
      ],
    ];
    for (const [body, param] of cases) {
      const response = await post("/v1/chat/completions", body);
      expect(response.status).toBe(400);
      const error = (await jsonOf(response)).error;
      expect(error.type).toBe("invalid_request_error");
      if (param) expect(error.param).toBe(param);
      expect(typeof error.message).toBe("string");
    }
  });

  test("a rate-limited key is the SDK's RateLimitError, with Retry-After and OpenAI's x-ratelimit headers", async () => {
    const free = await app.account({ name: "openai-free" });
    const limited = new OpenAI({ apiKey: free.apiKey, baseURL: `${app.url}/v1`, maxRetries: 0 });
    let error: InstanceType<typeof OpenAI.APIError> | undefined;
    for (let i = 0; i < 30 && !error; i++) {
      error = (await limited.models.list().catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError> | undefined;
      if (!(error instanceof OpenAI.APIError)) error = undefined;
    }
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error!.headers?.get("retry-after")).toMatch(/^\d+$/);
    expect(error!.headers?.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(error!.headers?.get("x-ratelimit-reset-requests")).toMatch(/^\d+s$/);
  });
});

function nest(depth: number): unknown {
  let schema: unknown = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}
