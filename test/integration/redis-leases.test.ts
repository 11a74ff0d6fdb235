/**
 * Leases on real Redis: several limiter instances (each its own RateLimiter
 * and connection, as separate processes would have) share one bucket per key.
 * Enterprise buckets are spent through leases, Free and Pro one EVALSHA per
 * check. A private redis-server, so INFO commandstats counts this file's
 * commands only (the shared one serves other test runs at the same time).
 * Needs TEST_REDIS_URL (the real-services pass) and redis-server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { ManualClock, systemClock, type Clock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import { LEASE_LIFETIME_MS } from "../../src/limits/lease.ts";
import { RateLimiter } from "../../src/limits/limiter.ts";
import { MemoryStore } from "../../src/limits/memory-store.ts";
import { InFlightGauge } from "../../src/limits/peak-load.ts";
import { planFor, type Plan } from "../../src/limits/plans.ts";
import { RedisStore } from "../../src/limits/redis-store.ts";
import type { BucketStore } from "../../src/limits/store.ts";
import { UpstashStore } from "../../src/limits/upstash-store.ts";
import { TEST_REDIS_URL } from "../helpers/env.ts";
import { startUpstashPeer, type UpstashPeer } from "../helpers/peers/upstash.ts";
import { privateRedis, redisServerBinary, type PrivateRedis } from "../helpers/redis-server.ts";
import { commandCalls, uniquePrefix } from "../helpers/redis.ts";

const runnable = Boolean(TEST_REDIS_URL && redisServerBinary);
const free = planFor({ balanceMicros: 0, customRateLimit: null });
const pro = planFor({ balanceMicros: 1, customRateLimit: null });
const enterprise = planFor({ balanceMicros: 0, customRateLimit: 5_000 });

let redis: PrivateRedis;
let client: RedisClient;
const limiters: RateLimiter[] = [];

beforeAll(async () => {
  if (!runnable) return;
  redis = await privateRedis();
  client = new RedisClient(redis.url);
});
afterAll(async () => {
  await Promise.all(limiters.map((l) => l.close()));
  client?.close();
  await redis?.kill();
});

// Fail closed: a store error would throw here instead of passing quietly through the per-process fallback.
async function limiterOn(store: BucketStore, keyPrefix: string, clock: Clock = systemClock): Promise<RateLimiter> {
  await store.init?.();
  const limiter = new RateLimiter(
    store,
    new MemoryStore(clock),
    { failMode: "closed", timeoutMs: 2_000, keyPrefix, peakInflightThreshold: 1e9, peakFreeRefillFactor: 1 },
    { clock, log: createLogger({ level: "silent" }), load: new InFlightGauge() },
  );
  limiters.push(limiter);
  return limiter;
}

function fourInstances(keyPrefix: string): Promise<RateLimiter[]> {
  return Promise.all([0, 1, 2, 3].map(() => limiterOn(new RedisStore(redis.url), keyPrefix)));
}

/** `checks` checks, `concurrency` at a time on each instance, spread evenly: how many were admitted. */
async function fire(instances: RateLimiter[], keyId: string, plan: Plan, checks: number, concurrency: number): Promise<number> {
  let admitted = 0;
  await Promise.all(
    instances.map(async (limiter) => {
      let next = 0;
      const mine = checks / instances.length;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next++ < mine) if ((await limiter.check(keyId, plan)).allowed) admitted++;
        }),
      );
    }),
  );
  return admitted;
}

async function redisMillis(): Promise<number> {
  const [seconds, micros] = (await client.send("TIME", [])) as [string, string];
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

const evalshas = () => commandCalls("evalsha", redis.url);

describe.skipIf(!runnable)("Enterprise buckets through leases, 4 instances on one Redis", () => {
  test("10,000 checks on a 5,000/min key: 5,000 admitted plus at most what refilled meanwhile, never more", async () => {
    const instances = await fourInstances(uniquePrefix("lease-admit"));
    const before = await evalshas();
    const startedAt = await redisMillis();
    const admitted = await fire(instances, "key_ent", enterprise, 10_000, 32);
    const seconds = ((await redisMillis()) - startedAt) / 1000;
    const roundTrips = (await evalshas()) - before;
    expect(admitted).toBeGreaterThanOrEqual(5_000);
    expect(admitted).toBeLessThanOrEqual(5_000 + Math.floor(seconds * (5_000 / 60)));
    expect(roundTrips / admitted).toBeLessThanOrEqual(0.1);
  });

  test("checks on one instance while a lease request is in flight share it: 32 at once cost 2 round trips", async () => {
    const [limiter] = await fourInstances(uniquePrefix("lease-flight"));
    const before = await evalshas();
    const decisions = await Promise.all(Array.from({ length: 32 }, () => limiter!.check("key_flight", enterprise)));
    expect(decisions.every((d) => d.allowed && !d.degraded)).toBe(true);
    // The first asks for one token; the 31 that found it taken ask once, together.
    expect((await evalshas()) - before).toBe(2);
    expect(Math.min(...decisions.map((d) => d.remaining))).toBe(5_000 - 32);
  });

  test("an expired lease's tokens are not spent: past its lifetime the next check asks Redis, which has none", async () => {
    const keyPrefix = uniquePrefix("lease-expiry");
    const clock = new ManualClock(Date.now());
    const holder = await limiterOn(new RedisStore(redis.url), keyPrefix, clock);
    for (let i = 0; i < 1 + 2 + 4 + 1; i++) expect((await holder.check("key_exp", enterprise)).allowed).toBe(true); // holds 7 of an 8-token lease
    // Another instance has emptied the bucket: zero tokens, stamped a minute ahead so Redis refills none during the test.
    const bucketKey = `${keyPrefix}rl:key_exp:${enterprise.perMinute}`;
    await client.send("HSET", [bucketKey, "tokens", "0", "ts", String(Math.floor(await redisMillis()) + 60_000)]);
    const before = await evalshas();
    expect((await holder.check("key_exp", enterprise)).allowed).toBe(true); // spent from the live lease
    expect((await evalshas()) - before).toBe(0);
    clock.advance(LEASE_LIFETIME_MS);
    const late = await holder.check("key_exp", enterprise);
    expect(late).toMatchObject({ allowed: false, remaining: 0, degraded: false });
    expect(late.retryAfterMs).toBeGreaterThan(0);
    expect((await evalshas()) - before).toBe(1);
  });
});

describe.skipIf(!runnable)("Free and Pro keep one round trip per check, 4 instances on one Redis", () => {
  test("40 checks on a free key: exactly 10 admitted, exactly 40 EVALSHA", async () => {
    const instances = await fourInstances(uniquePrefix("lease-free"));
    const before = await evalshas();
    expect(await fire(instances, "key_free", free, 40, 10)).toBe(10);
    expect((await evalshas()) - before).toBe(40);
  });

  test("200 checks on a pro key: 100 admitted plus what refilled, exactly 200 EVALSHA", async () => {
    const instances = await fourInstances(uniquePrefix("lease-pro"));
    const before = await evalshas();
    const startedAt = await redisMillis();
    const admitted = await fire(instances, "key_pro", pro, 200, 10);
    const seconds = ((await redisMillis()) - startedAt) / 1000;
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(100 + Math.floor(seconds * (100 / 60)));
    expect((await evalshas()) - before).toBe(200);
  });
});

describe.skipIf(!runnable)("leases through Upstash's REST API (a loopback peer in front of the same Redis)", () => {
  let peer: UpstashPeer;
  beforeAll(() => {
    peer = startUpstashPeer(redis.url);
  });
  afterAll(async () => {
    await peer?.stop();
  });

  test("2,000 checks on a 5,000/min key from 2 instances: all admitted, at most 0.1 requests each", async () => {
    const keyPrefix = uniquePrefix("lease-upstash");
    const instances = await Promise.all([0, 1].map(() => limiterOn(new UpstashStore(peer.url, peer.token, 2_000), keyPrefix)));
    peer.commands.length = 0;
    expect(await fire(instances, "key_up", enterprise, 2_000, 16)).toBe(2_000);
    expect(peer.commands.filter((c) => c !== "EVALSHA")).toEqual([]);
    expect(peer.commands.length).toBeGreaterThan(0);
    expect(peer.commands.length / 2_000).toBeLessThanOrEqual(0.1);
  });
});
