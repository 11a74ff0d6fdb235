/** The streaming faces of one research run: the WebSocket (Bun's, with a real client) and server-sent events. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { openSocket, rawUpgrade } from "../helpers/websocket.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;
let wsUrl: string;

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, { env: world.env(), resolver: world.resolver });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
  wsUrl = `${app.url.replace("http", "ws")}/v1/ws/search`;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

describe("the WebSocket", () => {
  test("sends context before the first response, then closes normally", async () => {
    const run = await openSocket(wsUrl, {
      headers: { "X-API-Key": apiKey },
      send: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    });
    expect(run.closeCode).toBe(1000);
    const types = run.messages.map((m) => m.type);
    expect(types[0]).toBe("context");
    expect(types.slice(1).every((t) => t === "response")).toBe(true);
    expect(types.filter((t) => t === "response").length).toBeGreaterThan(0);
    const answer = run.messages
      .filter((m) => m.type === "response")
      .map((m) => m.content)
      .join("");
    expect(answer).toContain("1889");
    const context = run.messages[0]!.content as { id: number }[];
    expect(context[0]!.id).toBe(1);
    for (const raw of run.raw) expect(Object.keys(JSON.parse(raw)).sort()).toEqual(["content", "type"]);
  });

  test("with output_format, one response holds the whole object", async () => {
    const run = await openSocket(wsUrl, {
      headers: { "X-API-Key": apiKey },
      send: JSON.stringify({ prompt: "Eiffel Tower facts", output_format: { completed_year: "integer" } }),
    });
    const responses = run.messages.filter((m) => m.type === "response");
    expect(responses.length).toBe(1);
    expect(responses[0]!.content).toEqual({ completed_year: 1889 });
  });

  test("with ?info=true a finished run sends its info, with the request id, last before the close", async () => {
    const run = await openSocket(`${wsUrl}?info=true`, {
      headers: { "X-API-Key": apiKey },
      send: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    });
    expect(run.closeCode).toBe(1000);
    const last = run.messages.at(-1)!;
    expect(last.type).toBe("info");
    expect(run.messages.filter((m) => m.type === "info").length).toBe(1);
    const info = last.content as {
      token_usage: number;
      queries: string[];
      timings_ms: { total: number };
      providers: unknown[];
      request_id: string;
    };
    expect(info.token_usage).toBeGreaterThan(0);
    expect(info.queries.length).toBeGreaterThan(0);
    expect(info.timings_ms.total).toBeGreaterThanOrEqual(0);
    expect(info.providers.length).toBeGreaterThan(0);
    expect(info.request_id).toMatch(/^req_/);
    const without = await openSocket(wsUrl, { headers: { "X-API-Key": apiKey }, send: JSON.stringify({ prompt: "Eiffel Tower" }) });
    expect(without.messages.some((m) => m.type === "info")).toBe(false);
  });

  test("a bad info value refuses the upgrade with 422", async () => {
    const refused = await rawUpgrade(`${wsUrl}?info=maybe`, { "X-API-Key": apiKey });
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.body).detail[0].loc).toEqual(["query", "info"]);
  });

  test("an invalid message gets exactly one error, then the close", async () => {
    for (const send of [
      "not json",
      JSON.stringify({ nope: 1 }),
      JSON.stringify({ prompt: "x", output_format: { a: "text" } }),
      JSON.stringify({ prompt: "x", source_whitelist: ["a.com"], source_blacklist: ["b.com"] }),
    ]) {
      const run = await openSocket(wsUrl, { headers: { "X-API-Key": apiKey }, send });
      expect(run.messages.length).toBe(1);
      expect(run.messages[0]!.type).toBe("error");
      expect(typeof run.messages[0]!.content).toBe("string");
      expect(run.closeCode).toBe(1000);
    }
  });

  test("a bad or missing key refuses the upgrade with 401", async () => {
    for (const headers of [{}, { "X-API-Key": "sk_live_wrong" }] as Record<string, string>[]) {
      const refused = await rawUpgrade(wsUrl, headers);
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body).error).toBe("unauthorized");
    }
    const accepted = await rawUpgrade(wsUrl, { "X-API-Key": apiKey });
    expect(accepted.status).toBe(101);
  });

  test("browsers send the key as the subprotocol pair x-api-key, <key>", async () => {
    const run = await openSocket(wsUrl, { protocols: ["x-api-key", apiKey], send: JSON.stringify({ prompt: "Eiffel Tower" }) });
    expect(run.protocol).toBe("x-api-key");
    expect(run.messages[0]!.type).toBe("context");
    expect(run.closeCode).toBe(1000);
  });

  test("is rate limited like every other call: the 11th upgrade of a free key is refused with 429", async () => {
    const free = (await app.account({ name: "free-ws" })).apiKey;
    for (let i = 0; i < 10; i++) expect((await rawUpgrade(wsUrl, { "X-API-Key": free })).status).toBe(101);
    const limited = await rawUpgrade(wsUrl, { "X-API-Key": free });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.body).error).toBe("rate_limited");
  });
});

describe("server-sent events", () => {
  test("POST /v1/search with Accept: text/event-stream streams the same events", async () => {
    const response = await app.fetch("/v1/search", {
      method: "POST",
      headers: { "X-API-Key": apiKey, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("x-ratelimit-limit")).toBe("100000");
    const text = await response.text();
    const events = text
      .split("\n\n")
      .filter((block) => block.startsWith("event:"))
      .map((block) => {
        const [eventLine, dataLine] = block.split("\n");
        return { event: eventLine!.slice(7), data: JSON.parse(dataLine!.slice(6)) };
      });
    expect(events[0]!.event).toBe("context");
    expect(events[0]!.data.type).toBe("context");
    expect(events.slice(1).every((e) => e.event === "response" && e.data.type === "response")).toBe(true);
    expect(
      events
        .map((e) => e.data.content)
        .slice(1)
        .join(""),
    ).toContain("1889");
  });

  test("a body that breaks a rule is still a 422 JSON answer, not a stream", async () => {
    const response = await app.fetch("/v1/search", {
      method: "POST",
      headers: { "X-API-Key": apiKey, "content-type": "application/json", accept: "text/event-stream" },
      body: "{}",
    });
    expect(response.status).toBe(422);
    expect((await jsonOf(response)).detail[0].loc).toEqual(["body", "prompt"]);
  });

  test("the deadline ends the stream with an error event", async () => {
    const slow = await startTestApp(database, {
      env: world.env({ SEARCH_DEADLINE_MS: "1000", SEARCH_HEDGING: "false" }),
      resolver: world.resolver,
    });
    world.searxng.setLatency(2_500);
    world.brave.setLatency(2_500);
    try {
      const key = (await slow.account({ limit: 100_000 })).apiKey;
      const response = await slow.fetch("/v1/search", {
        method: "POST",
        headers: { "X-API-Key": key, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ prompt: "river bridge" }),
      });
      const text = await response.text();
      expect(text).toContain("event: error");
      expect(text).toContain("did not finish within 1 second");
      const run = await openSocket(`${slow.url.replace("http", "ws")}/v1/ws/search`, {
        headers: { "X-API-Key": key },
        send: JSON.stringify({ prompt: "river bridge" }),
      });
      expect(run.messages.at(-1)).toEqual({ type: "error", content: "the search did not finish within 1 second (deadline_exceeded)" });
      expect(run.closeCode).toBe(1000);
    } finally {
      world.searxng.setLatency(0);
      world.brave.setLatency(0);
      await slow.stop();
    }
  });
});
