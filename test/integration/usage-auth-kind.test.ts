/**
 * GET /v1/usage counts the account's API usage: its keys' calls and the
 * research its dashboard sessions run. The dashboard's own browsing (a
 * session reading keys, listings, its balance, adding credit) is counted
 * apart (totals.dashboard_calls) and listed only with include_dashboard.
 * Before, opening the usage page raised Calls by one each time and filled
 * Recent calls with the dashboard's own requests.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let world: SearchWorld;
let database: TestDatabase;
let app: TestApp;
let session: { cookie: string; csrf: string; accountId: string };
let apiKey: string;

interface Report {
  totals: { calls: number; tokens: number; cost: number; dashboard_calls: number };
  days: { calls: number }[];
  recent: { route: string; auth: "key" | "session"; tokens: number; cost: number; request_id: string | null }[];
}

const asSession = (init: RequestInit = {}) => ({
  ...init,
  headers: { cookie: session.cookie, "x-csrf-token": session.csrf, "content-type": "application/json", ...(init.headers ?? {}) },
});
const usage = async (query = ""): Promise<Report> => {
  const response = await app.fetch(`/v1/usage${query}`, asSession());
  expect(response.status).toBe(200);
  return (await response.json()) as Report;
};

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, { env: world.env({ PRICE_PER_MILLION_TOKENS: "100" }), resolver: world.resolver });
  const signup = await app.fetch("/auth/signup", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "owner@example.com", password: "correct horse battery" }),
  });
  expect(signup.status).toBe(201);
  const body = await jsonOf(signup);
  session = { cookie: signup.headers.get("set-cookie")!.split(";")[0]!, csrf: body.csrf_token, accountId: body.account.id };
  // The dashboard's own calls: adding credit (the account is Pro, so research is billed) and making a key.
  expect((await app.fetch("/dashboard/api/credit", asSession({ method: "POST", body: JSON.stringify({ amount: 10 }) }))).status).toBe(200);
  const key = await app.fetch("/v1/keys", asSession({ method: "POST", body: JSON.stringify({ name: "agent" }) }));
  expect(key.status).toBe(201);
  apiKey = (await jsonOf(key)).api_key;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

describe("the dashboard's own calls are not the account's API usage", () => {
  test("a session browsing (keys, listings, this report) moves neither calls nor recent calls; they are counted apart", async () => {
    const first = await usage();
    for (const path of ["/v1/keys", "/v1/marketplace", "/v1/account", "/v1/keys"])
      expect((await app.fetch(path, asSession())).status).toBe(200);
    const second = await usage();
    expect(second.totals.calls).toBe(first.totals.calls);
    expect(second.days.reduce((sum, day) => sum + day.calls, 0)).toBe(first.totals.calls);
    expect(second.recent.filter((call) => call.auth === "session")).toEqual([]);
    // Before the first report: the credit and the new key. Since: the first report (recorded once answered) and four reads.
    expect(first.totals.dashboard_calls).toBe(2);
    expect(second.totals.dashboard_calls).toBe(first.totals.dashboard_calls + 5);

    const all = await usage("?include_dashboard=true");
    expect(all.totals.calls).toBe(second.totals.calls + second.totals.dashboard_calls + 1);
    const routes = all.recent.filter((call) => call.auth === "session").map((call) => call.route);
    expect(routes).toContain("GET /v1/keys");
    expect(routes).toContain("GET /v1/marketplace");
    expect(routes).toContain("POST /dashboard/api/credit");
    expect((await app.fetch("/v1/usage?include_dashboard=maybe", asSession())).status).toBe(422);
  });

  test("a key's calls count, marked key, whatever they are", async () => {
    const before = await usage();
    const response = await app.fetch("/v1/keys", { headers: { "x-api-key": apiKey, "x-request-id": "req_auth_kind_key" } });
    expect(response.status).toBe(200);
    const after = await usage();
    expect(after.totals.calls).toBe(before.totals.calls + 1);
    expect(after.recent[0]).toMatchObject({ route: "GET /v1/keys", auth: "key", request_id: "req_auth_kind_key" });
  });

  test("research a session runs (the playground) is usage: counted, listed as session, billed and debited", async () => {
    const before = await usage();
    const balanceBefore = (await jsonOf(app.fetch("/v1/account", asSession()))).balance;
    const response = await app.fetch(
      "/v1/search",
      asSession({
        method: "POST",
        headers: { "x-request-id": "req_auth_kind_play" },
        body: JSON.stringify({ prompt: "river bridge cost" }),
      }),
    );
    expect(response.status).toBe(200);
    const tokens = (await jsonOf(response)).info.token_usage as number;
    expect(tokens).toBeGreaterThan(0);
    const after = await usage();
    expect(after.totals.calls).toBe(before.totals.calls + 1);
    expect(after.totals.tokens).toBe(before.totals.tokens + tokens);
    expect(after.totals.cost).toBeCloseTo(before.totals.cost + (tokens * 100) / 1_000_000, 6);
    expect(after.recent[0]).toMatchObject({ route: "POST /v1/search", auth: "session", tokens, request_id: "req_auth_kind_play" });
    const balanceAfter = (await jsonOf(app.fetch("/v1/account", asSession()))).balance;
    expect(balanceAfter).toBeCloseTo(balanceBefore - (tokens * 100) / 1_000_000, 6);
  });
});
