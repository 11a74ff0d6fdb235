/**
 * The dashboard's server side: sign-up and sign-in, the session cookie and
 * its CSRF token, session access to the same /v1 API, sign-in limits, the
 * credit stand-in, and that one owner's session never sees another's data.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { runCli } from "../helpers/process.ts";
import { openSocket, rawUpgrade } from "../helpers/websocket.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";

let database: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  // One test address signs up many owners: the per-address limits are raised; the per-email one stays 5.
  app = await startTestApp(database, { env: { SEARCH_PROVIDERS: "local", SIGNUPS_PER_MINUTE: "1000", SIGNINS_PER_MINUTE: "20" } });
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

interface Session {
  cookie: string;
  csrf: string;
  accountId: string;
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.fetch(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

async function signUp(email: string, password = "correct horse battery"): Promise<Session> {
  const response = await post("/auth/signup", { email, password });
  expect(response.status).toBe(201);
  const body = await jsonOf(response);
  return { cookie: response.headers.get("set-cookie")!.split(";")[0]!, csrf: body.csrf_token, accountId: body.account.id };
}

const as = (session: Session, extra: Record<string, string> = {}) => ({
  headers: { cookie: session.cookie, "x-csrf-token": session.csrf, "content-type": "application/json", ...extra },
});

describe("sign-up and sign-in", () => {
  test("sign-up creates an account, sets an HttpOnly SameSite cookie, and returns the CSRF token", async () => {
    const response = await post("/auth/signup", { email: "Ada@Example.com", password: "correct horse battery", name: "Ada" });
    expect(response.status).toBe(201);
    const cookie = response.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^as_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const body = await jsonOf(response);
    expect(body).toMatchObject({ email: "ada@example.com", account: { name: "Ada", plan: "free", key_id: null } });
    expect(body.csrf_token.length).toBeGreaterThan(20);
    const session = await jsonOf(app.fetch("/auth/session", { headers: { cookie: cookie.split(";")[0]! } }));
    expect(session).toEqual(body);
  });

  test("the password is stored as an argon2id hash", async () => {
    await signUp("hash@example.com", "a long enough secret");
    const row = await app.db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.email, "hash@example.com") });
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row!.passwordHash).not.toContain("a long enough secret");
  });

  test("rules: a valid email, 10+ characters, one account per email (422, 422, 409)", async () => {
    expect(await jsonOf(post("/auth/signup", { email: "not-an-email", password: "long enough pw" }))).toEqual({
      detail: [{ loc: ["body", "email"], msg: "enter a valid email address", type: "value_error" }],
    });
    expect(await jsonOf(post("/auth/signup", { email: "short@example.com", password: "short" }))).toEqual({
      detail: [{ loc: ["body", "password"], msg: "String should have at least 10 characters", type: "string_too_short" }],
    });
    await signUp("taken@example.com");
    const again = await post("/auth/signup", { email: "TAKEN@example.com", password: "another long one" });
    expect(again.status).toBe(409);
    expect(await jsonOf(again)).toEqual({ detail: "an account with this email already exists", error: "conflict" });
  });

  test("sign-in: right password works; wrong password and unknown email get the same 401", async () => {
    await signUp("signin@example.com", "the right password");
    const ok = await post("/auth/signin", { email: "signin@example.com", password: "the right password" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("set-cookie")).toContain("as_session=");
    const wrong = await jsonOf(post("/auth/signin", { email: "signin@example.com", password: "the wrong password" }));
    const unknown = await jsonOf(post("/auth/signin", { email: "nobody@example.com", password: "the wrong password" }));
    expect(wrong).toEqual({ detail: "wrong email or password", error: "unauthorized" });
    expect(unknown).toEqual(wrong);
  });

  test("sign-in is rate limited per email: the 6th attempt in a minute is 429 with Retry-After", async () => {
    await signUp("brute@example.com", "the right password");
    for (let i = 0; i < 5; i++)
      expect((await post("/auth/signin", { email: "brute@example.com", password: `guess number ${i}` })).status).toBe(401);
    const limited = await post("/auth/signin", { email: "brute@example.com", password: "the right password" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await jsonOf(limited)).detail).toMatch(/^too many sign-in attempts, try again in \d+ seconds?$/);
  });

  test("a sign-in posted from another site is refused", async () => {
    await signUp("origin@example.com", "the right password");
    const response = await post(
      "/auth/signin",
      { email: "origin@example.com", password: "the right password" },
      { origin: "https://evil.example" },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  test("sign-out ends the session (it needs the CSRF token)", async () => {
    const session = await signUp("signout@example.com");
    expect((await post("/auth/signout", {}, { cookie: session.cookie })).status).toBe(401);
    expect((await app.fetch("/v1/account", as(session))).status).toBe(200);
    const out = await post("/auth/signout", {}, { cookie: session.cookie, "x-csrf-token": session.csrf });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await app.fetch("/v1/account", as(session))).status).toBe(401);
    expect((await app.fetch("/auth/session", { headers: { cookie: session.cookie } })).status).toBe(401);
  });
});

describe("the session uses the /v1 API", () => {
  test("with the cookie and the CSRF header; without the header, with a wrong one, or from another origin: 401", async () => {
    const session = await signUp("api@example.com");
    const account = await jsonOf(app.fetch("/v1/account", as(session)));
    expect(account).toMatchObject({ id: session.accountId, key_id: null, key_prefix: null, plan: "free" });
    expect((await app.fetch("/v1/account", { headers: { cookie: session.cookie } })).status).toBe(401);
    expect((await app.fetch("/v1/account", { headers: { cookie: session.cookie, "x-csrf-token": "x".repeat(32) } })).status).toBe(401);
    expect((await app.fetch("/v1/account", as(session, { origin: "https://evil.example" }))).status).toBe(401);
    expect((await app.fetch("/v1/account", as(session, { origin: app.url }))).status).toBe(200);
  });

  test("a session's research counts against the plan like a key; browsing its own things has a dashboard allowance", async () => {
    const session = await signUp("bucket@example.com");
    const browsing: number[] = [];
    for (let i = 0; i < 30; i++) browsing.push((await app.fetch("/v1/keys", as(session))).status);
    expect(browsing.every((s) => s === 200)).toBe(true);
    const research: number[] = [];
    for (let i = 0; i < 11; i++)
      research.push((await app.fetch("/v1/search", { method: "POST", ...as(session), body: JSON.stringify({ prompt: "test" }) })).status);
    expect(research.filter((s) => s === 200).length).toBe(10);
    expect(research.at(-1)).toBe(429);
  });

  test("the WebSocket accepts a session with the CSRF subprotocol from its own origin, and refuses another origin", async () => {
    const session = await signUp("socket@example.com");
    const ws = `${app.url.replace("http", "ws")}/v1/ws/search`;
    const run = await openSocket(ws, {
      headers: { cookie: session.cookie, origin: app.url },
      protocols: ["x-csrf-token", session.csrf],
      send: JSON.stringify({ prompt: "test" }),
    });
    expect(run.protocol).toBe("x-csrf-token");
    expect(run.messages[0]?.type).toBe("context");
    expect(run.closeCode).toBe(1000);
    const foreign = await rawUpgrade(ws, {
      cookie: session.cookie,
      origin: "https://evil.example",
      "sec-websocket-protocol": `x-csrf-token, ${session.csrf}`,
    });
    expect(foreign.status).toBe(401);
    const noToken = await rawUpgrade(ws, { cookie: session.cookie, origin: app.url });
    expect(noToken.status).toBe(401);
  });
});

describe("isolation", () => {
  test("one owner's session never sees another's keys, endpoints or usage", async () => {
    const alice = await signUp("alice@example.com");
    const bob = await signUp("bob@example.com");
    const key = await jsonOf(app.fetch("/v1/keys", { method: "POST", ...as(alice), body: JSON.stringify({ name: "alice key" }) }));
    const endpoint = (
      await jsonOf(
        app.fetch("/v1/design-api", {
          method: "POST",
          ...as(alice),
          body: JSON.stringify({ original_prompt: "Given a company name, find its CEO" }),
        }),
      )
    ).response;
    expect((await jsonOf(app.fetch("/v1/keys", as(bob)))).keys).toEqual([]);
    expect((await app.fetch(`/v1/keys/${key.id}`, as(bob))).status).toBe(404);
    expect(await jsonOf(app.fetch("/v1/design-api", as(bob)))).toEqual([]);
    expect((await app.fetch(`/v1/design-api/${endpoint.id}`, as(bob))).status).toBe(404);
    // Bob's usage, his dashboard's own calls included, holds only his own calls: none of Alice's POSTs.
    const routes = (await jsonOf(app.fetch("/v1/usage?include_dashboard=true", as(bob)))).recent.map((r: { route: string }) => r.route);
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter((r: string) => r.startsWith("POST"))).toEqual([]);
  });
});

describe("the credit stand-in", () => {
  test("a signed-in owner adds credit and becomes Pro at once; an API key cannot use it", async () => {
    const session = await signUp("credit@example.com");
    const response = await app.fetch("/dashboard/api/credit", { method: "POST", ...as(session), body: JSON.stringify({ amount: 25 }) });
    expect(response.status).toBe(200);
    expect(await jsonOf(response)).toMatchObject({ plan: "pro", balance: 25 });
    expect((await jsonOf(app.fetch("/v1/account", as(session)))).plan).toBe("pro");
    expect(
      (await app.fetch("/dashboard/api/credit", { method: "POST", ...as(session), body: JSON.stringify({ amount: -5 }) })).status,
    ).toBe(422);
    const { apiKey } = await app.account({ name: "key only" });
    const byKey = await app.fetch("/dashboard/api/credit", {
      method: "POST",
      headers: { "X-API-Key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ amount: 25 }),
    });
    expect(byKey.status).toBe(403);
    const json = { "content-type": "application/json" };
    expect((await app.fetch("/dashboard/api/credit", { method: "POST", headers: json, body: JSON.stringify({ amount: 25 }) })).status).toBe(
      401,
    );
    expect(
      (
        await app.fetch("/dashboard/api/credit", {
          method: "POST",
          headers: { ...json, cookie: session.cookie },
          body: JSON.stringify({ amount: 25 }),
        })
      ).status,
    ).toBe(401);
    expect((await jsonOf(app.fetch("/v1/account", as(session)))).balance).toBe(25);
    expect((await app.fetch("/auth/session")).status).toBe(401);
  });
});

describe("the CLI sets a password on an account it created", () => {
  test.skipIf(!TEST_DATABASE_URL)("accounts password reads the password from standard input; the owner can then sign in", async () => {
    const env = { DATABASE_URL: database.url! };
    const created = JSON.parse((await runCli(["accounts", "create", "--name", "cli owner", "--json"], env)).stdout);
    const child = Bun.spawn(
      [process.execPath, "src/cli.ts", "accounts", "password", "--account", created.account_id, "--email", "cli@example.com"],
      {
        cwd: new URL("../..", import.meta.url).pathname,
        env: { PATH: process.env.PATH ?? "", ...env },
        stdin: new TextEncoder().encode("a password from stdin\n"),
        stdout: "pipe",
      },
    );
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stdout).text()).toContain("can now sign in to the dashboard as cli@example.com");
    const signedIn = await post("/auth/signin", { email: "cli@example.com", password: "a password from stdin" });
    expect(signedIn.status).toBe(200);
    expect((await jsonOf(signedIn)).account.id).toBe(created.account_id);
  });
});

describe("the root leads to the dashboard", () => {
  test("GET / is a redirect to /dashboard, which serves the page", async () => {
    const root = await app.fetch("/", { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/dashboard");
    const page = await app.fetch("/", { redirect: "follow" });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
  });
});
