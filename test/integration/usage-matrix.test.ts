/**
 * Billing, read from the OpenAPI document: every operation a key may call is
 * called once, and each call writes exactly one usage record. An operation
 * documented billable (`x-billable: true`) records the tokens its call used
 * and their cost; every other operation records none, and never reaches a
 * search provider or a page. So a new route that runs research or reads a
 * page without declaring itself billable fails here (its run is refused: a
 * 500), and so does a billable route that forgets to hand over its usage
 * (its record carries no tokens).
 *
 * An operation is called with the body in BODIES (a new operation gets `{}`:
 * a non-billable one may well refuse it, and is still recorded once; a
 * billable one must be given a body that succeeds). Path parameters are made
 * afresh for each call (PARAMS), so destructive calls touch nothing else.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Caller } from "../../src/caller.ts";
import { priceOf } from "../../src/usage/recorder.ts";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";
import { openSocket } from "../helpers/websocket.ts";

interface Operation {
  method: string;
  path: string;
  billable: boolean;
}

let world: SearchWorld;
let database: TestDatabase;
let app: TestApp;
let caller: TestAccount;
let operations: Operation[];
/** The caller's endpoint its batches call (made once: no batch runs here, TASK_WORKERS is 0). */
let batchStub: string;
/** The caller as billing sees it: its plan sets the price. */
let enterprise: Caller;

const BODIES: Record<string, (world: SearchWorld) => unknown> = {
  "POST /v1/search": () => ({ prompt: "river bridge cost" }),
  "POST /v1/chat/completions": () => ({ model: "search", messages: [{ role: "user", content: "river bridge cost" }] }),
  "POST /v1/responses": () => ({ model: "search", input: "river bridge cost" }),
  "POST /v1/contents": (w) => ({ url: w.url("news.test", "/bridge.html") }),
  "POST /v1/keys": () => ({ name: "matrix" }),
  "POST /v1/tasks": () => ({ prompt: "river bridge cost" }),
  // A loopback host the app's FETCH_ALLOW_HOSTS exempts: http and a private address are allowed for it.
  "POST /v1/monitors": (w) => ({
    prompt: "river bridge cost",
    schedule: { every_minutes: 60 },
    webhook: { url: w.url("news.test", "/hook") },
  }),
  "PATCH /v1/monitors/{monitor_id}": () => ({ status: "paused" }),
  "POST /v1/batches": () => ({ endpoint: batchStub, inputs: [{ landmark: "Eiffel Tower" }] }),
  "POST /v1/design-api": () => landmarkEndpoint,
  "PATCH /v1/design-api/{api_id}": () => ({ version_notes: "matrix" }),
  "POST /v1/design-api/{api_id}/publish": () => ({ public_stub: `matrix-${crypto.randomUUID().slice(0, 8)}` }),
  "POST /v1/user-defined-service/{api_stub}": () => ({ landmark: "Eiffel Tower" }),
  "POST /v1/user-defined-service/{api_stub}/{version}": () => ({ landmark: "Eiffel Tower" }),
  "POST /v1/published-service/{api_stub}": () => ({ landmark: "Eiffel Tower" }),
  "POST /v1/published-service/{api_stub}/{version}": () => ({ landmark: "Eiffel Tower" }),
};

/** How to make each path parameter for the caller: a fresh one per call, so a DELETE takes only its own. */
const PARAMS: Record<string, (op: Operation) => Promise<string>> = {
  key_id: async () => (await jsonOf(setup("POST", "/v1/keys", { name: "matrix spare" }))).id,
  api_id: async () => String((await designed()).id),
  api_stub: async (op) => (op.path.startsWith("/v1/published-service/") ? (await published()).public_stub : (await designed()).stub),
  version: async () => "v1",
  public_stub: async () => (await published()).public_stub,
  model: async () => "search",
  // A canceled task's webhook message (never delivered: this app has no webhook workers).
  delivery_id: async () => {
    const { id } = await jsonOf(
      setup("POST", "/v1/tasks", { prompt: "river bridge cost", webhook: { url: "https://hooks.example.com/matrix" } }),
    );
    await setup("POST", `/v1/tasks/${id}/cancel`);
    return (await jsonOf(setup("GET", "/v1/webhooks/deliveries"))).data[0].id;
  },
  // Canceled at once, so its event stream replays and ends.
  task_id: async () => {
    const { id } = await jsonOf(setup("POST", "/v1/tasks", { prompt: "river bridge cost" }));
    await setup("POST", `/v1/tasks/${id}/cancel`);
    return id;
  },
  monitor_id: async () =>
    (
      await jsonOf(
        setup("POST", "/v1/monitors", {
          prompt: "river bridge cost",
          schedule: { every_minutes: 60 },
          webhook: { url: world.url("news.test", "/hook") },
        }),
      )
    ).id,
  // Canceled at once, unless the operation is its cancel.
  batch_id: async (op) => {
    const { id } = await jsonOf(setup("POST", "/v1/batches", { endpoint: batchStub, inputs: [{ landmark: "Eiffel Tower" }] }));
    if (!op.path.endsWith("/cancel")) await setup("POST", `/v1/batches/${id}/cancel`);
    return id;
  },
};

/** A call made to set the matrix up: recorded under its own request id, which no assertion reads. */
const setup = (method: string, path: string, body?: unknown) => client(app, caller.apiKey).call(method, path, body);

async function designed(): Promise<{ id: number; stub: string }> {
  return (await jsonOf(setup("POST", "/v1/design-api", landmarkEndpoint))).response;
}

async function published(): Promise<{ public_stub: string }> {
  const { id } = await designed();
  return jsonOf(setup("POST", `/v1/design-api/${id}/publish`, { public_stub: `matrix-${crypto.randomUUID().slice(0, 8)}` }));
}

async function fill(op: Operation): Promise<string> {
  let path = op.path;
  for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) {
    const make = PARAMS[name!];
    if (!make) throw new Error(`${op.method} ${op.path}: add a maker for the path parameter {${name}} to PARAMS`);
    path = path.replace(`{${name}}`, encodeURIComponent(await make(op)));
  }
  return path;
}

/** The call's status; a WebSocket operation is called as the socket it is, with one search message. */
async function send(op: Operation, path: string, requestId: string, accept = "application/json"): Promise<number> {
  const headers = { "X-API-Key": caller.apiKey, "x-request-id": requestId };
  if (path.startsWith("/v1/ws/")) {
    const run = await openSocket(`${app.url.replace("http", "ws")}${path}`, {
      headers,
      send: JSON.stringify(BODIES["POST /v1/search"]!(world)),
    });
    return run.closeReason === "done" ? 200 : 500;
  }
  const body = BODIES[`${op.method} ${op.path}`]?.(world) ?? {};
  const response = await app.fetch(path, {
    method: op.method,
    headers: { ...headers, "content-type": "application/json", accept },
    body: ["GET", "DELETE"].includes(op.method) ? undefined : JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

async function rowsOf(requestId: string) {
  await app.usage.flush();
  return app.db.query.usageRecords.findMany({ where: (u, { eq }) => eq(u.requestId, requestId) });
}

/** What the search providers and the page site have been asked so far. */
const outboundCount = () =>
  world.searxng.requests.length + world.brave.requests.length + [...world.site.hits.values()].reduce((a, b) => a + b, 0);

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  // No task workers: a task's run is billed as its own call (tasks.test.ts), and would reach out while another operation is counted.
  app = await startTestApp(database, {
    env: world.env({ SEARCH_HEDGING: "false", TASK_WORKERS: "0", WEBHOOK_WORKERS: "0" }),
    resolver: world.resolver,
  });
  // A paying caller (a custom limit makes the Enterprise plan, invoiced for what its calls cost), whose limit the
  // matrix and its set-up calls stay far below.
  caller = await app.account({ name: "matrix", limit: 100_000 });
  enterprise = {
    accountId: caller.accountId,
    accountName: "matrix",
    keyId: caller.keyId,
    keyPrefix: null,
    balanceMicros: 0,
    customRateLimit: 100_000,
  };
  batchStub = (await designed()).stub;
  const doc = await jsonOf(app.fetch("/openapi.json"));
  operations = [];
  for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, Record<string, unknown>>][])
    for (const [method, operation] of Object.entries(item)) {
      const security = (operation.security ?? []) as Record<string, unknown>[];
      if (security.some((scheme) => "ApiKeyAuth" in scheme))
        operations.push({ method: method.toUpperCase(), path, billable: operation["x-billable"] === true });
    }
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

describe("every operation a key calls writes one usage record; the billable ones carry their tokens and cost", () => {
  test("the document marks the research and page-read operations billable, and only those", () => {
    expect(operations.filter((op) => op.billable).map((op) => `${op.method} ${op.path}`)).toEqual([
      "POST /v1/contents",
      "POST /v1/search",
      "POST /v1/chat/completions",
      "POST /v1/responses",
      "POST /v1/user-defined-service/{api_stub}",
      "POST /v1/user-defined-service/{api_stub}/{version}",
      "POST /v1/published-service/{api_stub}",
      "POST /v1/published-service/{api_stub}/{version}",
      "GET /v1/ws/search",
    ]);
    expect(operations.length).toBeGreaterThan(20);
  });

  test("each operation, called once", async () => {
    let sequence = 0;
    for (const op of operations) {
      const name = `${op.method} ${op.path}`;
      const path = await fill(op);
      const requestId = `req_usage_matrix_${++sequence}`;
      const before = outboundCount();
      const status = await send(op, path, requestId);
      const outbound = outboundCount() - before;
      const rows = await waitFor(async () => {
        const found = await rowsOf(requestId);
        return found.length > 0 ? found : null;
      }, `the usage record of ${name}`);
      // No route fails for billing's sake: a research run or a charge on a route not documented billable is a 500.
      expect({ name, serverError: status >= 500 }).toEqual({ name, serverError: false });
      expect({ name, rows: rows.length }).toEqual({ name, rows: 1 });
      const row = rows[0]!;
      if (op.billable) {
        expect({ name, status }).toEqual({ name, status: 200 });
        expect({ name, tokens: row.tokens > 0 }).toEqual({ name, tokens: true });
        const price = priceOf(
          { caller: enterprise, route: row.route, status: row.status, tokens: row.tokens, requestId, at: row.createdAt },
          app.config.pricing,
        );
        expect({ name, cost: row.costMicros }).toEqual({ name, cost: price.costMicros });
        expect({ name, paid: row.costMicros > 0 }).toEqual({ name, paid: true });
      } else {
        expect({ name, tokens: row.tokens, cost: row.costMicros }).toEqual({ name, tokens: 0, cost: 0 });
        expect({ name, outbound }).toEqual({ name, outbound: 0 });
      }
    }
  });

  test("a search streamed as server-sent events is recorded once, when its stream ends, with its tokens", async () => {
    const requestId = "req_usage_matrix_sse";
    const status = await send({ method: "POST", path: "/v1/search", billable: true }, "/v1/search", requestId, "text/event-stream");
    expect(status).toBe(200);
    const rows = await waitFor(async () => {
      const found = await rowsOf(requestId);
      return found.length > 0 ? found : null;
    }, "the stream's usage record");
    await Bun.sleep(50);
    expect(await rowsOf(requestId)).toHaveLength(1);
    expect(rows[0]).toMatchObject({ route: "POST /v1/search (stream)", status: 200 });
    expect(rows[0]!.tokens).toBeGreaterThan(0);
    expect(rows[0]!.costMicros).toBeGreaterThan(0);
  });
});
