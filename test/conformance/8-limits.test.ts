/**
 * SPEC 8, limits: plan rate limits per API key across every route (checked
 * exactly on a frozen clock with the in-memory store, and on the configured
 * store, Redis in CI's second pass), credit upgrading Free to Pro, peak-load
 * throttling of Free only, billing per million tokens, max_results, input
 * names, and the limits the spec leaves to the service.
 */
import { beforeAll, expect } from "bun:test";
import { addCredit, revokeKey } from "../../src/accounts/service.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { MemoryStore } from "../../src/limits/memory-store.ts";
import { InFlightGauge } from "../../src/limits/peak-load.ts";
import { burst, countOf, jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { backendName } from "../helpers/env.ts";
import { landmarkEndpoint } from "../helpers/endpoints.ts";
import { minimalPng } from "../helpers/fixtures/images.ts";
import { rawUpgrade } from "../helpers/websocket.ts";
import { clause } from "./clause.ts";
import { useSearchApp } from "./search-app.ts";

// 1,000 dollars per million tokens and a half share, so a single run's cost is plainly visible.
const s = useSearchApp({ PRICE_PER_MILLION_TOKENS: "1000", PUBLISHER_SHARE: "0.5" });

const account = (app: TestApp, key: string) => app.fetch("/v1/account", { headers: { "X-API-Key": key } });
const post = (app: TestApp, key: string, path: string, body: unknown) =>
  app.fetch(path, { method: "POST", headers: { "X-API-Key": key, "content-type": "application/json" }, body: JSON.stringify(body) });

async function frozenApp(env: Record<string, string> = {}, load?: InFlightGauge): Promise<{ app: TestApp; clock: ManualClock }> {
  const clock = new ManualClock(Date.now());
  const app = await startTestApp(s.database, { store: (c) => new MemoryStore(c), clock, env, load });
  return { app, clock };
}

let listing: { id: string | number; stub: string; inputs: { name: string; type: string; required: boolean; default: unknown }[] };

beforeAll(async () => {
  listing = (
    await jsonOf(
      s.call("POST", "/v1/design-api", {
        original_prompt: "For a city, list its landmarks with their completion years",
        api_name: "City landmarks",
        inputs: [{ name: "city", type: "string" }],
        output_format: { landmarks: [{ name: "string", completed_year: "integer" }] },
        graph: {
          nodes: [{ id: "research", type: "search_agent", name: "Research", system_prompt: "Landmarks of {city}: the Eiffel Tower" }],
          edges: [],
        },
      }),
    )
  ).response;
});

clause("8 · Free (Starter)", `a free key gets 10 calls a minute: the 11th in a burst is a 429 (${backendName})`, async () => {
  const { apiKey } = await s.app.account({ name: "free" });
  const statuses = await burst(13, 13, () => account(s.app, apiKey));
  expect(countOf(statuses, 200)).toBe(10);
  expect(countOf(statuses, 429)).toBe(3);
});

clause("8 · Free (Starter)", "the account and the headers say Free (Starter), 10 a minute", async () => {
  const { apiKey } = await s.app.account({ name: "free-headers" });
  const response = await account(s.app, apiKey);
  expect(response.headers.get("x-ratelimit-limit")).toBe("10");
  expect(response.headers.get("x-ratelimit-remaining")).toBe("9");
  expect(response.headers.get("ratelimit-policy")).toBe('"free";q=10;w=60');
  expect(await jsonOf(response)).toMatchObject({ plan: "free", plan_label: "Free (Starter)", rate_limit_per_minute: 10 });
});

clause("8 · Pro", "a Pro key gets exactly 100 calls a minute (frozen clock)", async () => {
  const { app } = await frozenApp();
  try {
    const { apiKey } = await app.account({ name: "pro", credit: 5 });
    const statuses = await burst(103, 16, () => account(app, apiKey));
    expect(countOf(statuses, 200)).toBe(100);
    expect(countOf(statuses, 429)).toBe(3);
  } finally {
    await app.stop();
  }
});

clause("8 · Pro", `the account and the headers say Pro, 100 a minute (${backendName})`, async () => {
  const { apiKey } = await s.app.account({ name: "pro-headers", credit: 5 });
  const response = await account(s.app, apiKey);
  expect(response.headers.get("x-ratelimit-limit")).toBe("100");
  expect(response.headers.get("ratelimit-policy")).toBe('"pro";q=100;w=60');
  expect(await jsonOf(response)).toMatchObject({ plan: "pro", rate_limit_per_minute: 100 });
});

clause("8 · Enterprise", "an Enterprise account has its custom limit, 5,000 or more a minute", async () => {
  for (const limit of [5_000, 12_000]) {
    const { apiKey } = await s.app.account({ name: `enterprise-${limit}`, limit });
    const response = await account(s.app, apiKey);
    expect(response.headers.get("x-ratelimit-limit")).toBe(String(limit));
    expect(response.headers.get("x-ratelimit-remaining")).toBe(String(limit - 1));
    expect(response.headers.get("ratelimit-policy")).toBe(`"enterprise";q=${limit};w=60`);
    expect(await jsonOf(response)).toMatchObject({ plan: "enterprise", plan_label: "Enterprise", rate_limit_per_minute: limit });
  }
});

clause("8 · Enterprise", "a custom limit below 5,000 is refused when the account is made (the service's choice)", async () => {
  await expect(s.app.account({ name: "too-small", limit: 4_999 })).rejects.toThrow("enterprise limit");
});

clause("8.1", "one bucket per key across search, streaming search and every other route", async () => {
  const { apiKey } = await s.app.account({ name: "mixed" });
  const calls = [
    () => post(s.app, apiKey, "/v1/search", { prompt: "When was the Eiffel Tower completed?" }),
    () => rawUpgrade(s.wsUrl, { "X-API-Key": apiKey }),
    () => post(s.app, apiKey, "/v1/search", { prompt: "river bridge" }),
    () => post(s.app, apiKey, "/v1/contents", { url: "http://127.0.0.1/" }),
    () => s.app.fetch("/v1/design-api", { headers: { "X-API-Key": apiKey } }),
    () => rawUpgrade(s.wsUrl, { "X-API-Key": apiKey }),
    () => account(s.app, apiKey),
    () => s.app.fetch("/v1/usage", { headers: { "X-API-Key": apiKey } }),
    () => s.app.fetch("/v1/keys", { headers: { "X-API-Key": apiKey } }),
    () => post(s.app, apiKey, "/v1/search", { prompt: "" }),
  ];
  for (const call of calls) expect((await call()).status).not.toBe(429);
  expect((await post(s.app, apiKey, "/v1/search", { prompt: "When was the Eiffel Tower completed?" })).status).toBe(429);
  expect((await rawUpgrade(s.wsUrl, { "X-API-Key": apiKey })).status).toBe(429);
  expect((await account(s.app, apiKey)).status).toBe(429);
});

clause("8.1", "per API key: another key of the same account, and another account, have their own buckets", async () => {
  const first = await s.app.account({ name: "two-keys" });
  await burst(10, 10, () => account(s.app, first.apiKey));
  expect((await account(s.app, first.apiKey)).status).toBe(429);
  const { createKey } = await import("../../src/accounts/service.ts");
  const second = await createKey(s.app.accounts, first.accountId, "second");
  expect((await account(s.app, second.secret)).status).toBe(200);
  const other = await s.app.account({ name: "neighbour" });
  expect((await account(s.app, other.apiKey)).status).toBe(200);
});

clause("8.2", "zero balance is Free; adding credit raises the key to Pro at once", async () => {
  const { apiKey, accountId } = await s.app.account({ name: "upgrader" });
  await burst(10, 10, () => account(s.app, apiKey));
  const limited = await account(s.app, apiKey);
  expect(limited.status).toBe(429);
  expect((await jsonOf(limited)).plan).toBe("free");
  await addCredit(s.app.accounts, accountId, 1);
  const upgraded = await account(s.app, apiKey);
  expect(upgraded.status).toBe(200);
  expect(upgraded.headers.get("x-ratelimit-limit")).toBe("100");
  expect(await jsonOf(upgraded)).toMatchObject({ plan: "pro", rate_limit_per_minute: 100, balance: 1 });
});

clause("8.3", "at peak load a free bucket refills more slowly (a quarter of its rate by default)", async () => {
  const load = new InFlightGauge();
  const { app, clock } = await frozenApp({ PEAK_INFLIGHT_THRESHOLD: "1" }, load);
  try {
    const calm = await app.account({ name: "calm" });
    await burst(10, 10, () => account(app, calm.apiKey));
    clock.advance(6_000);
    expect((await account(app, calm.apiKey)).status).toBe(200);

    const busy = await app.account({ name: "busy" });
    await burst(10, 10, () => account(app, busy.apiKey));
    const leave = load.enter();
    try {
      clock.advance(6_000);
      const throttled = await account(app, busy.apiKey);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get("retry-after"))).toBe(18);
      clock.advance(18_000);
      expect((await account(app, busy.apiKey)).status).toBe(200);
    } finally {
      leave();
    }
  } finally {
    await app.stop();
  }
});

clause("8.3", "paid usage is never throttled: a Pro bucket refills at its full rate at peak", async () => {
  const load = new InFlightGauge();
  const { app, clock } = await frozenApp({ PEAK_INFLIGHT_THRESHOLD: "1" }, load);
  const leave = load.enter();
  try {
    const { apiKey } = await app.account({ name: "pro-at-peak", credit: 5 });
    const statuses = await burst(100, 16, () => account(app, apiKey));
    expect(countOf(statuses, 200)).toBe(100);
    const refused = await account(app, apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    clock.advance(600);
    expect((await account(app, apiKey)).status).toBe(200);
  } finally {
    leave();
    await app.stop();
  }
});

clause("8.4", "no token cap on the free tier: a large query is answered, and repeated large queries keep being answered", async () => {
  const { apiKey } = await s.app.account({ name: "free-large" });
  const filler = "Please consider the history, the engineering and the cost of the structure in detail. ".repeat(200);
  let total = 0;
  for (let i = 0; i < 3; i++) {
    const response = await post(s.app, apiKey, "/v1/search", { prompt: `When was the Eiffel Tower completed? ${filler}` });
    expect(response.status).toBe(200);
    const body = await jsonOf(response);
    expect(body.info.tokens.prompt).toBeGreaterThan(3_000);
    total += body.info.token_usage;
  }
  expect(total).toBeGreaterThan(9_000);
});

clause(
  "8.5",
  "no automatic detection (the service's choice): each account's keys have their own buckets; the operator's revocation refuses a key at once",
  async () => {
    const first = await s.app.account({ name: "split-a" });
    const second = await s.app.account({ name: "split-b" });
    expect(countOf(await burst(11, 11, () => account(s.app, first.apiKey)), 200)).toBe(10);
    expect(countOf(await burst(11, 11, () => account(s.app, second.apiKey)), 200)).toBe(10);
    await revokeKey(s.app.accounts, second.accountId, second.keyId);
    const refused = await account(s.app, second.apiKey);
    expect(refused.status).toBe(401);
    expect((await jsonOf(refused)).error).toBe("unauthorized");
  },
);

clause(
  "8.6",
  "a paying account is charged price x tokens per million for a designed endpoint's run, internal tokens included; a free one is not",
  async () => {
    const payer = await s.app.account({ name: "payer", credit: 10 });
    const free = await s.app.account({ name: "free-runner" });
    const payerEndpoint = (await jsonOf(post(s.app, payer.apiKey, "/v1/design-api", landmarkEndpoint))).response;
    const freeEndpoint = (await jsonOf(post(s.app, free.apiKey, "/v1/design-api", landmarkEndpoint))).response;
    const run = await jsonOf(post(s.app, payer.apiKey, `/v1/user-defined-service/${payerEndpoint.stub}`, { landmark: "Eiffel Tower" }));
    expect((await post(s.app, free.apiKey, `/v1/user-defined-service/${freeEndpoint.stub}`, { landmark: "Eiffel Tower" })).status).toBe(
      200,
    );
    const tokens = run.info.token_usage;
    expect(tokens).toBeGreaterThan(0);
    await s.app.usage.flush();
    s.app.accounts.keyCache?.forgetAccount(payer.accountId);
    const usage = await jsonOf(s.app.fetch("/v1/usage?days=1", { headers: { "X-API-Key": payer.apiKey } }));
    const recorded = usage.recent.find((r: { route: string }) => r.route === "POST /v1/user-defined-service/:api_stub");
    expect(recorded.tokens).toBe(tokens);
    expect(recorded.cost).toBeCloseTo((tokens * 1000) / 1e6, 9);
    expect((await jsonOf(account(s.app, payer.apiKey))).balance).toBeCloseTo(10 - (tokens * 1000) / 1e6, 6);
    const freeUsage = await jsonOf(s.app.fetch("/v1/usage?days=1", { headers: { "X-API-Key": free.apiKey } }));
    expect(freeUsage.totals.cost).toBe(0);
    expect(freeUsage.totals.tokens).toBeGreaterThan(0);
  },
);

clause("8.6", "a publisher earns its share of a paying consumer's cost of running its published endpoint", async () => {
  const publisher = await s.app.account({ name: "publisher", credit: 1 });
  const consumer = await s.app.account({ name: "consumer", credit: 10 });
  const draft = (await jsonOf(post(s.app, publisher.apiKey, "/v1/design-api", landmarkEndpoint))).response;
  const published = await jsonOf(post(s.app, publisher.apiKey, `/v1/design-api/${draft.id}/publish`, { public_stub: "limits-billing" }));
  const run = await jsonOf(post(s.app, consumer.apiKey, `/v1/published-service/${published.public_stub}`, { landmark: "Eiffel Tower" }));
  await s.app.usage.flush();
  const earnings = (await jsonOf(s.app.fetch("/v1/usage?days=1", { headers: { "X-API-Key": publisher.apiKey } }))).totals;
  expect(earnings.earning_calls).toBe(1);
  expect(earnings.earnings).toBeCloseTo((run.info.token_usage * 1000 * 0.5) / 1e6, 6);
});

clause("8.7", "an endpoint whose output has a list gets max_results: an optional number input, default 10", async () => {
  expect(listing.inputs.find((i) => i.name === "max_results")).toEqual(
    expect.objectContaining({ name: "max_results", type: "number", required: false, default: 10 }),
  );
});

clause("8.7", "max_results must be at least 1", async () => {
  for (const bad of [0, -1, 0.5]) {
    const response = await s.call("POST", `/v1/user-defined-service/${listing.stub}`, { city: "Paris", max_results: bad });
    expect(response.status).toBe(422);
    expect((await jsonOf(response)).detail[0].loc).toEqual(["body", "max_results"]);
  }
  expect((await s.call("POST", `/v1/user-defined-service/${listing.stub}`, { city: "Paris", max_results: 1 })).status).toBe(200);
});

clause("8.7", "at most one draft per endpoint", async () => {
  const v1 = (await jsonOf(s.call("POST", "/v1/design-api", landmarkEndpoint))).response;
  const v2 = (await jsonOf(s.call("POST", `/v1/design-api/${v1.id}/versions`))).response;
  expect((await s.call("POST", `/v1/design-api/${v1.id}/versions`)).status).toBe(409);
  const lineage = (await jsonOf(s.call("GET", `/v1/design-api/${v2.id}/versions`))) as { frozen_at: string | null }[];
  expect(lineage.filter((v) => v.frozen_at === null).length).toBe(1);
});

clause("8.8", "an input name starts with a letter or underscore, then letters, digits, underscores", async () => {
  const design = (name: string) =>
    s.call("POST", "/v1/design-api", {
      ...landmarkEndpoint,
      inputs: [{ name, type: "string" }],
      graph: { nodes: [{ id: "r", type: "search_agent", name: "R", system_prompt: `Facts about {${name}}` }], edges: [] },
    });
  for (const good of ["landmark", "_private", "Name2", "a_b_3"]) expect(`${good} ${(await design(good)).status}`).toBe(`${good} 200`);
  for (const bad of ["1st", "a-b", "a b", "", "é"]) {
    const response = await design(bad);
    expect(`${bad} ${response.status}`).toBe(`${bad} 422`);
    expect((await jsonOf(response)).detail[0].loc).toEqual(["body", "inputs", 0, "name"]);
  }
});

clause("8.8", "max_results is reserved as an input name", async () => {
  const response = await s.call("POST", "/v1/design-api", { ...landmarkEndpoint, inputs: [{ name: "max_results", type: "number" }] });
  expect(response.status).toBe(422);
});

clause("8.9", "size limits (not shown): a prompt of at most 20,000 characters", async () => {
  expect((await s.search({ prompt: "Eiffel Tower ".repeat(1_538) })).status).toBe(200);
  const response = await s.search({ prompt: "x".repeat(20_001) });
  expect(response.status).toBe(422);
  expect(await jsonOf(response)).toEqual({
    detail: [{ loc: ["body", "prompt"], msg: "String should have at most 20000 characters", type: "string_too_long" }],
  });
});

clause("8.9", "size limits (not shown): an image of at most 5 MiB decoded (IMAGE_MAX_BYTES)", async () => {
  const png = minimalPng();
  const big = new Uint8Array(5 * 1024 * 1024 + 1);
  big.set(png);
  const response = await s.search({ prompt: "What is this?", image: Buffer.from(big).toString("base64") });
  expect(response.status).toBe(422);
  expect((await jsonOf(response)).detail).toEqual([
    { loc: ["body", "image"], msg: "image is larger than 5242880 bytes", type: "image_too_large" },
  ]);
});

clause("8.9", "size limits (not shown): domain lists of at most 200 entries of at most 2,048 characters", async () => {
  const many = Array.from({ length: 201 }, (_, i) => `site${i}.test`);
  const tooMany = await s.search({ prompt: "x", source_blacklist: many });
  expect(tooMany.status).toBe(422);
  expect((await jsonOf(tooMany)).detail).toEqual([
    { loc: ["body", "source_blacklist"], msg: "List should have at most 200 items after validation, not 201", type: "too_long" },
  ]);
  const tooLong = await s.search({ prompt: "x", source_whitelist: [`https://blog.test/${"a".repeat(2_040)}`] });
  expect(tooLong.status).toBe(422);
  expect((await jsonOf(tooLong)).detail[0]).toMatchObject({ loc: ["body", "source_whitelist", 0], type: "string_too_long" });
  expect((await s.search({ prompt: "river bridge", source_blacklist: many.slice(0, 200) })).status).toBe(200);
});

clause("8.9", "size limits (not shown): a request body of at most 10 MiB (MAX_BODY_BYTES); larger is a 413", async () => {
  const response = await s.search({ prompt: "x", image: "A".repeat(10 * 1024 * 1024) });
  expect(response.status).toBe(413);
  expect(await jsonOf(response)).toEqual({ detail: "request body is larger than the 10485760 bytes allowed", error: "payload_too_large" });
});

clause("8.10", "the deadline (not shown) is SEARCH_DEADLINE_MS, 60 seconds unless configured, at least 1 second", async () => {
  expect(loadConfig({}).search.deadlineMs).toBe(60_000);
  expect(s.app.config.search.deadlineMs).toBe(60_000);
  expect(() => loadConfig({ SEARCH_DEADLINE_MS: "999" })).toThrow("SEARCH_DEADLINE_MS");
});

clause("8.11", "no maximum number of endpoints or versions per key (the service's choice)", async () => {
  const { apiKey } = await s.app.account({ name: "prolific", limit: 5_000 });
  const statuses = await burst(15, 5, () => post(s.app, apiKey, "/v1/design-api", landmarkEndpoint));
  expect(statuses).toEqual(Array(15).fill(200));
  let current = (await jsonOf(post(s.app, apiKey, "/v1/design-api", landmarkEndpoint))).response;
  for (let i = 0; i < 6; i++) {
    const next = await post(s.app, apiKey, `/v1/design-api/${current.id}/versions`, null);
    expect(next.status).toBe(200);
    current = (await jsonOf(next)).response;
  }
  expect(current.version).toBe(7);
  const list = await jsonOf(s.app.fetch("/v1/design-api?all_versions=true", { headers: { "X-API-Key": apiKey } }));
  expect(list.length).toBe(22);
});
