/**
 * The windows' rules on each store: this process's memory, and (with
 * TEST_REDIS_URL) the Lua script in a real Redis, over RESP and through
 * Upstash's REST protocol, so they are all held to the same answers.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { TEST_REDIS_URL } from "../../test/helpers/env.ts";
import { startUpstashPeer, type UpstashPeer } from "../../test/helpers/peers/upstash.ts";
import { clearPrefix, uniquePrefix } from "../../test/helpers/redis.ts";
import { MemoryWindows } from "./memory-windows.ts";
import { RedisWindows, UpstashWindows } from "./redis-windows.ts";
import type { WindowStore } from "./window-store.ts";
import { sightingsOf, windowSettings, type Breach } from "./windows.ts";

const settings = windowSettings([60, 600], 10, 3);
const T0 = Date.UTC(2030, 0, 1);
const prefixes: string[] = [];

let upstash: UpstashPeer | undefined;

afterAll(async () => {
  for (const prefix of prefixes) await clearPrefix(prefix);
  await upstash?.stop();
});

const stores: [string, () => WindowStore][] = [["memory", () => new MemoryWindows(settings)]];
if (TEST_REDIS_URL) {
  stores.push(["redis", () => new RedisWindows(TEST_REDIS_URL!, settings)]);
  // Upstash's REST protocol, through a loopback peer in front of the same Redis.
  stores.push([
    "upstash",
    () => {
      upstash ??= startUpstashPeer(TEST_REDIS_URL!);
      return new UpstashWindows(upstash.url, upstash.token, 2_000, settings);
    },
  ]);
}

/** One counted call, as the detector sights it: under its address and its work (either may be unknown). */
const sightings = (prefix: string, call: { account: string; address?: string; work?: string }, n: number) =>
  sightingsOf(prefix, { account: call.account, address: call.address ?? "", work: call.work ?? "" }, String(n));

describe.each(stores)("the windows in %s", (_name, make) => {
  const world = () => {
    const prefix = uniquePrefix("abuse-windows");
    prefixes.push(prefix);
    const store = make();
    let n = 0;
    const breaches: Breach[] = [];
    return {
      prefix,
      store,
      async call(call: { account: string; address?: string; work?: string }, at: number) {
        const found = await store.record(sightings(prefix, call, ++n), at);
        breaches.push(...found);
        return found;
      },
      breaches,
    };
  };

  test("work: the 11th call within a minute from 3 accounts breaches the 60 s window, once per window period", async () => {
    const w = world();
    for (let i = 0; i < 10; i++)
      expect(await w.call({ account: `acct_${i % 3}`, work: "fp1", address: `10.0.0.${i}` }, T0 + i * 1000)).toEqual([]);
    const [breach, ...more] = await w.call({ account: "acct_0", work: "fp1", address: "10.0.0.99" }, T0 + 10_000);
    expect(more).toEqual([]);
    expect(breach).toMatchObject({ kind: "work", subject: "fp1", windowMs: 60_000 });
    expect(breach!.entries).toHaveLength(11);
    expect(breach!.entries[0]!.at).toBe(T0);
    expect(breach!.entries.at(-1)!.at).toBe(T0 + 10_000);
    // The same subject and window again within the period: no second breach; after it, a new one.
    expect(await w.call({ account: "acct_1", work: "fp1" }, T0 + 11_000)).toEqual([]);
    for (let i = 0; i < 11; i++) await w.call({ account: `acct_${i % 3}`, work: "fp1" }, T0 + 71_000 + i);
    expect(w.breaches.filter((b) => b.windowMs === 60_000)).toHaveLength(2);
    await w.store.close();
  });

  test("work from fewer than 3 accounts, or calls spread past the window, is no breach", async () => {
    const w = world();
    for (let i = 0; i < 30; i++) await w.call({ account: `acct_${i % 2}`, work: "two-accounts" }, T0 + i * 100);
    for (let i = 0; i < 30; i++) await w.call({ account: `acct_${i % 5}`, work: "slow" }, T0 + i * 6_500);
    expect(w.breaches).toEqual([]);
    await w.store.close();
  });

  test("address: accounts sharing work breach it; an office whose people do their own work does not", async () => {
    const w = world();
    // Twelve people behind one office address, each with their own work, 24 calls in a minute.
    for (let i = 0; i < 24; i++) await w.call({ account: `acct_staff${i % 12}`, address: "office", work: `own-${i % 12}` }, T0 + i * 1000);
    // Contents reads carry no work at all.
    for (let i = 0; i < 12; i++) await w.call({ account: `acct_reader${i % 4}`, address: "office" }, T0 + 30_000 + i);
    expect(w.breaches).toEqual([]);
    // Four accounts behind another address all running the same two jobs.
    for (let i = 0; i < 11; i++) await w.call({ account: `acct_ring${i % 4}`, address: "ring", work: `job-${i % 2}` }, T0 + i * 1000);
    expect(w.breaches).toHaveLength(1);
    expect(w.breaches[0]).toMatchObject({ kind: "address", subject: "ring", windowMs: 60_000 });
    await w.store.close();
  });

  test("address: shared work on fewer than half of its calls, or by fewer than 3 accounts, is no breach", async () => {
    const w = world();
    // Two accounts share a job (8 calls); ten others do their own (10 calls).
    for (let i = 0; i < 8; i++) await w.call({ account: `acct_pair${i % 2}`, address: "mixed", work: "shared" }, T0 + i);
    for (let i = 0; i < 10; i++) await w.call({ account: `acct_solo${i}`, address: "mixed", work: `solo-${i}` }, T0 + 100 + i);
    expect(w.breaches).toEqual([]);
    await w.store.close();
  });

  test("memory is bounded: a set keeps the longest window's calls, at most its cap, and expires with that window", async () => {
    const w = world();
    const flood = settings.cap + 50;
    for (let i = 0; i < flood; i++) await w.call({ account: "acct_one", address: "busy" }, T0 + i * 10);
    const key = `${w.prefix}address:busy`;
    if (w.store instanceof MemoryWindows) {
      expect(w.store.size(key)).toBe(settings.cap);
      await w.call({ account: "acct_one", address: "busy" }, T0 + 600_000 + flood * 10);
      expect(w.store.size(key)).toBe(1);
    } else {
      const redis = new RedisClient(TEST_REDIS_URL!);
      expect(Number(await redis.send("ZCARD", [key]))).toBe(settings.cap);
      const ttl = Number(await redis.send("PTTL", [key]));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(600_000);
      await w.call({ account: "acct_one", address: "busy" }, T0 + 600_000 + flood * 10);
      expect(Number(await redis.send("ZCARD", [key]))).toBe(1);
      redis.close();
    }
    await w.store.close();
  });
});
