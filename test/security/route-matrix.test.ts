/**
 * One security suite over every authenticated operation in the OpenAPI
 * document, so routes added later are covered without being listed here:
 * no key, a malformed key, a well-formed unknown key, a revoked key and a
 * doubled header all get the same 401; another account's ids get the same
 * 404 as ids that do not exist.
 *
 * A new path parameter needs an entry in RESOURCES: how to make one for an
 * account, so the matrix can point at another account's resource.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { speaksOpenAi } from "../../src/openai/errors.ts";
import { generateApiKey } from "../../src/accounts/keys.ts";
import { createKey } from "../../src/accounts/service.ts";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { rawUpgrade } from "../helpers/websocket.ts";

interface Operation {
  method: string;
  path: string;
}

const RESOURCES: Record<string, { missing: string; create(app: TestApp, owner: TestAccount): Promise<string> }> = {
  key_id: {
    missing: "key_01m81vxjpee6ta28c6edpbkmfh",
    create: async (app, owner) => (await createKey(app.accounts, owner.accountId, "matrix")).key.id,
  },
  api_id: {
    // An integer no version has (ids come from one sequence, far below this).
    missing: "2000000000",
    create: async (app, owner) => String((await designed(app, owner)).id),
  },
  api_stub: {
    missing: "no-such-endpoint-000000",
    create: async (app, owner) => (await designed(app, owner)).stub,
  },
  version: { missing: "v1", create: async () => "v1" },
  public_stub: { missing: "no-such-listing", create: async () => "no-such-listing" },
  // A model of the OpenAI-compatible face: another account's endpoint is as unknown as one that does not exist.
  model: {
    missing: "endpoint:no-such-endpoint-000000",
    create: async (app, owner) => `endpoint:${(await designed(app, owner)).stub}`,
  },
  // A delivery of a task's webhook: its message is made when the task ends, so one canceled at once has it.
  delivery_id: {
    missing: "msg_01m81vxjpee6ta28c6edpbkmfh",
    create: async (app, owner) => {
      const headers = { "X-API-Key": owner.apiKey, "content-type": "application/json" };
      const task = (await (
        await app.fetch("/v1/tasks", {
          method: "POST",
          headers,
          body: JSON.stringify({ prompt: "matrix", webhook: { url: "https://hooks.example.com/matrix" } }),
        })
      ).json()) as { id: string };
      await app.fetch(`/v1/tasks/${task.id}/cancel`, { method: "POST", headers });
      const list = (await (await app.fetch("/v1/webhooks/deliveries", { headers })).json()) as { data: { id: string }[] };
      return list.data[0]!.id;
    },
  },
  task_id: {
    missing: "task_01m81vxjpee6ta28c6edpbkmfh",
    create: async (app, owner) => {
      const response = await app.fetch("/v1/tasks", {
        method: "POST",
        headers: { "X-API-Key": owner.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "matrix" }),
      });
      return ((await response.json()) as { id: string }).id;
    },
  },
  monitor_id: {
    missing: "mon_01m81vxjpee6ta28c6edpbkmfh",
    create: async (app, owner) => {
      const response = await app.fetch("/v1/monitors", {
        method: "POST",
        headers: { "X-API-Key": owner.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "matrix", schedule: { every_minutes: 60 }, webhook: { url: "https://hooks.example.com/m" } }),
      });
      return ((await response.json()) as { id: string }).id;
    },
  },
  batch_id: {
    missing: "batch_01m81vxjpee6ta28c6edpbkmfh",
    create: async (app, owner) => {
      const { stub } = (await client(app, owner.apiKey).json("POST", "/v1/design-api", landmarkEndpoint)).response;
      const batch = await client(app, owner.apiKey).json("POST", "/v1/batches", { endpoint: stub, inputs: [{ landmark: "Eiffel Tower" }] });
      if (typeof batch.id !== "string") throw new Error(`no batch to point at: ${JSON.stringify(batch)}`);
      return batch.id;
    },
  },
};

/** Operations on resources every account may use (the marketplace): the foreign-id rule does not apply. */
const PUBLIC = [/^\/v1\/marketplace\//, /^\/v1\/published-service\//];

async function designed(app: TestApp, owner: TestAccount): Promise<{ id: number; stub: string }> {
  const response = await app.fetch("/v1/design-api", {
    method: "POST",
    headers: { "X-API-Key": owner.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ original_prompt: "Given a company name, find its founding year" }),
  });
  return ((await response.json()) as { response: { id: number; stub: string } }).response;
}

let database: TestDatabase;
let app: TestApp;
let caller: TestAccount;
let other: TestAccount;
let revokedKey: string;
let operations: Operation[];

beforeAll(async () => {
  database = await freshDatabase();
  // Tasks are made to be pointed at, not run.
  app = await startTestApp(database, { env: { TASK_WORKERS: "0", WEBHOOK_WORKERS: "0" } });
  caller = await app.account({ name: "caller", limit: 100_000 });
  other = await app.account({ name: "other", limit: 100_000 });
  const revoked = await app.account({ name: "revoked" });
  await app.fetch(`/v1/keys/${revoked.keyId}`, { method: "DELETE", headers: { "X-API-Key": revoked.apiKey } });
  revokedKey = revoked.apiKey;
  const doc = await jsonOf(app.fetch("/openapi.json"));
  operations = [];
  // Operations keyed by X-API-Key; the dashboard's session-only ones are covered by dashboard-sessions.test.ts.
  for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, { security?: Record<string, unknown>[] }>][]) {
    for (const [method, operation] of Object.entries(item))
      if (operation.security?.some((scheme) => "ApiKeyAuth" in scheme)) operations.push({ method: method.toUpperCase(), path });
  }
});
afterAll(async () => {
  await app.stop();
  await database.drop();
});

const fill = (path: string, values: Record<string, string>) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? `unknown_${name}`);
/** A WebSocket operation is exercised as the upgrade it is; the rest as plain requests. */
async function send(op: Operation, path: string, headers: Headers | Record<string, string>): Promise<Response> {
  const flat = Object.fromEntries(new Headers(headers));
  if (path.startsWith("/v1/ws/")) {
    const answer = await rawUpgrade(`${app.url.replace("http", "ws")}${path}`, flat);
    return new Response(answer.body || null, { status: answer.status === 101 ? 200 : answer.status });
  }
  return app.fetch(path, {
    method: op.method,
    headers: { "content-type": "application/json", ...flat },
    body: ["GET", "DELETE", "HEAD"].includes(op.method) ? undefined : "{}",
  });
}

describe("every authenticated operation", () => {
  test("the document lists the authenticated operations (the matrix is not empty)", () => {
    expect(operations.length).toBeGreaterThanOrEqual(5);
  });

  test("refuses no key, a malformed key, an unknown key, a revoked key and a doubled header with one 401", async () => {
    const unknown = (await generateApiKey()).secret;
    for (const op of operations) {
      const path = fill(op.path, Object.fromEntries(Object.entries(RESOURCES).map(([k, r]) => [k, r.missing])));
      const doubled = new Headers();
      doubled.append("X-API-Key", caller.apiKey);
      doubled.append("X-API-Key", caller.apiKey);
      const attempts: [string, Headers | Record<string, string>][] = [
        ["no key", {}],
        ["malformed", { "X-API-Key": "sk_live_nope" }],
        ["unknown", { "X-API-Key": unknown }],
        ["revoked", { "X-API-Key": revokedKey }],
        ["doubled", doubled],
      ];
      for (const [label, headers] of attempts) {
        const response = await send(op, path, headers);
        expect({ op: `${op.method} ${op.path}`, label, status: response.status }).toEqual({
          op: `${op.method} ${op.path}`,
          label,
          status: 401,
        });
        // The OpenAI-compatible routes say it in OpenAI's shape, as its SDKs read it.
        const body = await jsonOf(response);
        if (speaksOpenAi(op.path)) expect(body.error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
        else expect(body.error).toBe("unauthorized");
      }
    }
  });

  test("answers another account's ids exactly like ids that do not exist", async () => {
    const withParams = operations.filter((op) => op.path.includes("{") && !PUBLIC.some((p) => p.test(op.path)));
    expect(withParams.length).toBeGreaterThan(0);
    for (const op of withParams) {
      const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      for (const name of names) expect({ param: name, known: name in RESOURCES }).toEqual({ param: name, known: true });
      const foreign: Record<string, string> = {};
      const missing: Record<string, string> = {};
      for (const name of names) {
        foreign[name] = await RESOURCES[name]!.create(app, other);
        missing[name] = RESOURCES[name]!.missing;
      }
      const theirs = await send(op, fill(op.path, foreign), { "X-API-Key": caller.apiKey });
      const nobodys = await send(op, fill(op.path, missing), { "X-API-Key": caller.apiKey });
      expect({ op: `${op.method} ${op.path}`, status: theirs.status }).toEqual({ op: `${op.method} ${op.path}`, status: 404 });
      expect(await jsonOf(theirs)).toEqual(await jsonOf(nobodys));
    }
    // The other account's resources are untouched and still its own.
    expect((await app.fetch("/v1/keys", { headers: { "X-API-Key": other.apiKey } })).status).toBe(200);
  });
});
