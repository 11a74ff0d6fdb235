/**
 * One of several processes hammering one bucket through the real limiter
 * and Redis store. Starts at an agreed instant so the processes overlap.
 * argv: redisUrl keyPrefix keyId perMinute planName checks concurrency startAtMs
 */
import { systemClock } from "../src/clock.ts";
import { createLogger } from "../src/log.ts";
import { RateLimiter } from "../src/limits/limiter.ts";
import { MemoryStore } from "../src/limits/memory-store.ts";
import { InFlightGauge } from "../src/limits/peak-load.ts";
import type { Plan, PlanName } from "../src/limits/plans.ts";
import { RedisStore } from "../src/limits/redis-store.ts";

const [redisUrl, keyPrefix, keyId, perMinute, planName, checks, concurrency, startAt] = process.argv.slice(2);
const store = new RedisStore(redisUrl!);
await store.init();
const limiter = new RateLimiter(
  store,
  new MemoryStore(systemClock),
  { failMode: "closed", timeoutMs: 2_000, keyPrefix: keyPrefix!, peakInflightThreshold: 1e9, peakFreeRefillFactor: 1 },
  { clock: systemClock, log: createLogger({ level: "warn" }), load: new InFlightGauge() },
);
const plan: Plan = { name: planName as PlanName, label: planName!, perMinute: Number(perMinute) };
await Bun.sleep(Math.max(0, Number(startAt) - Date.now()));

let admitted = 0;
let refused = 0;
let next = 0;
const total = Number(checks);
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (next++ < total) {
      if ((await limiter.check(keyId!, plan)).allowed) admitted++;
      else refused++;
    }
  }),
);
await limiter.close();
process.stdout.write(JSON.stringify({ admitted, refused }));
