/**
 * The shared stores: Redis over RESP (Bun's client) and Upstash's REST API
 * (through a loopback peer in front of the same Redis). Needs TEST_REDIS_URL;
 * without it these tests are skipped by name.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UpstashStore } from "../../src/limits/upstash-store.ts";
import { burst, countOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_REDIS_URL } from "../helpers/env.ts";
import { startUpstashPeer, type UpstashPeer } from "../helpers/peers/upstash.ts";
import { commandCalls, uniquePrefix } from "../helpers/redis.ts";

const redisUrl = TEST_REDIS_URL!;
let database: TestDatabase;

beforeAll(async () => {
  if (TEST_REDIS_URL) database = await freshDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe.skipIf(!TEST_REDIS_URL)("the Redis store", () => {
  let instances: TestApp[] = [];
  beforeAll(async () => {
    // Four app instances, each with its own Redis connection, sharing one database and one key prefix.
    const keyPrefix = uniquePrefix("four");
    instances = await Promise.all([0, 1, 2, 3].map(() => startTestApp(database, { store: "redis", keyPrefix })));
  });
  afterAll(async () => {
    await Promise.all(instances.map((app) => app.stop()));
  });

  test("4 instances, 200 concurrent calls for one free key: exactly 10 admitted", async () => {
    const { apiKey } = await instances[0]!.account({ name: "shared-free" });
    const statuses = await burst(200, 200, (i) => instances[i % 4]!.fetch("/v1/account", { headers: { "X-API-Key": apiKey } }));
    expect(countOf(statuses, 200)).toBe(10);
    expect(countOf(statuses, 429)).toBe(190);
  });

  test("4 instances, 200 concurrent calls for one pro key: exactly 100 admitted, plus what refilled meanwhile", async () => {
    const { apiKey } = await instances[0]!.account({ name: "shared-pro", credit: 10 });
    const started = performance.now();
    const statuses = await burst(200, 200, (i) => instances[i % 4]!.fetch("/v1/account", { headers: { "X-API-Key": apiKey } }));
    const seconds = (performance.now() - started) / 1000;
    expect(countOf(statuses, 200)).toBeGreaterThanOrEqual(100);
    expect(countOf(statuses, 200)).toBeLessThanOrEqual(100 + Math.floor(seconds * (100 / 60)));
  });

  test("each check is exactly one Redis round trip (one EVALSHA, nothing else)", async () => {
    const { apiKey } = await instances[1]!.account({ name: "round-trips", credit: 10 });
    const before = { evalsha: await commandCalls("evalsha"), eval: await commandCalls("eval"), hmget: await commandCalls("hmget") };
    await burst(50, 10, () => instances[1]!.fetch("/v1/account", { headers: { "X-API-Key": apiKey } }));
    expect((await commandCalls("evalsha")) - before.evalsha).toBe(50);
    expect((await commandCalls("eval")) - before.eval).toBe(0);
  });
});

describe.skipIf(!TEST_REDIS_URL)("the Upstash store, through a loopback peer speaking Upstash REST", () => {
  let peer: UpstashPeer;
  let app: TestApp;
  beforeAll(async () => {
    peer = startUpstashPeer(redisUrl);
    app = await startTestApp(database, { store: () => new UpstashStore(peer.url, peer.token, 500) });
  });
  afterAll(async () => {
    await app.stop();
    await peer.stop();
  });

  test("admits exactly the free limit, one EVALSHA request per check", async () => {
    const { apiKey } = await app.account({ name: "upstash-free" });
    peer.commands.length = 0;
    const statuses = await burst(25, 25, () => app.fetch("/v1/account", { headers: { "X-API-Key": apiKey } }));
    expect(countOf(statuses, 200)).toBe(10);
    expect(countOf(statuses, 429)).toBe(15);
    expect(peer.commands.filter((c) => c === "EVALSHA").length).toBe(25);
    expect(peer.commands.filter((c) => c !== "EVALSHA")).toEqual([]);
    expect(app.limiter.status().healthy).toBe(true);
  });

  test("a slow Upstash falls back within the limiter's timeout instead of hanging", async () => {
    const { apiKey } = await app.account({ name: "upstash-slow" });
    peer.delayMs = 2_000;
    try {
      const started = performance.now();
      const response = await app.fetch("/v1/account", { headers: { "X-API-Key": apiKey } });
      expect(response.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(app.limiter.status().healthy).toBe(false);
    } finally {
      peer.delayMs = 0;
    }
  });
});
