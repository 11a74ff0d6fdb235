/**
 * Account standing (SPEC 8.5): a suspended or banned account's keys and
 * sessions get 403 account_suspended with the operator's reason on every
 * route, on the WebSocket upgrade and at the dashboard's sign-in; its
 * published endpoints answer 403 publisher_suspended to consumers while the
 * listing stays; and reinstating restores all of it at once, on another
 * instance too. Two instances share the database (and Redis when set), each
 * trusting its key cache for a minute: only the change feed can tell them.
 */
import { speaksOpenAi } from "../../src/openai/errors.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { changeStatus, type StatusAction } from "../../src/accounts/status.ts";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";
import { rawUpgrade } from "../helpers/websocket.ts";

interface Operation {
  method: string;
  path: string;
}

let database: TestDatabase;
let world: SearchWorld;
let first: TestApp;
let second: TestApp;
let keyOperations: Operation[];
let sessionOperations: Operation[];

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  const env = world.env({ AUTH_CACHE_TTL_MS: "60000", SIGNUPS_PER_MINUTE: "1000" });
  first = await startTestApp(database, { env, resolver: world.resolver });
  second = await startTestApp(database, { env, resolver: world.resolver, keyPrefix: first.keyPrefix });
  const doc = await jsonOf(first.fetch("/openapi.json"));
  keyOperations = [];
  sessionOperations = [];
  for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, { security?: Record<string, unknown>[] }>][]) {
    for (const [method, operation] of Object.entries(item)) {
      const op = { method: method.toUpperCase(), path };
      const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
      if (schemes.includes("ApiKeyAuth")) keyOperations.push(op);
      // Every /v1 route takes a signed-in session as well as a key; signing out stays open to a suspended owner.
      if ((schemes.includes("ApiKeyAuth") || schemes.includes("SessionCookie")) && path !== "/auth/signout") sessionOperations.push(op);
    }
  }
});
afterAll(async () => {
  await first.stop();
  await second.stop();
  await database.drop();
  world.stop();
});

const refusal = (status: string, reason: string) => ({ detail: `this account is ${status}: ${reason}`, error: "account_suspended" });

/** The refusal as a route says it: the OpenAI-compatible routes in OpenAI's shape, with the same words and code. */
function saidOn(path: string, expected: { detail: string; error: string }) {
  return speaksOpenAi(path)
    ? { error: { message: expected.detail, type: "permission_error", param: null, code: expected.error } }
    : expected;
}

async function act(app: TestApp, accountId: string, action: StatusAction, reason?: string): Promise<void> {
  await changeStatus(app.accounts, { accountId, action, reason: reason ?? null, actor: "test" });
}

const fill = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === "api_id" ? "2000000000" : `unknown-${name}`));

/** One operation as a client sends it: a WebSocket one as the upgrade it is, the rest with a JSON body where they take one. */
async function send(app: TestApp, op: Operation, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const path = fill(op.path);
  if (path.startsWith("/v1/ws/")) {
    const answer = await rawUpgrade(`${app.url.replace("http", "ws")}${path}`, headers);
    return { status: answer.status, body: answer.body ? JSON.parse(answer.body) : null };
  }
  const response = await app.fetch(path, {
    method: op.method,
    headers: { "content-type": "application/json", ...headers },
    body: ["GET", "DELETE", "HEAD"].includes(op.method) ? undefined : "{}",
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** Every operation's answer that is not the expected refusal, labelled: an empty list is the pass. */
async function misfits(app: TestApp, ops: Operation[], headers: Record<string, string>, expected: { detail: string; error: string }) {
  const wrong: unknown[] = [];
  for (const op of ops) {
    const answer = await send(app, op, headers);
    if (answer.status !== 403 || JSON.stringify(answer.body) !== JSON.stringify(saidOn(op.path, expected)))
      wrong.push({ op: `${op.method} ${op.path}`, ...answer });
  }
  return wrong;
}

const keyed = (account: TestAccount) => ({ "X-API-Key": account.apiKey });
const account = (app: TestApp, key: string) => app.fetch("/v1/account", { headers: { "X-API-Key": key } });

describe("a suspended or banned account's key", () => {
  test("the route list is not empty and includes the WebSocket", () => {
    expect(keyOperations.length).toBeGreaterThanOrEqual(10);
    expect(keyOperations.some((op) => op.path === "/v1/ws/search")).toBe(true);
  });

  test("every authenticated route and the WebSocket upgrade answer 403 account_suspended with the reason", async () => {
    const owner = await first.account({ name: "suspended", limit: 100_000 });
    expect((await account(first, owner.apiKey)).status).toBe(200);
    const reason = "limit evasion across 10 Free accounts — ticket #42";
    await act(first, owner.accountId, "suspend", reason);
    expect(await misfits(first, keyOperations, keyed(owner), refusal("suspended", reason))).toEqual([]);
    // The other instance, which had not seen the key, refuses it the same way.
    expect(await misfits(second, keyOperations, keyed(owner), refusal("suspended", reason))).toEqual([]);
  });

  test("a banned account too, with its own word and reason", async () => {
    const owner = await first.account({ name: "banned", limit: 100_000 });
    await act(first, owner.accountId, "ban", "fraudulent payments");
    expect(await misfits(first, keyOperations, keyed(owner), refusal("banned", "fraudulent payments"))).toEqual([]);
  });

  test("a wrong key for a suspended account learns nothing of it: still the one 401", async () => {
    const owner = await first.account({ name: "quiet" });
    await act(first, owner.accountId, "suspend", "private reason");
    const wrong = `${owner.apiKey.slice(0, -4)}AAAA`;
    const response = await account(first, wrong);
    expect(response.status).toBe(401);
    expect((await jsonOf(response)).error).toBe("unauthorized");
  });

  test("an account left active is untouched", async () => {
    const bystander = await first.account({ name: "bystander" });
    const suspended = await first.account({ name: "neighbour" });
    await act(first, suspended.accountId, "suspend", "abuse");
    expect((await account(first, bystander.apiKey)).status).toBe(200);
    expect((await account(second, bystander.apiKey)).status).toBe(200);
  });
});

describe("reinstating", () => {
  test("restores access at once on a second instance that had the key cached, and suspending reaches it at once too", async () => {
    const owner = await first.account({ name: "comes back" });
    // Both instances cache the key (for a minute: only the change feed can make them look again).
    expect((await account(first, owner.apiKey)).status).toBe(200);
    expect((await account(second, owner.apiKey)).status).toBe(200);

    await act(first, owner.accountId, "suspend", "under review");
    let started = performance.now();
    const refused = await waitFor(
      async () => {
        const response = await account(second, owner.apiKey);
        return response.status === 403 ? jsonOf(response) : undefined;
      },
      "the suspension seen by the second instance",
      1_000,
    );
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(refused).toEqual(refusal("suspended", "under review"));
    expect((await rawUpgrade(`${second.url.replace("http", "ws")}/v1/ws/search`, keyed(owner))).status).toBe(403);

    await act(first, owner.accountId, "reinstate");
    started = performance.now();
    await waitFor(async () => (await account(second, owner.apiKey)).status === 200, "the reinstatement seen by the second instance", 1_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((await rawUpgrade(`${second.url.replace("http", "ws")}/v1/ws/search`, keyed(owner))).status).toBe(101);
    const row = await first.db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, owner.accountId) });
    expect(row).toMatchObject({ status: "active", statusReason: null });
  });

  test("each change is in the audit trail: who, what, why", async () => {
    const owner = await first.account({ name: "audited" });
    await act(first, owner.accountId, "suspend", "first warning");
    await act(first, owner.accountId, "reinstate");
    await act(first, owner.accountId, "ban", "second offence");
    const rows = await first.db.query.accountAudit.findMany({ where: (a, { eq }) => eq(a.accountId, owner.accountId) });
    expect(rows.map((r) => [r.action, r.reason, r.actor]).sort()).toEqual(
      [
        ["suspend", "first warning", "test"],
        ["reinstate", null, "test"],
        ["ban", "second offence", "test"],
      ].sort(),
    );
  });
});

describe("the dashboard's sessions", () => {
  const post = (app: TestApp, path: string, body: unknown) =>
    app.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  async function signUp(email: string, password: string) {
    const response = await post(first, "/auth/signup", { email, password });
    expect(response.status).toBe(201);
    const body = await jsonOf(response);
    return {
      cookie: response.headers.get("set-cookie")!.split(";")[0]!,
      csrf: body.csrf_token as string,
      accountId: body.account.id as string,
    };
  }

  test("a suspended owner's session is refused with the reason on every route it could use, the socket included", async () => {
    const session = await signUp("suspended-owner@example.com", "a long password");
    const headers = { cookie: session.cookie, "x-csrf-token": session.csrf };
    expect((await first.fetch("/v1/account", { headers })).status).toBe(200);
    await act(first, session.accountId, "suspend", "chargeback");
    const expected = refusal("suspended", "chargeback");
    expect(sessionOperations.some((op) => op.path === "/auth/session")).toBe(true);
    expect(sessionOperations.some((op) => op.path === "/dashboard/api/credit")).toBe(true);
    const wrong = await misfits(
      first,
      sessionOperations.filter((op) => op.path !== "/v1/ws/search"),
      headers,
      expected,
    );
    expect(wrong).toEqual([]);
    // A browser's socket: the cookie, and the CSRF token as a subprotocol pair.
    const upgrade = await rawUpgrade(`${first.url.replace("http", "ws")}/v1/ws/search`, {
      cookie: session.cookie,
      "sec-websocket-protocol": `x-csrf-token, ${session.csrf}`,
    });
    expect(upgrade.status).toBe(403);
    expect(JSON.parse(upgrade.body)).toEqual(expected);
    // Signing out stays open.
    const out = await first.fetch("/auth/signout", { method: "POST", headers });
    expect(out.status).toBe(204);
  });

  test("signing in with the right password is refused with the reason; a wrong password still learns nothing", async () => {
    const owner = await signUp("banned-owner@example.com", "the right password");
    await act(first, owner.accountId, "ban", "spam");
    const refused = await post(first, "/auth/signin", { email: "banned-owner@example.com", password: "the right password" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(await jsonOf(refused)).toEqual(refusal("banned", "spam"));
    const wrong = await post(first, "/auth/signin", { email: "banned-owner@example.com", password: "the wrong password" });
    expect(await jsonOf(wrong)).toEqual({ detail: "wrong email or password", error: "unauthorized" });

    await act(first, owner.accountId, "reinstate");
    const back = await post(second, "/auth/signin", { email: "banned-owner@example.com", password: "the right password" });
    expect(back.status).toBe(200);
  });
});

describe("published endpoints of a suspended publisher", () => {
  test("answer 403 publisher_suspended to consumers while the listing stays; reinstating resumes the calls", async () => {
    const owner = await first.account({ name: "Publisher on probation", credit: 10 });
    const publisher = client(first, owner.apiKey);
    const draft = (await publisher.json("POST", "/v1/design-api", landmarkEndpoint)).response;
    const published = await publisher.call("POST", `/v1/design-api/${draft.id}/publish`, { public_stub: "probation-facts" });
    expect(published.status).toBe(200);
    const consumer = client(second, (await first.account({ name: "consumer", credit: 10 })).apiKey);
    const input = { landmark: "Eiffel Tower" };
    expect((await consumer.call("POST", "/v1/published-service/probation-facts", input)).status).toBe(200);
    const listed = await consumer.json("GET", "/v1/marketplace/probation-facts");

    await act(first, owner.accountId, "suspend", "copyright complaint");
    const expected = { detail: "the publisher of this endpoint is suspended", error: "publisher_suspended" };
    for (const path of ["/v1/published-service/probation-facts", "/v1/published-service/probation-facts/v1"]) {
      const refused = await consumer.call("POST", path, input);
      expect({ path, status: refused.status }).toEqual({ path, status: 403 });
      // The publisher's reason is between the publisher and the operator.
      expect(await jsonOf(refused)).toEqual(expected);
    }
    // The listing and its snapshot are kept as they were.
    expect(await consumer.json("GET", "/v1/marketplace/probation-facts")).toEqual(listed);
    const browse = await consumer.json("GET", "/v1/marketplace?per_page=100");
    expect(browse.items.map((i: { public_stub: string }) => i.public_stub)).toContain("probation-facts");

    await act(first, owner.accountId, "reinstate");
    const resumed = await consumer.call("POST", "/v1/published-service/probation-facts/v1", input);
    expect(resumed.status).toBe(200);
    expect((await jsonOf(resumed)).response).toMatchObject({ completed_year: 1889 });
  });
});
