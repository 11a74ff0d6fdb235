/**
 * Redis stopped mid-test: the limiter follows RATE_LIMIT_FAIL_MODE within
 * its short timeout (never a hang), logs the outage once, and recovers when
 * Redis is back without a restart. Uses a private redis-server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisStore } from "../../src/limits/redis-store.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_REDIS_URL } from "../helpers/env.ts";
import { privateRedis, redisServerBinary, type PrivateRedis } from "../helpers/redis-server.ts";

const runnable = Boolean(TEST_REDIS_URL && redisServerBinary);
let database: TestDatabase;
let redis: PrivateRedis;

beforeAll(async () => {
  if (!runnable) return;
  database = await freshDatabase();
  redis = await privateRedis();
});
afterAll(async () => {
  await redis?.kill();
  await database?.drop();
});

async function timed(app: TestApp, apiKey: string) {
  const started = performance.now();
  const response = await app.fetch("/v1/account", { headers: { "X-API-Key": apiKey } });
  return { response, ms: performance.now() - started };
}

describe.skipIf(!runnable)("Redis stopped mid-test", () => {
  test("fail mode open: calls keep being admitted against a per-process bucket, quickly, and the limit still holds", async () => {
    const app = await startTestApp(database, {
      store: () => new RedisStore(redis.url),
      env: { RATE_LIMIT_FAIL_MODE: "open", RATE_LIMIT_TIMEOUT_MS: "100" },
    });
    try {
      const { apiKey } = await app.account({ name: "open" });
      for (let i = 0; i < 3; i++) expect((await timed(app, apiKey)).response.status).toBe(200);
      expect(app.limiter.status().healthy).toBe(true);

      await redis.kill();
      const during = [];
      for (let i = 0; i < 12; i++) during.push(await timed(app, apiKey));
      expect(during.every((r) => r.ms < 500)).toBe(true);
      // The fallback bucket is fresh and per process: 10 more admitted, then 429 again.
      expect(during.filter((r) => r.response.status === 200).length).toBe(10);
      expect(during.at(-1)!.response.status).toBe(429);
      expect(app.limiter.status().healthy).toBe(false);
      const outageLines = app.logs.filter((l) => l.includes("rate limit store unreachable"));
      expect(outageLines.length).toBe(1);
      expect(outageLines[0]).toContain("failing open");

      await redis.start();
      const second = await app.account({ name: "after" });
      await Bun.sleep(600); // past the breaker's probe interval
      let recovered = false;
      for (let i = 0; i < 20 && !recovered; i++) {
        await timed(app, second.apiKey);
        recovered = app.limiter.status().healthy;
        if (!recovered) await Bun.sleep(100);
      }
      expect(recovered).toBe(true);
      expect(app.logs.filter((l) => l.includes("rate limit store recovered")).length).toBe(1);
    } finally {
      await app.stop();
    }
  });

  test("while Redis is known down, no call waits for it: the re-checks run in the background", async () => {
    const timeoutMs = 200;
    const app = await startTestApp(database, {
      store: () => new RedisStore(redis.url),
      env: { RATE_LIMIT_FAIL_MODE: "open", RATE_LIMIT_TIMEOUT_MS: String(timeoutMs) },
    });
    try {
      const { apiKey } = await app.account({ name: "fast", limit: 100_000 });
      expect((await timed(app, apiKey)).response.status).toBe(200);
      await redis.kill();
      await timed(app, apiKey); // the call that finds the outage may wait up to the timeout
      // Past several probe intervals (500 ms each): before, every re-check cost a caller the whole timeout.
      const decisions: number[] = [];
      const until = performance.now() + 1_800;
      while (performance.now() < until) {
        const started = performance.now();
        await app.limiter.check("fast-probe", { name: "enterprise", label: "Enterprise", perMinute: 100_000 });
        decisions.push(performance.now() - started);
        await Bun.sleep(25);
      }
      expect(decisions.length).toBeGreaterThan(20);
      expect(Math.max(...decisions)).toBeLessThan(timeoutMs / 2);
      expect(app.limiter.status().healthy).toBe(false);
    } finally {
      await app.stop();
      await redis.start();
    }
  });

  test("fail mode closed: calls are refused with 503 and Retry-After, quickly", async () => {
    const app = await startTestApp(database, {
      store: () => new RedisStore(redis.url),
      env: { RATE_LIMIT_FAIL_MODE: "closed", RATE_LIMIT_TIMEOUT_MS: "100" },
    });
    try {
      const { apiKey } = await app.account({ name: "closed" });
      expect((await timed(app, apiKey)).response.status).toBe(200);
      await redis.kill();
      for (let i = 0; i < 3; i++) {
        const { response, ms } = await timed(app, apiKey);
        expect(ms).toBeLessThan(500);
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("1");
        expect(await jsonOf(response)).toEqual({
          detail: "rate limiting is temporarily unavailable, try again in 1 second",
          error: "rate_limiter_unavailable",
        });
      }
      const ready = await app.fetch("/readyz");
      expect(ready.status).toBe(503);
      expect((await jsonOf(ready)).rate_limit_store).toMatchObject({ store: "redis", healthy: false, fail_mode: "closed" });
    } finally {
      await app.stop();
      await redis.start();
    }
  });
});
