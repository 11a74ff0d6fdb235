import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock.ts";
import { takeTokens, type BucketPolicy, type BucketState, type Grant } from "./bucket.ts";
import { LEASE_LIFETIME_MS, leased, Leases } from "./lease.ts";

const enterprise: BucketPolicy = { capacity: 5_000, refillPerSecond: 5_000 / 60 };

/**
 * The shared bucket as the Redis script keeps it (bucket.ts is the same arithmetic), on a clock of its own,
 * with every request recorded: several Leases over one of these are several instances over one Redis.
 */
function sharedBucket(clock = new ManualClock()) {
  let state: BucketState | undefined;
  const requests: number[] = [];
  return {
    clock,
    requests,
    granted: 0,
    request(_key: string, policy: BucketPolicy, want: number): Promise<Grant> {
      requests.push(want);
      const step = takeTokens(state, clock.now(), policy, want);
      state = step.state;
      this.granted += step.grant.granted;
      return Promise.resolve(step.grant);
    },
  };
}

/** An instance; its clock is the bucket's unless it is given one of its own. */
function instance(bucket: ReturnType<typeof sharedBucket>, clock = bucket.clock) {
  return new Leases((key, policy, want) => bucket.request(key, policy, want), clock);
}

async function admittedOf(leases: Leases, checks: number, policy = enterprise): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < checks; i++) if ((await leases.take("k", policy)).allowed) admitted++;
  return admitted;
}

describe("the hot path", () => {
  test("a check the lease can answer is answered at once, without a promise; one that must ask the store waits", async () => {
    const bucket = sharedBucket();
    const leases = instance(bucket);
    const kinds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const decision = leases.take("k", enterprise);
      kinds.push(decision instanceof Promise ? "asked" : "at once");
      expect((await decision).allowed).toBe(true);
    }
    // Leases double as they run dry (1, 2, 4 tokens): only the checks that found the lease empty asked the store.
    expect(kinds).toEqual(["asked", "asked", "at once", "asked", "at once", "at once", "at once", "asked"]);
    expect(bucket.requests).toEqual([1, 2, 4, 8]);
  });
});

describe("which buckets are leased", () => {
  test("from the Enterprise minimum (5,000 a minute) up; Free, Pro and the dashboard allowance are not", () => {
    expect(leased({ capacity: 5_000, refillPerSecond: 5_000 / 60 })).toBe(true);
    expect(leased({ capacity: 4_999, refillPerSecond: 4_999 / 60 })).toBe(false);
    expect(leased({ capacity: 100, refillPerSecond: 100 / 60 })).toBe(false);
    expect(leased({ capacity: 10, refillPerSecond: 10 / 60 })).toBe(false);
  });
});

describe("a lease is spent locally", () => {
  test("the first check takes one token; remaining is what the shared bucket holds", async () => {
    const bucket = sharedBucket();
    const first = await instance(bucket).take("k", enterprise);
    expect(first).toEqual({ allowed: true, limit: 5_000, remaining: 4_999, retryAfterMs: 0, resetMs: 12 });
    expect(bucket.requests).toEqual([1]);
  });

  test("leases double while they run dry, up to 1% of the bucket: 5,000 checks cost at most 0.03 requests each", async () => {
    const bucket = sharedBucket();
    const leases = instance(bucket);
    expect(await admittedOf(leases, 5_000)).toBe(5_000);
    expect(bucket.requests.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 50, 50]);
    expect(Math.max(...bucket.requests)).toBe(50);
    expect(bucket.requests.length).toBeLessThanOrEqual(0.03 * 5_000);
  });

  test("remaining counts down through a lease and never exceeds what the bucket had", async () => {
    const bucket = sharedBucket();
    const leases = instance(bucket);
    const seen: number[] = [];
    for (let i = 0; i < 200; i++) seen.push((await leases.take("k", enterprise)).remaining);
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => 4_999 - i));
  });

  test("a lease shrinks to what was used once demand falls", async () => {
    const bucket = sharedBucket();
    const leases = instance(bucket);
    await admittedOf(leases, 1 + 2 + 4 + 8 + 3); // the fifth lease (16 tokens) has 3 spent
    expect(bucket.requests).toEqual([1, 2, 4, 8, 16]);
    bucket.clock.advance(LEASE_LIFETIME_MS);
    await admittedOf(leases, 1);
    expect(bucket.requests.at(-1)).toBe(3);
  });
});

describe("memory stays bounded by active keys", () => {
  test("a key idle for a minute past its lease is forgotten: its next lease starts again at one token", async () => {
    const bucket = sharedBucket();
    const leases = instance(bucket);
    await admittedOf(leases, 1 + 2 + 4 + 8);
    expect(bucket.requests).toEqual([1, 2, 4, 8]);
    bucket.clock.advance(LEASE_LIFETIME_MS + 60_000);
    for (let i = 0; i < 1_024; i++) await leases.take(`other-${i % 8}`, enterprise); // the sweep runs every 1,024 takes
    bucket.requests.length = 0;
    await admittedOf(leases, 1);
    expect(bucket.requests).toEqual([1]);
  });
});

describe("leases never admit more than the shared bucket holds", () => {
  test("four instances at one frozen instant admit exactly its capacity", async () => {
    const bucket = sharedBucket();
    const instances = [0, 1, 2, 3].map(() => instance(bucket));
    let admitted = 0;
    for (let i = 0; i < 8_000; i++) if ((await instances[i % 4]!.take("k", enterprise)).allowed) admitted++;
    expect(admitted).toBe(5_000);
    expect(bucket.granted).toBe(5_000);
  });

  test("an expired lease's tokens are not spent: the next check asks the bucket, which has nothing", async () => {
    const bucket = sharedBucket();
    // Only the holder's clock moves, so the shared bucket refills nothing while the holder's lease expires.
    const holderClock = new ManualClock(bucket.clock.now());
    const holder = instance(bucket, holderClock);
    await admittedOf(holder, 1 + 2 + 4 + 1); // holds 7 of an 8-token lease
    const drainer = instance(bucket);
    while ((await drainer.take("k", enterprise)).allowed);
    expect((await holder.take("k", enterprise)).allowed).toBe(true); // still live: spent here, no request
    const requests = bucket.requests.length;
    holderClock.advance(LEASE_LIFETIME_MS);
    expect((await holder.take("k", enterprise)).allowed).toBe(false); // six tokens left, dropped
    expect(bucket.requests.length).toBe(requests + 1);
    expect(bucket.granted).toBe(5_000);
  });
});

describe("concurrent checks share one round trip", () => {
  test("checks arriving while a lease request is in flight wait for it, then ask once for all of them", async () => {
    const bucket = sharedBucket();
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const leases = new Leases(async (key, policy, want) => {
      await gate;
      return bucket.request(key, policy, want);
    }, bucket.clock);
    const checks = Array.from({ length: 20 }, () => leases.take("k", enterprise));
    await Bun.sleep(0);
    expect(bucket.requests).toEqual([]); // the first request is held at the gate; nobody else has asked
    release();
    const decisions = await Promise.all(checks);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    // The first asked for one token; the 19 that found it taken asked together, sized by their number.
    expect(bucket.requests).toEqual([1, 19]);
  });

  test("a failed request fails every check that waited for it, and the next check asks again", async () => {
    const bucket = sharedBucket();
    let fail = true;
    let calls = 0;
    const leases = new Leases(async (key, policy, want) => {
      calls++;
      if (fail) throw new Error("store unreachable");
      return bucket.request(key, policy, want);
    }, bucket.clock);
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => leases.take("k", enterprise)));
    expect(outcomes.map((o) => o.status)).toEqual(Array(5).fill("rejected"));
    expect(calls).toBe(1);
    fail = false;
    expect((await leases.take("k", enterprise)).allowed).toBe(true);
    expect(calls).toBe(2);
  });
});

describe("an empty bucket", () => {
  test("refuses with Retry-After until a lease's worth has refilled, without asking again meanwhile", async () => {
    const bucket = sharedBucket();
    const leases = instance(bucket);
    expect(await admittedOf(leases, 5_001)).toBe(5_000);
    const requests = bucket.requests.length;
    // 5,000 a minute is one token every 12 ms; the lease asked for was 50 tokens: 12 + 49 x 12 ms.
    const refused = await leases.take("k", enterprise);
    expect(refused).toEqual({ allowed: false, limit: 5_000, remaining: 0, retryAfterMs: 600, resetMs: 60_000 });
    bucket.clock.advance(599);
    expect(await leases.take("k", enterprise)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    expect(bucket.requests.length).toBe(requests);
    bucket.clock.advance(1);
    expect(await admittedOf(leases, 50)).toBe(50);
    expect(bucket.requests.length).toBe(requests + 1);
    expect(bucket.granted).toBe(5_050);
  });
});
