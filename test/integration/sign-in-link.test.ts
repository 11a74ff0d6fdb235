/**
 * One-time sign-in links, on a clock the test moves: a link sets the
 * account's email and password and signs in, once; a used, expired, wrong or
 * malformed token gets one and the same 401; a mistake in the email or
 * password does not spend the link; only the token's hash is stored; claim
 * attempts are limited per client address.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { signInLinks } from "../../db/schema.ts";
import { mintSignInLink, SIGN_IN_LINK_LIFETIME_MS } from "../../src/accounts/sign-in-links.ts";
import { changeStatus } from "../../src/accounts/status.ts";
import { ManualClock } from "../../src/clock.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";
import { runCli } from "../helpers/process.ts";

const clock = new ManualClock(Date.UTC(2026, 3, 1));
let database: TestDatabase;
let app: TestApp;

const SIGNINS_PER_MINUTE = 20;

beforeAll(async () => {
  database = await freshDatabase();
  // Each test claims from an address of its own (the header is trusted here), so their attempts do not add up.
  app = await startTestApp(database, { clock, env: { SIGNINS_PER_MINUTE: String(SIGNINS_PER_MINUTE), CLIENT_IP_HEADER: "x-test-client" } });
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

let addresses = 0;
const claim = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.fetch("/auth/claim", {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-client": `10.0.0.${++addresses}`, ...headers },
    body: JSON.stringify(body),
  });

async function freshLink(): Promise<{ accountId: string; token: string }> {
  const account = await app.account({ name: "local" });
  const link = await mintSignInLink(app.accounts, account.accountId);
  return { accountId: account.accountId, token: link.token };
}

/** A used or expired link names its account, and the operator's command has its id; a made-up token names none. */
const refusedBody = (accountId?: string) => ({
  detail: `this sign-in link is not valid: it was already used, has expired or is incomplete. If you already set your email and password with it, sign in with them; otherwise ask the operator for a new link, which they make with: ${
    accountId
      ? `npm run cli -- accounts sign-in-link --account ${accountId}`
      : "npm run cli -- accounts sign-in-link --account <account id> (npm run cli -- accounts list shows the id)"
  }`,
  error: "unauthorized",
  ...(accountId ? { account_id: accountId } : {}),
});

async function expectRefused(response: Response, accountId?: string) {
  expect(response.status).toBe(401);
  expect(response.headers.get("set-cookie")).toBeNull();
  const body = await jsonOf(response);
  expect(body).toEqual(refusedBody(accountId));
  expect(body.detail).not.toContain("`");
}

const accountRow = (id: string) => app.db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, id) });

describe("a sign-in link", () => {
  test("sets the email and password and signs in; the session works and the password signs in later", async () => {
    const { accountId, token } = await freshLink();
    const response = await claim({ token, email: "Owner@Example.com", password: "a long enough password" });
    expect(response.status).toBe(200);
    const cookie = response.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^as_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const body = await jsonOf(response);
    expect(body).toMatchObject({ email: "owner@example.com", account: { id: accountId, name: "local" } });

    const session = { cookie: cookie.split(";")[0]!, "x-csrf-token": body.csrf_token };
    const account = await app.fetch("/v1/account", { headers: session });
    expect(account.status).toBe(200);
    expect((await jsonOf(account)).id).toBe(accountId);

    const row = await accountRow(accountId);
    expect(row!.email).toBe("owner@example.com");
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);
    const signedIn = await app.fetch("/auth/signin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", password: "a long enough password" }),
    });
    expect(signedIn.status).toBe(200);
  });

  test("works once: a second use is refused and changes nothing, while the first session goes on", async () => {
    const { accountId, token } = await freshLink();
    const first = await claim({ token, email: "once@example.com", password: "the first password" });
    expect(first.status).toBe(200);
    const session = { cookie: first.headers.get("set-cookie")!.split(";")[0]!, "x-csrf-token": (await jsonOf(first)).csrf_token };
    await expectRefused(await claim({ token, email: "takeover@example.com", password: "the second password" }), accountId);
    const row = await accountRow(accountId);
    expect(row!.email).toBe("once@example.com");
    expect(await Bun.password.verify("the first password", row!.passwordHash!)).toBe(true);
    expect((await app.fetch("/v1/account", { headers: session })).status).toBe(200);
    const used = await app.db.select().from(signInLinks).where(eq(signInLinks.accountId, accountId));
    expect(used).toHaveLength(1);
    expect(used[0]!.usedAt?.getTime()).toBe(clock.now());
  });

  test("expires 15 minutes after it is made", async () => {
    const early = await freshLink();
    const late = await freshLink();
    clock.advance(SIGN_IN_LINK_LIFETIME_MS - 1);
    expect((await claim({ token: early.token, email: "early@example.com", password: "just in time!" })).status).toBe(200);
    clock.advance(1);
    await expectRefused(await claim({ token: late.token, email: "late@example.com", password: "one moment too late" }), late.accountId);
    expect((await accountRow(late.accountId))!.email).toBeNull();
  });

  test("a wrong, malformed or absent token gets the same refusal as a used one, naming no account", async () => {
    await freshLink();
    const wrong = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    for (const token of [wrong, "short", "", "x".repeat(200), `${wrong.slice(0, 42)}!`])
      await expectRefused(await claim({ token, email: "guess@example.com", password: "a long enough guess" }));
  });

  test("is stored only as a SHA-256: the table holds no token", async () => {
    const { accountId, token } = await freshLink();
    const rows = await app.db.select().from(signInLinks).where(eq(signInLinks.accountId, accountId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    const dump = JSON.stringify(await app.db.select().from(signInLinks));
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(0, 20));
    expect(rows[0]!.expiresAt.getTime()).toBe(clock.now() + 15 * 60_000);
  });
});

describe("a mistake does not spend the link", () => {
  test("a bad email or a short password is a 422; the link then still works", async () => {
    const { accountId, token } = await freshLink();
    const badEmail = await claim({ token, email: "not-an-email", password: "a long enough password" });
    expect(badEmail.status).toBe(422);
    expect(await jsonOf(badEmail)).toEqual({
      detail: [{ loc: ["body", "email"], msg: "enter a valid email address", type: "value_error" }],
    });
    const short = await claim({ token, email: "fine@example.com", password: "short" });
    expect(short.status).toBe(422);
    expect((await jsonOf(short)).detail[0].loc).toEqual(["body", "password"]);
    const missing = await claim({ token, email: "fine@example.com" });
    expect(missing.status).toBe(422);
    expect((await accountRow(accountId))!.email).toBeNull();
    expect((await claim({ token, email: "fine@example.com", password: "a long enough password" })).status).toBe(200);
  });

  test("an email another account uses is a 409, and the link still works with another", async () => {
    const { token: taken } = await freshLink();
    expect((await claim({ token: taken, email: "taken@example.com", password: "a long enough password" })).status).toBe(200);
    const { accountId, token } = await freshLink();
    const conflict = await claim({ token, email: "TAKEN@example.com", password: "a long enough password" });
    expect(conflict.status).toBe(409);
    expect(await jsonOf(conflict)).toEqual({ detail: "another account already uses this email", error: "conflict" });
    const [row] = await app.db.select().from(signInLinks).where(eq(signInLinks.accountId, accountId));
    expect(row!.usedAt).toBeNull();
    expect((await claim({ token, email: "other@example.com", password: "a long enough password" })).status).toBe(200);
  });

  test("a suspended account's link is a 403 with the reason, and stays unspent for after reinstatement", async () => {
    const { accountId, token } = await freshLink();
    await changeStatus(app.accounts, { accountId, action: "suspend", reason: "checking a report", actor: "test" });
    const refused = await claim({ token, email: "suspended@example.com", password: "a long enough password" });
    expect(refused.status).toBe(403);
    expect(await jsonOf(refused)).toEqual({ detail: "this account is suspended: checking a report", error: "account_suspended" });
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect((await accountRow(accountId))!.email).toBeNull();
    await changeStatus(app.accounts, { accountId, action: "reinstate", actor: "test" });
    expect((await claim({ token, email: "suspended@example.com", password: "a long enough password" })).status).toBe(200);
  });

  test("a claim posted from another site is refused (403) and the link is not spent", async () => {
    const { token } = await freshLink();
    const response = await claim(
      { token, email: "origin@example.com", password: "a long enough password" },
      { origin: "https://evil.example" },
    );
    expect(response.status).toBe(403);
    expect((await claim({ token, email: "origin@example.com", password: "a long enough password" })).status).toBe(200);
  });
});

describe("claim attempts are limited per client address", () => {
  test(`the ${SIGNINS_PER_MINUTE + 1}st attempt in a minute from one address is a 429, even with a good link; another address is not held up`, async () => {
    const { token } = await freshLink();
    const from = { "x-test-client": "192.0.2.7" };
    for (let i = 0; i < SIGNINS_PER_MINUTE; i++)
      expect((await claim({ token: `guess-${i}`, email: "brute@example.com", password: "a long enough guess" }, from)).status).toBe(401);
    const limited = await claim({ token, email: "brute@example.com", password: "a long enough password" }, from);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await jsonOf(limited)).detail).toMatch(/^too many sign-in attempts, try again in \d+ seconds?$/);
    expect((await claim({ token, email: "brute@example.com", password: "a long enough password" })).status).toBe(200);
  });
});

describe("the CLI mints a fresh link", () => {
  test.skipIf(!TEST_DATABASE_URL)(
    "accounts sign-in-link prints a link on PUBLIC_BASE_URL (or the local address) that signs in",
    async () => {
      const account = await app.account({ name: "local" });
      const env = { DATABASE_URL: database.url!, PUBLIC_BASE_URL: "https://search.example.com/" };
      const minted = await runCli(["accounts", "sign-in-link", "--account", account.accountId], env);
      expect(minted.code).toBe(0);
      const [, token] = /^ {2}https:\/\/search\.example\.com\/dashboard\/claim#([A-Za-z0-9_-]{43})$/m.exec(minted.stdout)!;
      // The CLI runs on the system clock; the link is checked against the app's.
      clock.advance(Date.now() - clock.now());
      expect((await claim({ token, email: "cli-link@example.com", password: "a long enough password" })).status).toBe(200);
      const local = await runCli(["accounts", "sign-in-link", "--account", account.accountId], {
        DATABASE_URL: database.url!,
        PORT: "4123",
      });
      expect(local.stdout).toMatch(/^ {2}http:\/\/localhost:4123\/dashboard\/claim#[A-Za-z0-9_-]{43}$/m);
      const unknown = await runCli(["accounts", "sign-in-link", "--account", "acct_01m81vxjpee6ta28c6edpbkmfh"], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("account not found");
    },
  );
});

describe("the dashboard's claim page", () => {
  test("is served at /dashboard/claim (the token stays in the fragment, which the browser never sends)", async () => {
    const page = await app.fetch("/dashboard/claim");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
  });
});
