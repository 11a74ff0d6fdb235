import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock.ts";
import { ServiceError } from "../errors.ts";
import { createLogger } from "../log.ts";
import type { BucketPolicy, Decision, Grant } from "./bucket.ts";
import { RateLimiter, type LimiterSettings } from "./limiter.ts";
import { MemoryStore } from "./memory-store.ts";
import { InFlightGauge } from "./peak-load.ts";
import { planFor, type Plan } from "./plans.ts";
import type { BucketStore } from "./store.ts";

const settings: LimiterSettings = {
  failMode: "open",
  timeoutMs: 50,
  keyPrefix: "t:",
  peakInflightThreshold: 3,
  peakFreeRefillFactor: 0.25,
};
const free = planFor({ balanceMicros: 0, customRateLimit: null });
const pro = planFor({ balanceMicros: 1, customRateLimit: null });
const enterprise = planFor({ balanceMicros: 0, customRateLimit: 5_000 });

function memoryLimiter(load = new InFlightGauge()) {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  return { clock, load, limiter: new RateLimiter(store, store, settings, { clock, log: createLogger({ level: "silent" }), load }) };
}

async function drain(limiter: RateLimiter, key: string, plan: Plan) {
  while ((await limiter.check(key, plan)).allowed);
}

describe("the hot path", () => {
  test("the in-memory store decides at once, without a promise", () => {
    const { limiter } = memoryLimiter();
    const outcome = limiter.check("k", free);
    expect(outcome).not.toBeInstanceOf(Promise);
    expect((outcome as Awaited<typeof outcome>).allowed).toBe(true);
  });
});

describe("plans", () => {
  test("a custom limit is Enterprise, a positive balance Pro, anything else Free", () => {
    expect(planFor({ balanceMicros: 0, customRateLimit: null })).toEqual({ name: "free", label: "Free (Starter)", perMinute: 10 });
    expect(planFor({ balanceMicros: 1, customRateLimit: null })).toEqual({ name: "pro", label: "Pro", perMinute: 100 });
    expect(planFor({ balanceMicros: 0, customRateLimit: 7_500 })).toEqual({ name: "enterprise", label: "Enterprise", perMinute: 7_500 });
  });
});

describe("free-tier throttling at peak load (spec 8.3)", () => {
  test("over the in-flight threshold, free buckets refill at the reduced rate", async () => {
    const { clock, load, limiter } = memoryLimiter();
    await drain(limiter, "k1", free);
    const leave = [load.enter(), load.enter(), load.enter()];
    clock.advance(6_000);
    expect((await limiter.check("k1", free)).allowed).toBe(false);
    clock.advance(18_000); // 24 s at a quarter of the rate: one token
    expect((await limiter.check("k1", free)).allowed).toBe(true);
    for (const l of leave) l();
    clock.advance(6_000);
    expect((await limiter.check("k1", free)).allowed).toBe(true);
  });

  test("paid buckets are never slowed", async () => {
    const { clock, load, limiter } = memoryLimiter();
    await drain(limiter, "k2", pro);
    for (let i = 0; i < 10; i++) load.enter();
    clock.advance(600); // 100/min: one token every 0.6 s
    expect((await limiter.check("k2", pro)).allowed).toBe(true);
  });
});

class HangingStore implements BucketStore {
  readonly name = "redis" as const;
  calls = 0;
  leases = 0;
  async take(_key: string, _policy: BucketPolicy): Promise<Decision> {
    this.calls++;
    return new Promise(() => {});
  }
  async lease(_key: string, _policy: BucketPolicy, _want: number): Promise<Grant> {
    this.leases++;
    return new Promise(() => {});
  }
  async close() {}
}

describe("a store that does not answer", () => {
  test("fail open: decided by the per-process bucket within the timeout, then the breaker skips the store", async () => {
    const clock = new ManualClock();
    const store = new HangingStore();
    const lines: string[] = [];
    const limiter = new RateLimiter(store, new MemoryStore(clock), settings, {
      clock,
      log: createLogger({ level: "info", sink: (l) => lines.push(l) }),
      load: new InFlightGauge(),
    });
    const started = performance.now();
    const first = await limiter.check("k", free);
    expect(performance.now() - started).toBeLessThan(500);
    expect(first).toMatchObject({ allowed: true, degraded: true });
    for (let i = 0; i < 5; i++) await limiter.check("k", free);
    expect(store.calls).toBe(1);
    expect(lines.filter((l) => l.includes("unreachable")).length).toBe(1);
    clock.advance(1_000);
    await limiter.check("k", free);
    expect(store.calls).toBe(2);
    expect(limiter.status().healthy).toBe(false);
  });

  test("fail closed: 503 rate_limiter_unavailable", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(
      new HangingStore(),
      new MemoryStore(clock),
      { ...settings, failMode: "closed" },
      { clock, log: createLogger({ level: "silent" }), load: new InFlightGauge() },
    );
    const error = await Promise.resolve(limiter.check("k", free)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe("rate_limiter_unavailable");
  });

  test("an Enterprise lease request that hangs: the checks waiting for it fail open within the timeout, then the breaker skips the store", async () => {
    const clock = new ManualClock();
    const store = new HangingStore();
    const limiter = new RateLimiter(store, new MemoryStore(clock), settings, {
      clock,
      log: createLogger({ level: "silent" }),
      load: new InFlightGauge(),
    });
    const started = performance.now();
    const first = await Promise.all(Array.from({ length: 8 }, () => limiter.check("k", enterprise)));
    expect(performance.now() - started).toBeLessThan(500);
    expect(first.every((o) => o.allowed && o.degraded)).toBe(true);
    expect(store.leases).toBe(1);
    await limiter.check("k", enterprise);
    expect(store.leases).toBe(1);
    expect(store.calls).toBe(0);
    clock.advance(1_000);
    await limiter.check("k", enterprise);
    expect(store.calls).toBe(1); // the probe, on its own bucket
  });
});
