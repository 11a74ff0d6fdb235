/**
 * Key expiry and rotation, on a clock the test moves: a key made with
 * `expires_in_days` stops at that time; a rotation's successor works at once
 * and the old key works through its grace period, then gets the same 401 as
 * any other bad key, even while its row sits in the key cache. Bad bodies are
 * 422s; keys that cannot be rotated are 409s; other accounts' keys are 404s.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { PREFIX_LENGTH } from "../../src/accounts/keys.ts";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";
import { runCli } from "../helpers/process.ts";
import { waitFor } from "../helpers/wait.ts";

const DAY = 86_400_000;
const clock = new ManualClock(Date.UTC(2026, 2, 1));
let database: TestDatabase;
let app: TestApp;
let owner: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  database = await freshDatabase();
  // A one-minute cache: an entry is still fresh when the expiry the test waits for comes.
  app = await startTestApp(database, { clock, env: { AUTH_CACHE_TTL_MS: "60000" } });
  owner = await app.account({ name: "owner", limit: 100_000 });
  stranger = await app.account({ name: "stranger", limit: 100_000 });
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

const post = (path: string, key: string, body?: unknown) =>
  app.fetch(path, {
    method: "POST",
    headers: { "X-API-Key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const statusWith = async (key: string) => (await app.fetch("/v1/account", { headers: { "X-API-Key": key } })).status;
const cached = (key: string) => app.accounts.keyCache!.get(key.slice(0, PREFIX_LENGTH)) !== undefined;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Uses a key until its row stays in the cache: the first use stamps last_used_at, and that write's change
 * notification evicts the account once; later uses within the minute write nothing.
 */
async function usedAndCached(key: string): Promise<void> {
  expect(await statusWith(key)).toBe(200);
  await app.settled();
  await waitFor(async () => (await statusWith(key)) === 200 && cached(key), "the key's row to stay cached");
}

async function newKey(body: Record<string, unknown> = {}): Promise<{ id: string; api_key: string; expires_at: string | null }> {
  const response = await post("/v1/keys", owner.apiKey, body);
  expect(response.status).toBe(201);
  return jsonOf(response);
}

async function rotate(keyId: string, body?: unknown): Promise<Response> {
  return post(`/v1/keys/${keyId}/rotate`, owner.apiKey, body);
}

async function listed(keyId: string) {
  const list = await jsonOf(app.fetch("/v1/keys", { headers: { "X-API-Key": owner.apiKey } }));
  return list.keys.find((k: { id: string }) => k.id === keyId);
}

describe("a key made with expires_in_days", () => {
  test("shows its expiry, works until then, and is a 401 from then on though its row is cached", async () => {
    const key = await newKey({ name: "short-lived", expires_in_days: 1 });
    expect(key).toMatchObject({ name: "short-lived", expires_at: iso(clock.now() + DAY), replaced_by: null });
    clock.advance(DAY - 10_000);
    await usedAndCached(key.api_key);
    clock.advance(10_000);
    expect(cached(key.api_key)).toBe(true);
    const refused = await app.fetch("/v1/account", { headers: { "X-API-Key": key.api_key } });
    expect(refused.status).toBe(401);
    expect(await jsonOf(refused)).toEqual({
      detail: "missing or invalid API key (send it in the X-API-Key header)",
      error: "unauthorized",
    });
    expect((await listed(key.id)).expires_at).toBe(key.expires_at);
  });

  test("without expires_in_days (or with null) never expires", async () => {
    expect((await newKey({ name: "forever" })).expires_at).toBeNull();
    const key = await newKey({ expires_in_days: null });
    expect(key.expires_at).toBeNull();
    clock.advance(3650 * DAY);
    expect(await statusWith(key.api_key)).toBe(200);
  });

  test("expires_in_days must be a whole number from 1 to 3650: anything else is a 422", async () => {
    for (const bad of [0, -1, 3651, 1e9, 2.5, "five", true, {}, []]) {
      const response = await post("/v1/keys", owner.apiKey, { name: "bad", expires_in_days: bad });
      expect({ bad, status: response.status }).toEqual({ bad, status: 422 });
      const body = await jsonOf(response);
      expect(body.detail[0].loc).toEqual(["body", "expires_in_days"]);
    }
    expect((await newKey({ expires_in_days: 3650 })).expires_at).toBe(iso(clock.now() + 3650 * DAY));
    // Like every integer field of the API (and pydantic's lax mode), a numeric string reads as its number,
    // so it is held to the same range.
    expect((await newKey({ expires_in_days: "5" })).expires_at).toBe(iso(clock.now() + 5 * DAY));
    for (const bad of ["0", "3651", "1e9"]) expect((await post("/v1/keys", owner.apiKey, { expires_in_days: bad })).status).toBe(422);
  });
});

describe("rotating a key", () => {
  test("answers 201 with the successor shown once, same name; the old key works through the grace period, then 401", async () => {
    const old = await newKey({ name: "rotating" });
    await usedAndCached(old.api_key);
    const response = await rotate(old.id, { grace_seconds: 30 });
    expect(response.status).toBe(201);
    const body = await jsonOf(response);
    expect(body.api_key).toMatch(/^sk_live_[0-9A-Za-z]{46}$/);
    expect(body.id).not.toBe(old.id);
    expect(body).toMatchObject({ name: "rotating", expires_at: null, replaced_by: null, revoked_at: null });
    expect(body.rotated_from).toMatchObject({ id: old.id, name: "rotating", replaced_by: body.id, expires_at: iso(clock.now() + 30_000) });
    expect(body.rotated_from.api_key).toBeUndefined();

    expect(await statusWith(body.api_key)).toBe(200);
    await usedAndCached(old.api_key);
    clock.advance(29_999);
    expect(await statusWith(old.api_key)).toBe(200);
    clock.advance(1);
    expect(cached(old.api_key)).toBe(true);
    expect(await statusWith(old.api_key)).toBe(401);
    expect(await statusWith(body.api_key)).toBe(200);

    expect(await listed(old.id)).toMatchObject({ replaced_by: body.id, expires_at: iso(clock.now()), revoked_at: null });
    expect(await listed(body.id)).toMatchObject({ replaced_by: null, expires_at: null });
    const one = await jsonOf(app.fetch(`/v1/keys/${old.id}`, { headers: { "X-API-Key": owner.apiKey } }));
    expect(one.replaced_by).toBe(body.id);
  });

  test("the grace period is 24 hours when the body is empty or absent", async () => {
    for (const body of [undefined, {}, null]) {
      const old = await newKey();
      const response = await rotate(old.id, body);
      expect(response.status).toBe(201);
      expect((await jsonOf(response)).rotated_from.expires_at).toBe(iso(clock.now() + DAY));
    }
    const old = await newKey();
    const { api_key } = await jsonOf(rotate(old.id));
    clock.advance(DAY - 1);
    expect(await statusWith(old.api_key)).toBe(200);
    clock.advance(1);
    expect(await statusWith(old.api_key)).toBe(401);
    expect(await statusWith(api_key)).toBe(200);
  });

  test("grace_seconds 0 stops the old key at once, cached or not", async () => {
    const old = await newKey();
    expect(await statusWith(old.api_key)).toBe(200);
    const { api_key } = await jsonOf(rotate(old.id, { grace_seconds: 0 }));
    expect(await statusWith(old.api_key)).toBe(401);
    expect(await statusWith(api_key)).toBe(200);
  });

  test("a caller may rotate the key it calls with", async () => {
    const self = await newKey();
    const response = await post(`/v1/keys/${self.id}/rotate`, self.api_key, { grace_seconds: 60 });
    expect(response.status).toBe(201);
    expect(await statusWith(self.api_key)).toBe(200);
    expect(await statusWith((await jsonOf(response)).api_key)).toBe(200);
  });

  test("the successor keeps the old key's lifetime from now; the old key never outlives its own expiry", async () => {
    const old = await newKey({ expires_in_days: 30 });
    clock.advance(10 * DAY);
    const body = await jsonOf(rotate(old.id, { grace_seconds: 7 * 86_400 }));
    expect(body.expires_at).toBe(iso(clock.now() + 30 * DAY));
    expect(body.rotated_from.expires_at).toBe(iso(clock.now() + 7 * DAY));

    const nearlyDone = await newKey({ expires_in_days: 1 });
    clock.advance(DAY / 2);
    const second = await jsonOf(rotate(nearlyDone.id, { grace_seconds: 7 * 86_400 }));
    expect(second.rotated_from.expires_at).toBe(nearlyDone.expires_at);
    expect(second.expires_at).toBe(iso(clock.now() + DAY));
  });

  test("grace_seconds must be a whole number from 0 to 2592000: anything else is a 422 and rotates nothing", async () => {
    const old = await newKey();
    for (const bad of [-1, 2_592_001, 1e12, 1.5, "sixty", null, [], Number.MAX_SAFE_INTEGER + 2]) {
      const response = await rotate(old.id, { grace_seconds: bad });
      expect({ bad, status: response.status }).toEqual({ bad, status: 422 });
      expect((await jsonOf(response)).detail[0].loc).toEqual(["body", "grace_seconds"]);
    }
    for (const bad of ["-1", "2592001"]) expect((await rotate(old.id, { grace_seconds: bad })).status).toBe(422);
    const malformed = await app.fetch(`/v1/keys/${old.id}/rotate`, {
      method: "POST",
      headers: { "X-API-Key": owner.apiKey, "content-type": "application/json" },
      body: "{not json",
    });
    expect(malformed.status).toBeGreaterThanOrEqual(400);
    expect(malformed.status).toBeLessThan(500);
    expect(await listed(old.id)).toMatchObject({ replaced_by: null, expires_at: null });
    expect((await rotate(old.id, { grace_seconds: 2_592_000 })).status).toBe(201);
  });
});

describe("a key that cannot be rotated is a 409 that says why", () => {
  test("a revoked key", async () => {
    const key = await newKey();
    await app.fetch(`/v1/keys/${key.id}`, { method: "DELETE", headers: { "X-API-Key": owner.apiKey } });
    const response = await rotate(key.id);
    expect(response.status).toBe(409);
    expect(await jsonOf(response)).toEqual({ detail: "this key is revoked: create a new key instead", error: "conflict" });
  });

  test("an already rotated key, during its grace period and after", async () => {
    const key = await newKey();
    const first = await jsonOf(rotate(key.id, { grace_seconds: 60 }));
    const again = await rotate(key.id);
    expect(again.status).toBe(409);
    expect(await jsonOf(again)).toEqual({ detail: `this key was already rotated: its successor is ${first.id}`, error: "conflict" });
    clock.advance(60_000);
    expect((await rotate(key.id)).status).toBe(409);
  });

  test("an expired key", async () => {
    const key = await newKey({ expires_in_days: 1 });
    clock.advance(DAY);
    const response = await rotate(key.id);
    expect(response.status).toBe(409);
    expect(await jsonOf(response)).toEqual({ detail: "this key has expired: create a new key instead", error: "conflict" });
  });

  test("two rotations of one key at the same time: one succeeds, the other is a 409", async () => {
    const key = await newKey();
    const statuses = (await Promise.all([rotate(key.id), rotate(key.id), rotate(key.id)])).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
    const rows = await app.db.query.apiKeys.findMany({ where: (k, { eq }) => eq(k.accountId, owner.accountId) });
    expect(rows.filter((r) => r.name === null && r.id > key.id).length).toBe(1);
  });
});

describe("another account's key, or a key id that does not exist, is the same 404", () => {
  test("rotate answers as GET does", async () => {
    const missing = await app.fetch("/v1/keys/key_01m81vxjpee6ta28c6edpbkmfh", { headers: { "X-API-Key": owner.apiKey } });
    const missingBody = await jsonOf(missing);
    for (const id of [stranger.keyId, "key_01m81vxjpee6ta28c6edpbkmfh", "not-a-key", `key_${"z".repeat(26)}`]) {
      const response = await rotate(id);
      expect({ id, status: response.status }).toEqual({ id, status: 404 });
      expect(await jsonOf(response)).toEqual(missingBody);
    }
    // An id the path cannot hold is refused before any lookup, as GET refuses it.
    const long = `key_${"a".repeat(80)}`;
    const viaGet = await app.fetch(`/v1/keys/${long}`, { headers: { "X-API-Key": owner.apiKey } });
    const viaRotate = await rotate(long);
    expect(viaRotate.status).toBe(viaGet.status);
    expect(viaRotate.status).toBeLessThan(500);
    expect(await statusWith(stranger.apiKey)).toBe(200);
    const strangerKey = await app.db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, stranger.keyId) });
    expect(strangerKey).toMatchObject({ replacedBy: null, expiresAt: null });
  });
});

describe("the CLI", () => {
  test.skipIf(!TEST_DATABASE_URL)("keys create --expires-in-days and keys rotate --grace-seconds, as the routes do", async () => {
    const env = { DATABASE_URL: database.url! };
    const created = await runCli(
      ["keys", "create", "--account", owner.accountId, "--name", "cli", "--expires-in-days", "7", "--json"],
      env,
    );
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    // The CLI runs on the system clock.
    expect(Math.abs(Date.parse(key.expires_at) - (Date.now() + 7 * DAY))).toBeLessThan(60_000);
    const rotated = await runCli(["keys", "rotate", key.key_id, "--grace-seconds", "120", "--json"], env);
    expect(rotated.code).toBe(0);
    const successor = JSON.parse(rotated.stdout);
    expect(successor).toMatchObject({ account_id: owner.accountId, rotated_from: key.key_id });
    expect(Math.abs(Date.parse(successor.old_key_works_until) - (Date.now() + 120_000))).toBeLessThan(60_000);
    expect(Math.abs(Date.parse(successor.expires_at) - (Date.now() + 7 * DAY))).toBeLessThan(60_000);
    const row = await app.db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, key.key_id) });
    expect(row?.replacedBy).toBe(successor.key_id);

    const again = await runCli(["keys", "rotate", key.key_id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`this key was already rotated: its successor is ${successor.key_id}`);
    const bad = await runCli(["keys", "create", "--account", owner.accountId, "--expires-in-days", "0"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("expires_in_days must be a whole number of days from 1 to 3650");
    const badGrace = await runCli(["keys", "rotate", successor.key_id, "--grace-seconds=-5"], env);
    expect(badGrace.code).toBe(1);
    expect(badGrace.stderr).toContain("grace_seconds must be a whole number of seconds from 0 to 2592000");
  });
});
