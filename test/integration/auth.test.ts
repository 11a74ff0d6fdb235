import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
let app: TestApp;
let alice: TestAccount;
let bob: TestAccount;

beforeAll(async () => {
  database = await freshDatabase();
  app = await startTestApp(database);
  alice = await app.account({ name: "alice", credit: 5 });
  bob = await app.account({ name: "bob", credit: 5 });
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

const withKey = (key: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), "X-API-Key": key },
});

async function expectUnauthorized(response: Response) {
  expect(response.status).toBe(401);
  expect(await jsonOf(response)).toEqual({ detail: "missing or invalid API key (send it in the X-API-Key header)", error: "unauthorized" });
}

describe("a key", () => {
  test("works, and its account is the caller's", async () => {
    const response = await app.fetch("/v1/account", withKey(alice.apiKey));
    expect(response.status).toBe(200);
    const body = await jsonOf(response);
    expect(body).toMatchObject({
      id: alice.accountId,
      name: "alice",
      plan: "pro",
      rate_limit_per_minute: 100,
      balance: 5,
      key_id: alice.keyId,
    });
    expect(alice.apiKey.startsWith(body.key_prefix)).toBe(true);
  });

  test("is refused with 401 at once after it is revoked", async () => {
    const created = await jsonOf(
      app.fetch(
        "/v1/keys",
        withKey(alice.apiKey, { method: "POST", body: JSON.stringify({ name: "temp" }), headers: { "content-type": "application/json" } }),
      ),
    );
    expect((await app.fetch("/v1/account", withKey(created.api_key))).status).toBe(200);
    const revoked = await app.fetch(`/v1/keys/${created.id}`, withKey(alice.apiKey, { method: "DELETE" }));
    expect(revoked.status).toBe(200);
    expect((await jsonOf(revoked)).revoked_at).not.toBeNull();
    await expectUnauthorized(await app.fetch("/v1/account", withKey(created.api_key)));
  });

  test("is stored only as a hash: the plaintext is nowhere in the database", async () => {
    const rows = await database.handle.db.query.apiKeys.findMany();
    const dump = JSON.stringify(rows);
    expect(rows.length).toBeGreaterThan(1);
    expect(dump).not.toContain(alice.apiKey);
    expect(dump).not.toContain(alice.apiKey.slice(16));
  });

  test("records last use, without a write on every request", async () => {
    const fresh = await app.account({ name: "carol" });
    const before = await database.handle.db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, fresh.keyId) });
    expect(before?.lastUsedAt).toBeNull();
    await app.fetch("/v1/account", withKey(fresh.apiKey));
    await app.settled();
    const first = await database.handle.db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, fresh.keyId) });
    expect(first?.lastUsedAt).toBeInstanceOf(Date);
    await app.fetch("/v1/account", withKey(fresh.apiKey));
    await app.settled();
    const second = await database.handle.db.query.apiKeys.findFirst({ where: (k, { eq }) => eq(k.id, fresh.keyId) });
    expect(second?.lastUsedAt?.getTime()).toBe(first!.lastUsedAt!.getTime());
  });
});

describe("another account's resource is a 404, exactly as if it did not exist", () => {
  test("GET and DELETE of another account's key", async () => {
    const missing = await app.fetch("/v1/keys/key_01m81vxjpee6ta28c6edpbkmfh", withKey(alice.apiKey));
    expect(missing.status).toBe(404);
    const missingBody = await jsonOf(missing);
    const foreign = await app.fetch(`/v1/keys/${bob.keyId}`, withKey(alice.apiKey));
    expect(foreign.status).toBe(404);
    expect(await jsonOf(foreign)).toEqual(missingBody);
    const foreignDelete = await app.fetch(`/v1/keys/${bob.keyId}`, withKey(alice.apiKey, { method: "DELETE" }));
    expect(foreignDelete.status).toBe(404);
    expect(await jsonOf(foreignDelete)).toEqual(missingBody);
    // And bob's key still works.
    expect((await app.fetch("/v1/account", withKey(bob.apiKey))).status).toBe(200);
  });

  test("the key list holds only the caller's keys", async () => {
    const list = await jsonOf(app.fetch("/v1/keys", withKey(alice.apiKey)));
    const ids = list.keys.map((k: { id: string }) => k.id);
    expect(ids).toContain(alice.keyId);
    expect(ids).not.toContain(bob.keyId);
    expect(JSON.stringify(list)).not.toContain("hash");
  });
});
