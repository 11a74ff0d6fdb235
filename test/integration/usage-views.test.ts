/**
 * GET /v1/usage as the dashboard's charts and filters read it: errors by
 * status class and latency percentiles per day and in totals, the latency
 * and key of each recent call and what it ran (an endpoint version, a
 * listing's public stub), and filters by key, route and endpoint that
 * narrow days, totals and recent alike. Another account's key id narrows to
 * nothing; hostile values are a 422, never a 500.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Caller } from "../../src/caller.ts";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

interface Day {
  date: string;
  calls: number;
  client_errors: number;
  server_errors: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
}
interface Recent {
  route: string;
  status: number;
  api_id: number | null;
  published_id: string | null;
  public_stub: string | null;
  key_id: string | null;
  latency_ms: number | null;
  request_id: string | null;
}
interface Report {
  days: Day[];
  totals: Omit<Day, "date"> & { tokens: number; dashboard_calls: number };
  routes: { route: string; calls: number }[];
  recent: Recent[];
}

const SLOW_MS = 400;

let world: SearchWorld;
let database: TestDatabase;
let app: TestApp;
let owner: TestAccount;
let second: { id: string; apiKey: string };
let other: TestAccount;
let endpoint: { id: number; stub: string };
let publicStub: string;

const usage = async (query = "", apiKey = owner.apiKey): Promise<Report> => {
  const response = await app.fetch(`/v1/usage${query}`, { headers: { "x-api-key": apiKey } });
  expect(response.status).toBe(200);
  return (await response.json()) as Report;
};
const callerOf = (account: TestAccount): Caller => ({
  accountId: account.accountId,
  accountName: "views",
  keyId: account.keyId,
  keyPrefix: "sk_test",
  balanceMicros: 0,
  customRateLimit: null,
});
const search = (apiKey: string, body: unknown, requestId: string) =>
  app.fetch("/v1/search", {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, { env: world.env({ PRICE_PER_MILLION_TOKENS: "100" }), resolver: world.resolver });
  owner = await app.account({ name: "owner", credit: 10 });
  other = await app.account({ name: "other" });
  const made = await jsonOf(client(app, owner.apiKey).call("POST", "/v1/keys", { name: "second" }));
  second = { id: made.id, apiKey: made.api_key };
  world.slowOver("viaduct", SLOW_MS);

  // The owner's first key: a search, a refused search (4xx), its own endpoint run, and its listing run.
  expect((await search(owner.apiKey, { prompt: "river bridge cost" }, "req_views_search")).status).toBe(200);
  expect((await search(owner.apiKey, { prompt: 42 }, "req_views_refused")).status).toBe(422);
  const owned = client(app, owner.apiKey);
  endpoint = (await owned.json("POST", "/v1/design-api", landmarkEndpoint)).response;
  expect((await owned.call("POST", `/v1/user-defined-service/${endpoint.stub}`, { landmark: "Eiffel Tower" })).status).toBe(200);
  const listing = await owned.json("POST", `/v1/design-api/${endpoint.id}/publish`, { public_stub: "views-landmarks" });
  publicStub = listing.public_stub;
  expect((await owned.call("POST", `/v1/published-service/${publicStub}`, { landmark: "Eiffel Tower" })).status).toBe(200);
  // A server error, as a failed provider would end a call (no world answers 5xx on demand): through the real recorder.
  app.usage.record({
    caller: callerOf(owner),
    route: "POST /v1/search",
    requestId: "req_views_failed",
    status: 502,
    tokens: 0,
    at: new Date(),
    latencyMs: 30,
  });
  // The second key: one slow search.
  expect((await search(second.apiKey, { prompt: "river bridge viaduct cost" }, "req_views_slow")).status).toBe(200);
  // Another account's call with its own key.
  expect((await client(app, other.apiKey).call("GET", "/v1/keys")).status).toBe(200);
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

describe("errors by status class, per day and in totals", () => {
  test("a 4xx is a client error and a 5xx a server error, on today's row and in the totals", async () => {
    const report = await usage("?route=POST%20/v1/search");
    expect(report.totals).toMatchObject({ calls: 4, client_errors: 1, server_errors: 1 });
    const today = report.days.at(-1)!;
    expect(today).toMatchObject({ calls: 4, client_errors: 1, server_errors: 1 });
    expect(report.days.slice(0, -1).every((day) => day.client_errors === 0 && day.server_errors === 0)).toBe(true);
  });
});

describe("latency", () => {
  test("each call records how long it took: the slow search at least the providers' delay", async () => {
    const report = await usage("?route=POST%20/v1/search");
    const slow = report.recent.find((call) => call.request_id === "req_views_slow")!;
    expect(slow.latency_ms).toBeGreaterThanOrEqual(SLOW_MS);
    expect(Number.isInteger(slow.latency_ms)).toBe(true);
    const refused = report.recent.find((call) => call.request_id === "req_views_refused")!;
    expect(Number.isInteger(refused.latency_ms)).toBe(true);
    expect(refused.latency_ms!).toBeGreaterThanOrEqual(0);
  });

  test("p50 and p95 per day and in totals are integers, p95 at least p50, the slow call pulling p95 up", async () => {
    const report = await usage("?route=POST%20/v1/search");
    const { latency_p50_ms: p50, latency_p95_ms: p95 } = report.totals;
    expect(Number.isInteger(p50)).toBe(true);
    expect(Number.isInteger(p95)).toBe(true);
    expect(p95!).toBeGreaterThanOrEqual(p50!);
    expect(p95!).toBeGreaterThanOrEqual(SLOW_MS * 0.8);
    expect(report.days.at(-1)).toMatchObject({ latency_p50_ms: p50, latency_p95_ms: p95 });
    expect(report.days[0]).toMatchObject({ latency_p50_ms: null, latency_p95_ms: null });
  });

  test("records written before latency was kept are null, and leave the percentiles null when they are all there is", async () => {
    const old = await app.account({ name: "old records" });
    await app.db.execute(
      sql`insert into usage_records (account_id, api_key_id, route, status, tokens) values (${old.accountId}, ${old.keyId}, 'POST /v1/search', 200, 5)`,
    );
    // Only the old record is in the window: the report asked for is itself recorded after it answers.
    const report = await usage("?route=POST%20/v1/search", old.apiKey);
    expect(report.totals).toMatchObject({ calls: 1, latency_p50_ms: null, latency_p95_ms: null });
    expect(report.recent).toEqual([expect.objectContaining({ latency_ms: null, key_id: old.keyId })]);
  });
});

describe("recent calls: their key, and what they ran", () => {
  test("a key's call names the key; an endpoint run its api_id; a listing run its listing and public stub", async () => {
    const report = await usage();
    const byRequest = (id: string) => report.recent.find((call) => call.request_id === id)!;
    expect(byRequest("req_views_slow").key_id).toBe(second.id);
    expect(byRequest("req_views_search")).toMatchObject({ key_id: owner.keyId, api_id: null, public_stub: null, published_id: null });
    const run = report.recent.find((call) => call.route === "POST /v1/user-defined-service/:api_stub")!;
    expect(run).toMatchObject({ api_id: endpoint.id, key_id: owner.keyId, public_stub: null });
    const listed = report.recent.find((call) => call.route === "POST /v1/published-service/:api_stub")!;
    expect(listed.public_stub).toBe(publicStub);
    expect(listed.published_id).toMatch(/\S/);
  });
});

describe("filters narrow days, totals and recent", () => {
  test("key_id: only that key's calls", async () => {
    const report = await usage(`?key_id=${second.id}`);
    expect(report.totals).toMatchObject({ calls: 1, client_errors: 0, server_errors: 0 });
    expect(report.days.reduce((sum, day) => sum + day.calls, 0)).toBe(1);
    expect(report.recent.map((call) => call.request_id)).toEqual(["req_views_slow"]);
    expect(report.totals.latency_p50_ms!).toBeGreaterThanOrEqual(SLOW_MS);
    expect(report.routes).toEqual([{ route: "POST /v1/search", calls: 1 }]);
    const first = await usage(`?key_id=${owner.keyId}`);
    expect(first.recent.every((call) => call.key_id === owner.keyId)).toBe(true);
    expect(first.totals.client_errors).toBe(1);
  });

  test("route: only that route's calls; routes lists what it may be set to, with their calls", async () => {
    const all = await usage();
    const searches = all.routes.find((r) => r.route === "POST /v1/search");
    expect(searches).toEqual({ route: "POST /v1/search", calls: 4 });
    expect(all.routes.map((r) => r.route)).toContain("POST /v1/published-service/:api_stub");
    const report = await usage(`?route=${encodeURIComponent("POST /v1/published-service/:api_stub")}`);
    expect(report.totals.calls).toBe(1);
    expect(report.recent.map((call) => call.public_stub)).toEqual([publicStub]);
    // The route list is not narrowed by the route chosen (it is the filter's options).
    expect(report.routes.length).toBe(all.routes.length);
  });

  test("api_id: only that endpoint version's runs", async () => {
    const report = await usage(`?api_id=${endpoint.id}`);
    expect(report.totals.calls).toBe(1);
    expect(report.recent).toEqual([expect.objectContaining({ api_id: endpoint.id, route: "POST /v1/user-defined-service/:api_stub" })]);
    expect((await usage("?api_id=2147483647")).totals.calls).toBe(0);
  });

  test("another account's key id, or an unknown one, narrows to nothing and tells nothing of it", async () => {
    for (const id of [other.keyId, "key_does_not_exist"]) {
      const report = await usage(`?key_id=${id}`);
      expect(report.totals).toMatchObject({ calls: 0, client_errors: 0, server_errors: 0, latency_p50_ms: null, dashboard_calls: 0 });
      expect(report.recent).toEqual([]);
      expect(report.routes).toEqual([]);
    }
    // And the other account sees none of the owner's calls through the owner's key id.
    const theirs = await usage(`?key_id=${owner.keyId}`, other.apiKey);
    expect(theirs.totals.calls).toBe(0);
    expect(theirs.recent).toEqual([]);
  });
});

describe("hostile filter values are a 422, never a 500", () => {
  const cases: [string, string][] = [
    ["a NUL in key_id", "key_id=key%00x"],
    ["an overlong key_id", `key_id=${"k".repeat(65)}`],
    ["an empty key_id", "key_id="],
    ["a key_id with a quote", "key_id=key'--"],
    ["a NUL in route", "route=POST%20/v1/search%00"],
    ["a newline in route", "route=POST%20/v1/search%0A"],
    ["an overlong route", `route=${"a".repeat(201)}`],
    ["api_id not a number", "api_id=abc"],
    ["api_id zero", "api_id=0"],
    ["api_id past an integer", "api_id=99999999999"],
    ["api_id with a NUL", "api_id=1%00"],
  ];
  for (const [name, query] of cases)
    test(name, async () => {
      const response = await app.fetch(`/v1/usage?${query}`, { headers: { "x-api-key": owner.apiKey } });
      expect(response.status).toBe(422);
      const { detail } = (await response.json()) as { detail: { loc: unknown[] }[] };
      expect(detail.length).toBeGreaterThan(0);
    });
});
