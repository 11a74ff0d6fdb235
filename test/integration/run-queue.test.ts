/**
 * The run queue through the real app on loopback, one run at a time
 * (RUN_CONCURRENCY=1) with room for one waiting (RUN_QUEUE_MAX=1): a run
 * that finds the slot taken waits and then completes, on every face;
 * /readyz reports the depth; a full queue refuses; a caller that goes away
 * while waiting leaves the queue. The providers of the search world answer
 * questions about the bridge slowly (1.5 s), so a bridge search holds the slot.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";
import { openSocket } from "../helpers/websocket.ts";

const SLOW_MS = 1_500;

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let holder: string;
let waiter: string;
let wsUrl: string;

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, {
    env: world.env({ RUN_CONCURRENCY: "1", RUN_QUEUE_MAX: "1", SEARCH_HEDGING: "false" }),
    resolver: world.resolver,
  });
  holder = (await app.account({ name: "holder", limit: 100_000 })).apiKey;
  waiter = (await app.account({ name: "waiter", limit: 100_000 })).apiKey;
  wsUrl = `${app.url.replace("http", "ws")}/v1/ws/search`;
  const slowBridge = (request: { params: { q?: string | null } }) => (/bridge/i.test(request.params.q ?? "") ? SLOW_MS : 0);
  world.searxng.setLatency(slowBridge);
  world.brave.setLatency(slowBridge);
});
afterEach(async () => {
  // Every test leaves the instance idle.
  await waitFor(async () => (await runs()).running === 0, "the runs to end");
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

async function runs(): Promise<{ running: number; queued: number; capacity: number; queue_max: number }> {
  return (await jsonOf(app.fetch("/readyz"))).runs;
}

const search = (key: string, prompt: string, init: RequestInit = {}) =>
  app.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": key, "content-type": "application/json", ...(init.headers as Record<string, string>) },
    body: JSON.stringify({ prompt }),
    ...(init.signal ? { signal: init.signal } : {}),
  });

/** Starts a bridge search, which holds the one slot for 1.5 s, and waits until it has it; `answered` is its response. */
async function holdTheSlot(): Promise<{ answered: Promise<Response> }> {
  const answered = search(holder, "How much will the river bridge cost?");
  await waitFor(async () => (await runs()).running === 1, "the first run to start");
  // Wrapped: an async function returning the promise itself would wait for it.
  return { answered };
}

describe("one run at a time", () => {
  test("a WebSocket search waits while the slot is taken, /readyz says so, then it completes", async () => {
    const first = (await holdTheSlot()).answered;
    const second = openSocket(wsUrl, {
      headers: { "X-API-Key": waiter },
      send: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    });
    const depth = await waitFor(async () => {
      const now = await runs();
      return now.queued === 1 && now;
    }, "the socket's run to queue");
    expect(depth).toEqual({ running: 1, queued: 1, capacity: 1, queue_max: 1 });
    expect((await first).status).toBe(200);
    const run = await second;
    expect(run.messages[0]!.type).toBe("context");
    expect(
      run.messages
        .filter((m) => m.type === "response")
        .map((m) => m.content)
        .join(""),
    ).toContain("1889");
    expect(run.closeReason).toBe("done");
    expect(await runs()).toEqual({ running: 0, queued: 0, capacity: 1, queue_max: 1 });
  });

  test("an SSE search waits for the slot, then streams its run", async () => {
    const first = (await holdTheSlot()).answered;
    const second = search(waiter, "When was the Eiffel Tower completed?", { headers: { accept: "text/event-stream" } });
    await waitFor(async () => (await runs()).queued === 1, "the stream's run to queue");
    expect((await first).status).toBe(200);
    const response = await second;
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.indexOf("event: context")).toBeGreaterThanOrEqual(0);
    expect(text.indexOf("event: context")).toBeLessThan(text.indexOf("event: response"));
    expect(text).toContain("1889");
  });

  test("a JSON search that waited answers 200; its request line says how long it waited; one more is refused with 503 queue_full", async () => {
    const first = (await holdTheSlot()).answered;
    const second = search(waiter, "When was the Eiffel Tower completed?");
    await waitFor(async () => (await runs()).queued === 1, "the second run to queue");
    const refused = await search(waiter, "When was the Eiffel Tower completed?");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toEqual({
      detail: "this instance is at capacity (1 research runs waiting), try again in 5 seconds",
      error: "queue_full",
    });
    expect((await first).status).toBe(200);
    const answered = await second;
    expect(answered.status).toBe(200);
    expect((await answered.json()).response).toContain("1889");
    const id = answered.headers.get("x-request-id")!;
    const line = await waitFor(
      () => app.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "request" && l.request_id === id),
      "the second call's request line",
    );
    expect(line.queued_ms).toBeGreaterThan(SLOW_MS / 4);
    expect(line.queued_ahead).toBe(0);
    expect(app.logs.some((l) => l.includes('"msg":"runs are queueing"'))).toBe(true);
    expect(app.logs.some((l) => l.includes('"msg":"run queue full; refusing runs"'))).toBe(true);
  });

  test("a full queue refuses a WebSocket search with one error message and the close reason queue_full", async () => {
    const first = (await holdTheSlot()).answered;
    const second = search(waiter, "When was the Eiffel Tower completed?");
    await waitFor(async () => (await runs()).queued === 1, "the second run to queue");
    const run = await openSocket(wsUrl, {
      headers: { "X-API-Key": waiter },
      send: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    });
    expect(run.messages).toEqual([
      { type: "error", content: "this instance is at capacity (1 research runs waiting), try again in 5 seconds (queue_full)" },
    ]);
    expect(run.closeReason).toBe("queue_full");
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
  });

  test("a caller that goes away while waiting leaves the queue at once, before the slot frees", async () => {
    const first = (await holdTheSlot()).answered;
    const socket = new WebSocket(wsUrl, { headers: { "X-API-Key": waiter } } as unknown as string[]);
    socket.onopen = () => socket.send(JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }));
    await waitFor(async () => (await runs()).queued === 1, "the socket's run to queue");
    socket.close();
    await waitFor(async () => (await runs()).queued === 0, "the closed socket's run to leave");
    const gone = new AbortController();
    const request = search(waiter, "When was the Eiffel Tower completed?", { signal: gone.signal }).catch(() => null);
    await waitFor(async () => (await runs()).queued === 1, "the request's run to queue");
    gone.abort();
    await request;
    const after = await waitFor(async () => {
      const now = await runs();
      return now.queued === 0 && now;
    }, "the aborted request's run to leave");
    // The first run still holds the slot: the waiters left on their own, not because it freed.
    expect(after.running).toBe(1);
    expect((await first).status).toBe(200);
  });
});
