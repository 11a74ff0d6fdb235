/**
 * Every research run ends in one usage record, written through the run
 * wrapper and stamped by the service's clock (the app's injected clock, here
 * a manual one days behind the wall clock), whatever face ran it: the JSON
 * answer, the SSE stream, the WebSocket, a designed and a published
 * endpoint. Before, the two streams stamped their records with the wall
 * clock. A stream whose reader leaves mid-run is counted out of the load
 * gauge and recorded too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";
import { openSocket } from "../helpers/websocket.ts";

let world: SearchWorld;
let database: TestDatabase;
let app: TestApp;
let apiKey: string;
let owner: ReturnType<typeof client>;
// Whole seconds, ten days back: nothing else could stamp a record with this time.
const clock = new ManualClock(Math.floor((Date.now() - 10 * 86_400_000) / 1000) * 1000);

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, {
    env: world.env({ SEARCH_DEADLINE_MS: "30000", PROVIDER_TIMEOUT_MS: "30000", SEARCH_HEDGING: "false" }),
    resolver: world.resolver,
    clock,
  });
  apiKey = (await app.account({ name: "runner", limit: 100_000 })).apiKey;
  owner = client(app, apiKey);
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

let sequence = 0;
const nextId = (face: string) => `req_run_usage_${face}_${++sequence}`;

async function usageRow(requestId: string) {
  return waitFor(async () => {
    await app.usage.flush();
    return app.db.query.usageRecords.findFirst({ where: (u, { eq }) => eq(u.requestId, requestId) });
  }, `the usage record of ${requestId}`);
}

async function usageRows(requestId: string) {
  await app.usage.flush();
  return app.db.query.usageRecords.findMany({ where: (u, { eq }) => eq(u.requestId, requestId) });
}

const headers = (id: string, extra: Record<string, string> = {}) => ({
  "X-API-Key": apiKey,
  "content-type": "application/json",
  "x-request-id": id,
  ...extra,
});

describe("a run's usage record carries the service clock's time, on every face", () => {
  test("the JSON answer", async () => {
    const id = nextId("json");
    const response = await app.fetch("/v1/search", {
      method: "POST",
      headers: headers(id),
      body: JSON.stringify({ prompt: "river bridge cost" }),
    });
    const body = (await response.json()) as { info: { token_usage: number } };
    expect(response.status).toBe(200);
    const row = await usageRow(id);
    expect(row).toMatchObject({ route: "POST /v1/search", status: 200, tokens: body.info.token_usage });
    expect(row.createdAt.getTime()).toBe(clock.now());
  });

  test("the SSE stream", async () => {
    const id = nextId("sse");
    const response = await app.fetch("/v1/search", {
      method: "POST",
      headers: headers(id, { accept: "text/event-stream" }),
      body: JSON.stringify({ prompt: "river bridge cost" }),
    });
    expect(await response.text()).toContain("event: response");
    const row = await usageRow(id);
    expect(row).toMatchObject({ route: "POST /v1/search (stream)", status: 200 });
    expect(row.tokens).toBeGreaterThan(0);
    expect(row.createdAt.getTime()).toBe(clock.now());
  });

  test("the WebSocket, a run and a refused message", async () => {
    const ran = nextId("ws");
    const run = await openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, {
      headers: { "X-API-Key": apiKey, "x-request-id": ran },
      send: JSON.stringify({ prompt: "river bridge cost" }),
    });
    expect(run.closeReason).toBe("done");
    const refused = nextId("ws");
    const invalid = await openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, {
      headers: { "X-API-Key": apiKey, "x-request-id": refused },
      send: JSON.stringify({ prompt: 1 }),
    });
    expect(invalid.closeReason).toBe("validation_failed");
    const [ranRow, refusedRow] = [await usageRow(ran), await usageRow(refused)];
    expect(ranRow).toMatchObject({ route: "WS /v1/ws/search", status: 200 });
    expect(refusedRow).toMatchObject({ route: "WS /v1/ws/search", status: 422, tokens: 0 });
    expect(ranRow.createdAt.getTime()).toBe(clock.now());
    expect(refusedRow.createdAt.getTime()).toBe(clock.now());
  });

  test("a designed endpoint's call and a published endpoint's call", async () => {
    const record = (await owner.json("POST", "/v1/design-api", landmarkEndpoint)).response;
    const designed = nextId("designed");
    const first = await app.fetch(`/v1/user-defined-service/${record.stub}`, {
      method: "POST",
      headers: headers(designed),
      body: JSON.stringify({ landmark: "Eiffel Tower" }),
    });
    const firstBody = (await first.json()) as { info: { token_usage: number } };
    expect(first.status).toBe(200);
    const published = (await owner.json("POST", `/v1/design-api/${record.id}/publish`, { public_stub: "run-usage-landmarks" })) as {
      public_stub: string;
    };
    const publishedId = nextId("published");
    const second = await app.fetch(`/v1/published-service/${published.public_stub}`, {
      method: "POST",
      headers: headers(publishedId),
      body: JSON.stringify({ landmark: "Eiffel Tower" }),
    });
    expect(second.status).toBe(200);
    const [designedRow, publishedRow] = [await usageRow(designed), await usageRow(publishedId)];
    expect(designedRow).toMatchObject({
      route: "POST /v1/user-defined-service/:api_stub",
      status: 200,
      tokens: firstBody.info.token_usage,
      apiId: record.id,
    });
    expect(publishedRow).toMatchObject({ route: "POST /v1/published-service/:api_stub", status: 200 });
    expect(designedRow.createdAt.getTime()).toBe(clock.now());
    expect(publishedRow.createdAt.getTime()).toBe(clock.now());
  });
});

describe("a stream whose reader leaves mid-run", () => {
  test("SSE: the run stops, leaves the load gauge and is recorded once, as a caller that went away", async () => {
    // The providers answer after the deadline is far away and the reader has left.
    world.searxng.setLatency(15_000);
    world.brave.setLatency(15_000);
    try {
      const id = nextId("sse_gone");
      const reader = new AbortController();
      const reading = app
        .fetch("/v1/search", {
          method: "POST",
          headers: headers(id, { accept: "text/event-stream" }),
          body: JSON.stringify({ prompt: "river bridge cost" }),
          signal: reader.signal,
        })
        .catch(() => null);
      for (let i = 0; i < 100 && app.load.value === 0; i++) await Bun.sleep(20);
      expect(app.load.value).toBe(1);
      reader.abort();
      await reading;
      const row = await usageRow(id);
      expect(row).toMatchObject({ route: "POST /v1/search (stream)", status: 400, tokens: 0 });
      expect(row.createdAt.getTime()).toBe(clock.now());
      expect(app.load.value).toBe(0);
      expect(await usageRows(id)).toHaveLength(1);
    } finally {
      world.searxng.setLatency(0);
      world.brave.setLatency(0);
    }
  });
});
