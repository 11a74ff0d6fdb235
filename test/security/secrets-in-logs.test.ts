/**
 * A key must never reach a log line: not a valid one, not a wrong one, not
 * one pasted into a query string or a body by mistake.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
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

test("captured logs never contain a key, however the key was sent", async () => {
  const { apiKey } = await app.account({ credit: 1 });
  const revoked = await app.account({ credit: 1 });
  await app.fetch(`/v1/keys/${revoked.keyId}`, { method: "DELETE", headers: { "X-API-Key": revoked.apiKey } });
  const secrets = [apiKey, revoked.apiKey, `${apiKey.slice(0, -2)}zz`];
  const answered: Response[] = [];
  for (const secret of secrets) {
    answered.push(await app.fetch("/v1/account", { headers: { "X-API-Key": secret } }));
    answered.push(await app.fetch(`/v1/account?api_key=${secret}`));
    answered.push(await app.fetch(`/v1/keys/${secret}`, { headers: { "X-API-Key": apiKey } }));
    answered.push(
      await app.fetch("/v1/keys", {
        method: "POST",
        headers: { "X-API-Key": secret, "content-type": "application/json" },
        body: JSON.stringify({ name: secret }),
      }),
    );
    answered.push(
      await app.fetch("/v1/keys", {
        method: "POST",
        headers: { "X-API-Key": apiKey, "content-type": "application/json" },
        body: `{"name": "${secret}`,
      }),
    );
    answered.push(await app.fetch("/v1/account", { headers: { Authorization: `Bearer ${secret}` } }));
  }
  // Each request's access-log line is written once its response has gone out: wait for every one of them.
  const ids = answered.map((response) => response.headers.get("x-request-id"));
  expect(ids.every((id) => id?.startsWith("req_"))).toBe(true);
  await waitFor(() => ids.every((id) => app.logs.some((line) => line.includes(`"request_id":"${id}"`))), "every request's log line");
  expect(app.logs.length).toBeGreaterThanOrEqual(19);
  const all = app.logs.join("\n");
  for (const secret of secrets) {
    expect(all).not.toContain(secret);
    // Not even the secret part without its prefix.
    expect(all).not.toContain(secret.slice(16, 40));
  }
});
