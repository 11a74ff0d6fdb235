/**
 * One limit across the fleet (issue 25, item 4): a key's bucket lives in
 * Redis, shared by every instance, so calls spread round-robin over three
 * instances are admitted as one instance would admit them. A Free key's 10
 * a minute is 10 in all, not 10 per instance; an Enterprise key, spent
 * through per-instance leases (src/limits/lease.ts), is admitted at most
 * one second's refill (a 60th of its limit) beyond what a strict bucket
 * would admit over the same stretch. GET /v1/account is the call: it
 * spends one token like every authenticated route, and costs little else.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { burst, countOf } from "../helpers/app.ts";
import { TEST_REDIS_URL } from "../helpers/env.ts";
import { startFleet, type Fleet } from "../helpers/fleet.ts";

let fleet: Fleet;
let redis: RedisClient;

beforeAll(async () => {
  fleet = await startFleet();
  redis = new RedisClient(TEST_REDIS_URL);
});
afterAll(async () => {
  redis?.close();
  await fleet?.close();
});

/** Redis's clock: the buckets refill by it. */
async function redisMillis(): Promise<number> {
  const [seconds, micros] = (await redis.send("TIME", [])) as [string, string];
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

const account = (apiKey: string) => fetch(`${fleet.url}/v1/account`, { headers: { "X-API-Key": apiKey } });

test("Free, 10 a minute: of 50 calls spread round-robin over three instances, at most 10 are admitted, by all three", async () => {
  const { apiKey } = await fleet.account({ name: "free" });
  const answered: { status: number; instance: string }[] = [];
  const startedAt = await redisMillis();
  await burst(50, 5, async () => {
    const response = await account(apiKey);
    answered.push({ status: response.status, instance: fleet.instanceOf(response)! });
    return response;
  });
  const seconds = ((await redisMillis()) - startedAt) / 1000;
  const admitted = answered.filter((a) => a.status === 200);
  expect(admitted.length).toBeLessThanOrEqual(10);
  // The bucket was full: all 10 went, unless the calls took long enough to refill one (6 s) and it went too.
  expect(admitted.length).toBe(Math.min(10, 10 + Math.floor((seconds * 10) / 60)));
  expect(
    countOf(
      answered.map((a) => a.status),
      429,
    ),
  ).toBe(50 - admitted.length);
  // Every instance served a share and admitted some: one bucket between them, not one each (that would admit 30).
  for (const name of ["a", "b", "c"]) {
    expect(answered.filter((a) => a.instance === name).length).toBeGreaterThanOrEqual(15);
    expect(admitted.some((a) => a.instance === name)).toBe(true);
  }
});

test("Enterprise, 5,000 a minute, spent through leases on three instances: at most a 60th of the limit over a strict bucket", async () => {
  const limit = 5_000;
  const { apiKey } = await fleet.account({ name: "enterprise", limit });
  const calls = 6_500;
  const startedAt = await redisMillis();
  const statuses = await burst(calls, 24, () => account(apiKey));
  const seconds = ((await redisMillis()) - startedAt) / 1000;
  const admitted = countOf(statuses, 200);
  expect(countOf(statuses, 429)).toBe(calls - admitted);
  // A strict bucket admits its capacity plus what refilled meanwhile; leases add at most one lifetime's (1 s) refill.
  const strict = limit + Math.floor(seconds * (limit / 60));
  const overAdmitted = admitted - strict;
  console.log(
    `enterprise ${limit}/min over 3 instances: ${admitted} of ${calls} admitted in ${seconds.toFixed(2)} s; a strict bucket: ${strict}; over: ${overAdmitted} (bound ${Math.floor(limit / 60)})`,
  );
  expect(overAdmitted).toBeLessThanOrEqual(Math.floor(limit / 60));
  // The calls outran the refill, so the bound was tested; and the leases parked at most 1% each, so few tokens went unspent.
  expect(calls).toBeGreaterThan(strict + limit / 60);
  expect(admitted).toBeGreaterThanOrEqual(limit - 3 * (limit / 100));
});
