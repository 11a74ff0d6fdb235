/**
 * Two instances on one database, each with its own key cache trusted for a
 * minute: a change made through one (or straight in SQL, as an operator or
 * the CLI would) reaches the other through the database's change
 * notifications, well before any TTL.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { accounts } from "../../db/schema.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { waitFor } from "../helpers/wait.ts";

let database: TestDatabase;
let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  const env = { AUTH_CACHE_TTL_MS: "60000" };
  first = await startTestApp(database, { env });
  second = await startTestApp(database, { env });
});
afterAll(async () => {
  await first.stop();
  await second.stop();
  await database.drop();
});

const account = (app: TestApp, key: string) => app.fetch("/v1/account", { headers: { "X-API-Key": key } });

test("a key revoked on one instance is refused on the other at once, though the other had it cached", async () => {
  const owner = await first.account({ name: "owner" });
  const spare = await first.account({ name: "spare" });
  expect((await account(first, owner.apiKey)).status).toBe(200);
  expect((await account(first, spare.apiKey)).status).toBe(200);

  const revoked = await second.fetch(`/v1/keys/${owner.keyId}`, { method: "DELETE", headers: { "X-API-Key": owner.apiKey } });
  expect(revoked.status).toBe(200);
  const started = performance.now();
  await waitFor(async () => ((await account(first, owner.apiKey)).status === 401 ? true : undefined), "the revoked key refused", 1_000);
  expect(performance.now() - started).toBeLessThan(1_000);
  // Another account's cached key is not disturbed.
  expect((await account(first, spare.apiKey)).status).toBe(200);
});

test("a plan changed in SQL shows on the next calls: the account view and the limit headers", async () => {
  const owner = await first.account({ name: "to be enterprise" });
  const before = await account(first, owner.apiKey);
  expect((await before.json()).plan).toBe("free");
  await database.handle.db.update(accounts).set({ customRateLimit: 6_000 }).where(eq(accounts.id, owner.accountId));
  // The body reads the account afresh while the limit header comes from the key cache the change
  // notification refreshes a few milliseconds later, so both are waited for: the cached side is the
  // one under test.
  const after = await waitFor(
    async () => {
      const response = await account(first, owner.apiKey);
      const body = await response.json();
      const limit = response.headers.get("x-ratelimit-limit");
      return body.plan === "enterprise" && limit === "6000" ? { body, limit } : undefined;
    },
    "the new plan seen in the body and the limit header",
    1_000,
  );
  expect(after.body.rate_limit_per_minute).toBe(6000);
});

test("a key created or revoked on one instance shows in the other's key list, though the list was cached", async () => {
  const owner = await first.account({ name: "lists" });
  const list = async () => {
    const response = await first.fetch("/v1/keys", { headers: { "X-API-Key": owner.apiKey } });
    return ((await response.json()).keys as { id: string; revoked_at: string | null }[]).map(
      (k) => `${k.id}:${k.revoked_at ? "revoked" : "live"}`,
    );
  };
  expect(await list()).toEqual([`${owner.keyId}:live`]);
  const created = await second.fetch("/v1/keys", {
    method: "POST",
    headers: { "X-API-Key": owner.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ name: "second" }),
  });
  const newKey = (await created.json()).id as string;
  await waitFor(async () => ((await list()).includes(`${newKey}:live`) ? true : undefined), "the new key listed", 1_000);
  await second.fetch(`/v1/keys/${newKey}`, { method: "DELETE", headers: { "X-API-Key": owner.apiKey } });
  await waitFor(async () => ((await list()).includes(`${newKey}:revoked`) ? true : undefined), "the revocation listed", 1_000);
});
