/**
 * The run queue refusing early, through the real app on loopback: one run
 * at a time (RUN_CONCURRENCY=1), room to wait for twenty (RUN_QUEUE_MAX=20),
 * and a 10 s deadline (SEARCH_DEADLINE_MS). The providers answer questions
 * about the bridge slowly (1.5 s), so a bridge search holds the slot and
 * teaches the queue that runs take that long; the waiters ask about the
 * Eiffel Tower, which is answered at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";
import { openSocket } from "../helpers/websocket.ts";

const SLOW_MS = 1_500;
const DEADLINE_MS = 10_000;

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let holder: string;
let waiter: string;

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, {
    env: world.env({ RUN_CONCURRENCY: "1", RUN_QUEUE_MAX: "20", SEARCH_DEADLINE_MS: String(DEADLINE_MS), SEARCH_HEDGING: "false" }),
    resolver: world.resolver,
  });
  holder = (await app.account({ name: "holder", limit: 100_000 })).apiKey;
  waiter = (await app.account({ name: "waiter", limit: 100_000 })).apiKey;
  const slowBridge = (request: { params: { q?: string | null } }) => (/bridge/i.test(request.params.q ?? "") ? SLOW_MS : 0);
  world.searxng.setLatency(slowBridge);
  world.brave.setLatency(slowBridge);
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

async function runs(): Promise<{ running: number; queued: number }> {
  return (await jsonOf(app.fetch("/readyz"))).runs;
}

const search = (key: string, prompt: string) =>
  app.fetch("/v1/search", {
    method: "POST",
    headers: { "X-API-Key": key, "content-type": "application/json" },
    body: JSON.stringify({ prompt }),
  });

/** A JSON search's status, Retry-After, body, how long it took from asking to the answer, and when it ended. */
async function timed(key: string, prompt: string) {
  const started = performance.now();
  const response = await search(key, prompt);
  const body = await response.json();
  const at = performance.now();
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body, ms: at - started, at };
}

const EARLY =
  /^this instance is at capacity \(a research run would wait about \d+ seconds? for a slot and not finish within its deadline\), try again in \d+ seconds?$/;

describe("a queue that refuses early", () => {
  test("with runs taking 1.5 s and more, waiters past what a 10 s deadline allows are refused at once with 503 queue_full and Retry-After; those it admits complete", async () => {
    // A run must have ended before the queue estimates anything: this one teaches it that runs take 1.5 s (up to
    // 3 s, the first run of a process being slower).
    expect((await search(holder, "How much will the river bridge cost?")).status).toBe(200);
    const held = timed(holder, "When does construction of the river bridge begin?");
    await waitFor(async () => (await runs()).running === 1, "the bridge search to hold the slot");
    // Eight at once, one account: the k-th in line would wait k runs and then run one, so between one (runs of 5 s)
    // and five (1.5 s) fit in 10 s. They are answered at once when their turn comes: none is near its deadline.
    let answered = 0;
    const asked = Array.from({ length: 8 }, () => timed(waiter, "When was the Eiffel Tower completed?").finally(() => answered++));
    await waitFor(async () => answered >= 3 && (await runs()).queued >= 1, "the refusals, while the admitted wait");
    // The streaming faces send the same refusal: the WebSocket, behind the same waiters, its one error message and close reason.
    const socket = await openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, {
      headers: { "X-API-Key": waiter },
      send: JSON.stringify({ prompt: "When was the Eiffel Tower completed?" }),
    });
    expect(socket.messages).toHaveLength(1);
    expect(socket.messages[0]!.type).toBe("error");
    expect(String(socket.messages[0]!.content)).toMatch(/ \(queue_full\)$/);
    expect(socket.closeReason).toBe("queue_full");
    const calls = await Promise.all(asked);
    const refused = calls.filter((c) => c.status === 503);
    const admitted = calls.filter((c) => c.status !== 503);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    const slotFreed = (await held).at;
    for (const call of refused) {
      expect(call.body.error).toBe("queue_full");
      expect(call.body.detail).toMatch(EARLY);
      expect(call.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(Number(call.retryAfter)).toBeLessThanOrEqual(60);
      // At once: while the slot was still held (it is held 1.5 s), not when the deadline came.
      expect(call.at).toBeLessThan(slotFreed);
      expect(call.ms).toBeLessThan(1_000);
    }
    // Every call admitted to wait completes, in time: none waits for a 504.
    for (const call of admitted) {
      expect(call.status).toBe(200);
      expect(call.body.response).toContain("1889");
    }
    expect((await held).status).toBe(200);
    expect(app.logs.some((l) => l.includes('"msg":"research runs would wait past their deadline; refusing them"'))).toBe(true);
  });
});
