import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addCredit } from "../../src/accounts/service.ts";
import { ManualClock } from "../../src/clock.ts";
import { MemoryStore } from "../../src/limits/memory-store.ts";
import { waitWords } from "../../src/wait-words.ts";
import { burst, countOf, jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { backendName } from "../helpers/env.ts";
import { waitFor } from "../helpers/wait.ts";

let database: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  app = await startTestApp(database);
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

const as = (key: string) => ({ headers: { "X-API-Key": key } });

describe(`the free plan (${backendName})`, () => {
  test("admits exactly 10 calls in a burst and answers the 11th with 429, Retry-After and the headers", async () => {
    const { apiKey } = await app.account({ name: "free" });
    const statuses = await burst(15, 15, () => app.fetch("/v1/account", as(apiKey)));
    expect(countOf(statuses, 200)).toBe(10);
    expect(countOf(statuses, 429)).toBe(5);

    const refused = await app.fetch("/v1/account", as(apiKey));
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    // One token every 6 seconds on the free plan.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("10");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    const reset = Number(refused.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    expect(refused.headers.get("ratelimit-policy")).toBe('"free";q=10;w=60');
    expect(refused.headers.get("ratelimit")).toMatch(/^"free";r=0;t=\d+$/);
    expect(await jsonOf(refused)).toEqual({
      detail: `rate limited, try again in ${waitWords(retryAfter)}`,
      error: "rate_limited",
      plan: "free",
      limit_per_minute: 10,
      retry_after_seconds: retryAfter,
    });
  });

  test("every authenticated response carries the headers, errors included", async () => {
    const { apiKey } = await app.account({ name: "headers" });
    const ok = await app.fetch("/v1/account", as(apiKey));
    expect(ok.headers.get("x-ratelimit-limit")).toBe("10");
    expect(ok.headers.get("x-ratelimit-remaining")).toBe("9");
    const missing = await app.fetch("/v1/keys/key_01m81vxjpee6ta28c6edpbkmfh", as(apiKey));
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-ratelimit-remaining")).toBe("8");
    const invalid = await app.fetch("/v1/keys", {
      method: "POST",
      headers: { "X-API-Key": apiKey, "content-type": "application/json" },
      body: '{"name": 5}',
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get("x-ratelimit-remaining")).toBe("7");
  });

  test("one bucket spans every route of the key; another key has its own", async () => {
    const { apiKey, accountId } = await app.account({ name: "routes" });
    const statuses = await burst(12, 4, (i) => app.fetch(i % 2 ? "/v1/keys" : "/v1/account", as(apiKey)));
    expect(countOf(statuses, 200)).toBe(10);
    const other = await (await app.fetch("/v1/keys", { method: "POST", headers: { "X-API-Key": apiKey } })).status;
    expect(other).toBe(429);
    const { createKey } = await import("../../src/accounts/service.ts");
    const second = await createKey(app.accounts, accountId, "second");
    expect((await app.fetch("/v1/account", as(second.secret))).status).toBe(200);
  });
});

describe("plans follow the account at once", () => {
  test("adding credit moves the key from Free to Pro immediately", async () => {
    const { apiKey, accountId } = await app.account({ name: "upgrader" });
    await burst(10, 10, () => app.fetch("/v1/account", as(apiKey)));
    expect((await app.fetch("/v1/account", as(apiKey))).status).toBe(429);

    await addCredit(app.accounts, accountId, 20);
    const upgraded = await app.fetch("/v1/account", as(apiKey));
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers.get("x-ratelimit-limit")).toBe("100");
    expect(upgraded.headers.get("ratelimit-policy")).toBe('"pro";q=100;w=60');
    expect(await jsonOf(upgraded)).toMatchObject({ plan: "pro", rate_limit_per_minute: 100, balance: 20 });
    const statuses = await burst(120, 20, () => app.fetch("/v1/account", as(apiKey)));
    // 99 left after the first Pro call, plus at most a couple refilled during the burst (100/min).
    expect(countOf(statuses, 200)).toBeGreaterThanOrEqual(99);
    expect(countOf(statuses, 200)).toBeLessThanOrEqual(102);
  });
});

describe("an enterprise account's custom limit", () => {
  test("is honoured exactly when time stands still (memory store, frozen clock)", async () => {
    const clock = new ManualClock();
    const frozen = await startTestApp(database, { store: (c) => new MemoryStore(c), clock });
    try {
      const { apiKey } = await frozen.account({ name: "enterprise", limit: 5_000 });
      const statuses = await burst(5_050, 64, () => frozen.fetch("/v1/account", as(apiKey)));
      expect(countOf(statuses, 200)).toBe(5_000);
      expect(countOf(statuses, 429)).toBe(50);
      clock.advance(60_000);
      const refilled = await frozen.fetch("/v1/account", as(apiKey));
      expect(refilled.status).toBe(200);
      expect(refilled.headers.get("x-ratelimit-remaining")).toBe("4999");
    } finally {
      await frozen.stop();
    }
  });

  test(`is honoured on the configured store (${backendName}), refill included`, async () => {
    const { apiKey } = await app.account({ name: "enterprise2", limit: 6_000 });
    const started = performance.now();
    const statuses = await burst(6_100, 64, () => app.fetch("/v1/account", as(apiKey)));
    const seconds = (performance.now() - started) / 1000;
    const admitted = countOf(statuses, 200);
    expect(admitted).toBeGreaterThanOrEqual(6_000);
    // 6,000 a minute refills 100 a second while the burst runs.
    expect(admitted).toBeLessThanOrEqual(6_000 + Math.ceil(seconds * 100) + 1);
    expect(countOf(statuses, 429)).toBe(6_100 - admitted);
  });
});

describe("usage records", () => {
  test("every authenticated call is recorded with route, status and key", async () => {
    const { apiKey, accountId, keyId } = await app.account({ name: "usage" });
    await app.fetch("/v1/account", as(apiKey));
    await app.fetch("/v1/keys/key_01m81vxjpee6ta28c6edpbkmfh", as(apiKey));
    // The record is made once the response has gone out: wait for it, not for a guessed time.
    const rows = await waitFor(async () => {
      await app.usage.flush();
      const found = await app.db.query.usageRecords.findMany({ where: (u, { eq }) => eq(u.accountId, accountId) });
      return found.length >= 2 && found;
    }, "both calls' usage records");
    const seen = rows.map((r) => `${r.route} ${r.status}`).sort();
    expect(seen).toEqual(["GET /v1/account 200", "GET /v1/keys/:key_id 404"]);
    expect(rows.every((r) => r.apiKeyId === keyId && r.requestId?.startsWith("req_"))).toBe(true);
  });
});
