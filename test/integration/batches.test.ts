/**
 * Batches on the real app, its job queue (pg-boss) on the test's database
 * (PGlite, or Postgres with TEST_DATABASE_URL), against the loopback web: a
 * batch of 20 whose JSON Lines come back in input order, each the endpoint
 * route's own answer; counts; idempotent creates; cancel; the queued bound;
 * a Free account's batch paced by its plan's limit rather than refused;
 * hostile bodies refused; another account's batch a 404.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { batches, tasks } from "../../db/schema.ts";
import { sweepTasks } from "../../src/tasks/service.ts";
import { Webhook } from "standardwebhooks";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { landmarkEndpoint, client as restClient } from "../helpers/endpoints.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startWebhookReceiver } from "../helpers/webhook-receiver.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;
let stub: string;

/** A webhook receiver on loopback (FETCH_ALLOW_HOSTS lets the app call it): keeps every message it is sent. */
const receiver = startWebhookReceiver();
const received = receiver.received;
const receiverUrl = receiver.url("/batch-hook");

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, {
    env: world.env({ TASK_POLL_SECONDS: "0.5", FETCH_ALLOW_HOSTS: `${world.env().FETCH_ALLOW_HOSTS},${receiver.host}` }),
    resolver: world.resolver,
  });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
  stub = (await restClient(app, apiKey).json("POST", "/v1/design-api", landmarkEndpoint)).response.stub;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
  receiver.stop();
});

const headers = (key = apiKey, extra: Record<string, string> = {}) => ({ "X-API-Key": key, "content-type": "application/json", ...extra });
const createOn = (on: TestApp, body: unknown, key = apiKey, extra: Record<string, string> = {}) =>
  on.fetch("/v1/batches", { method: "POST", headers: headers(key, extra), body: typeof body === "string" ? body : JSON.stringify(body) });
const create = (body: unknown, key = apiKey, extra: Record<string, string> = {}) => createOn(app, body, key, extra);
const read = (id: string, key = apiKey, on = app) => jsonOf(on.fetch(`/v1/batches/${id}`, { headers: headers(key) }));

/** The inputs of a batch of `n`: two landmarks the loopback web knows, each in its own city, so every line is its own. */
const inputsOf = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ landmark: i % 2 === 0 ? "Eiffel Tower" : "river bridge", city: `City ${i}` }));

/** The batch once it is no longer running (read every 200 ms, for at most `ms`). */
async function finished(id: string, key = apiKey, ms = 30_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const batch = await read(id, key);
    if (batch.status !== "running") return batch;
    if (Date.now() > until) throw new Error(`batch ${id} still running: ${JSON.stringify(batch.counts)}`);
    await Bun.sleep(200);
  }
}

async function linesOf(id: string, key = apiKey, on = app): Promise<any[]> {
  const response = await on.fetch(`/v1/batches/${id}/results`, { headers: headers(key) });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/jsonl");
  const text = await response.text();
  expect(text.endsWith("\n")).toBe(true);
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
}

describe("a batch", () => {
  test("of 20: 202 with its counts, then its JSON Lines in input order, each line its task and the endpoint route's own answer", async () => {
    const inputs = inputsOf(20);
    const created = await create({ endpoint: stub, inputs, metadata: { run: "nightly" } });
    expect(created.status).toBe(202);
    const batch = await created.json();
    expect(batch).toMatchObject({
      object: "batch",
      status: "running",
      kind: "endpoint",
      endpoint: stub,
      total: 20,
      metadata: { run: "nightly" },
      webhook: null,
      finished_at: null,
    });
    expect(batch.id).toMatch(/^batch_/);
    expect(Object.values(batch.counts).reduce((a: number, b) => a + (b as number), 0)).toBe(20);

    const done = await finished(batch.id);
    expect(done.status).toBe("completed");
    expect(done.counts).toEqual({ queued: 0, running: 0, succeeded: 20, failed: 0, canceled: 0 });
    expect(done.finished_at).not.toBeNull();

    const lines = await linesOf(batch.id);
    expect(lines.map((line) => line.index)).toEqual(inputs.map((_, i) => i));
    expect(new Set(lines.map((line) => line.task_id)).size).toBe(20);
    const direct = new Map<string, unknown>();
    for (const [i, line] of lines.entries()) {
      expect(line).toMatchObject({ status: "succeeded", error: null });
      // The line's task is the one that ran its input, and reads as the line says.
      const [row] = await app.db.select().from(tasks).where(eq(tasks.id, line.task_id));
      expect({ i, request: JSON.parse(row!.request), batch: row!.batchId }).toEqual({ i, request: inputs[i], batch: batch.id });
      const task = await jsonOf(app.fetch(`/v1/tasks/${line.task_id}`, { headers: headers() }));
      expect(task.result).toEqual(line.result);
      const key = JSON.stringify(inputs[i]);
      if (!direct.has(key))
        direct.set(key, (await restClient(app, apiKey).json("POST", `/v1/user-defined-service/${stub}`, inputs[i])).response);
      expect({ i, response: line.result.response }).toEqual({ i, response: direct.get(key) });
    }
    // The two landmarks answer differently: the order is not one answer twenty times.
    expect(lines[0].result.response).not.toEqual(lines[1].result.response);

    const listed = await jsonOf(app.fetch("/v1/batches?limit=1", { headers: headers() }));
    expect(listed).toMatchObject({ object: "list", has_more: false });
    expect(listed.data.map((b: { id: string }) => b.id)).toEqual([batch.id]);
  });

  test("a retried create with the same Idempotency-Key answers the first batch (200); another body under it is a 409", async () => {
    const key = { "Idempotency-Key": `batch-${crypto.randomUUID()}` };
    const body = { endpoint: stub, inputs: inputsOf(2) };
    const first = await create(body, apiKey, key);
    expect(first.status).toBe(202);
    const again = await create(body, apiKey, key);
    expect(again.status).toBe(200);
    const [a, b] = [await first.json(), await again.json()];
    expect(b.id).toBe(a.id);
    expect(await app.db.select().from(tasks).where(eq(tasks.batchId, a.id))).toHaveLength(2);
    const other = await create({ endpoint: stub, inputs: inputsOf(3) }, apiKey, key);
    expect(other.status).toBe(409);
    expect((await other.json()).error).toBe("conflict");
    await finished(a.id);

    // Two at once under a new key: one batch, its tasks once.
    const raced = { "Idempotency-Key": `batch-${crypto.randomUUID()}` };
    const both = await Promise.all([create(body, apiKey, raced), create(body, apiKey, raced)]);
    expect(both.map((response) => response.status).sort()).toEqual([200, 202]);
    const [x, y] = await Promise.all(both.map((response) => response.json()));
    expect(x.id).toBe(y.id);
    expect(await app.db.select().from(tasks).where(eq(tasks.batchId, x.id))).toHaveLength(2);
    await finished(x.id);
  });
});

describe("cancel, and the bound of waiting tasks", () => {
  test("a canceled batch's tasks never run; a batch past the bound is a 429; a batch whose tasks are each canceled completes", async () => {
    // A database of its own with no workers: its tasks wait, so what cancel does is seen whole.
    const own = await freshDatabase();
    const idle = await startTestApp(own, { env: world.env({ TASK_QUEUED_MAX: "5", TASK_WORKERS: "0" }), resolver: world.resolver });
    try {
      const key = (await idle.account({ limit: 100_000 })).apiKey;
      const ownStub = (await restClient(idle, key).json("POST", "/v1/design-api", landmarkEndpoint)).response.stub;
      const first = await jsonOf(createOn(idle, { endpoint: ownStub, inputs: inputsOf(3) }, key));
      expect(first.counts).toEqual({ queued: 3, running: 0, succeeded: 0, failed: 0, canceled: 0 });

      const refused = await createOn(idle, { endpoint: ownStub, inputs: inputsOf(3) }, key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("30");
      expect((await refused.json()).detail).toContain("a batch of 3 does not fit");

      const canceled = await idle.fetch(`/v1/batches/${first.id}/cancel`, { method: "POST", headers: headers(key) });
      expect(canceled.status).toBe(200);
      const view = await canceled.json();
      expect(view).toMatchObject({ status: "canceled", counts: { queued: 0, canceled: 3 } });
      expect(view.finished_at).not.toBeNull();
      const lines = await linesOf(first.id, key, idle);
      expect(lines.map((line) => [line.index, line.status, line.result])).toEqual([
        [0, "canceled", null],
        [1, "canceled", null],
        [2, "canceled", null],
      ]);
      const events = await (await idle.fetch(`/v1/tasks/${lines[0].task_id}/events`, { headers: headers(key) })).text();
      expect(events).toContain('"status":"canceled"');
      const twice = await idle.fetch(`/v1/batches/${first.id}/cancel`, { method: "POST", headers: headers(key) });
      expect(twice.status).toBe(409);

      // Its canceled tasks no longer wait: another batch fits now. Each of its tasks canceled on its own ends it.
      const second = await jsonOf(createOn(idle, { endpoint: ownStub, inputs: inputsOf(2) }, key));
      const ids = (await linesOf(second.id, key, idle)).map((line) => line.task_id);
      for (const id of ids)
        expect((await idle.fetch(`/v1/tasks/${id}/cancel`, { method: "POST", headers: headers(key) })).status).toBe(200);
      const ended = await read(second.id, key, idle);
      expect(ended).toMatchObject({ status: "completed", counts: { canceled: 2 } });
      expect((await idle.fetch(`/v1/batches/${second.id}/cancel`, { method: "POST", headers: headers(key) })).status).toBe(409);

      // Past the retention a finished batch goes with its tasks; a running batch keeps even its finished tasks.
      const third = await jsonOf(createOn(idle, { endpoint: ownStub, inputs: inputsOf(2) }, key));
      const [early] = (await linesOf(third.id, key, idle)).map((line) => line.task_id);
      await idle.fetch(`/v1/tasks/${early}/cancel`, { method: "POST", headers: headers(key) });
      // Listed newest first, a page at a time.
      const page = await jsonOf(idle.fetch("/v1/batches?limit=2", { headers: headers(key) }));
      expect(page.data.map((b: { id: string }) => b.id)).toEqual([third.id, second.id]);
      expect(page.data[0].counts).toEqual({ queued: 1, running: 0, succeeded: 0, failed: 0, canceled: 1 });
      const rest = await jsonOf(idle.fetch(`/v1/batches?limit=2&cursor=${page.next_cursor}`, { headers: headers(key) }));
      expect(rest).toMatchObject({ has_more: false, next_cursor: null });
      expect(rest.data.map((b: { id: string }) => b.id)).toEqual([first.id]);
      expect((await idle.fetch("/v1/batches?cursor=nonsense", { headers: headers(key) })).status).toBe(400);

      const later = { now: () => Date.now() + 31 * 86_400_000 };
      expect(await sweepTasks({ db: idle.db, clock: later, retentionDays: 30 })).toBe(2);
      const left = await idle.db.select().from(tasks);
      expect(left.map((row) => row.batchId)).toEqual([third.id, third.id]);
      expect((await idle.db.select().from(batches)).map((row) => row.id)).toEqual([third.id]);
    } finally {
      await idle.stop();
      await own.drop();
    }
  });
});

describe("a batch's end", () => {
  test("the last task's end completes the batch once, and its webhook hears batch.completed once, signed", async () => {
    const batch = await jsonOf(create({ endpoint: stub, inputs: inputsOf(3), webhook: { url: receiverUrl } }));
    expect(batch.webhook).toEqual({ url: receiverUrl });
    const done = await finished(batch.id);
    expect(done).toMatchObject({ status: "completed", counts: { succeeded: 3 } });
    const mine = () => received.filter((message) => JSON.parse(message.body).data?.batch?.id === batch.id);
    const until = Date.now() + 10_000;
    while (mine().length === 0 && Date.now() < until) await Bun.sleep(100);
    await Bun.sleep(500);
    expect(mine()).toHaveLength(1);
    const secret = (await jsonOf(app.fetch("/v1/webhooks/secret", { headers: headers() }))).secret as string;
    const event = new Webhook(secret).verify(mine()[0]!.body, mine()[0]!.headers) as { type: string; data: { batch: unknown } };
    expect(event.type).toBe("batch.completed");
    expect(event.data.batch).toEqual(await read(batch.id));
  });

  test("1,000 inputs queue at once, and read back in order", async () => {
    const own = await freshDatabase();
    const idle = await startTestApp(own, { env: world.env({ TASK_WORKERS: "0" }), resolver: world.resolver });
    try {
      const owner = await idle.account({ limit: 100_000 });
      const key = owner.apiKey;
      const ownStub = (await restClient(idle, key).json("POST", "/v1/design-api", landmarkEndpoint)).response.stub;
      // The most inputs a batch takes: inserted, evented and queued at once, its results read back a page at a time.
      const largest = await createOn(idle, { endpoint: ownStub, inputs: inputsOf(1_000) }, key);
      expect(largest.status).toBe(202);
      const big = await largest.json();
      expect(big).toMatchObject({ total: 1_000, counts: { queued: 1_000 } });
      const lines = await linesOf(big.id, key, idle);
      expect(lines.map((line) => line.index)).toEqual(Array.from({ length: 1_000 }, (_, i) => i));
      expect(lines.every((line) => line.status === "queued" && line.result === null)).toBe(true);
      const lastTask = await jsonOf(idle.fetch(`/v1/tasks/${lines[999].task_id}`, { headers: headers(key) }));
      expect(lastTask.status).toBe("queued");
    } finally {
      await idle.stop();
      await own.drop();
    }
  });
});

describe("pacing", () => {
  test("a Free account's batch past its calls a minute waits in the queue (not failed, no attempt) and finishes as tokens come back", async () => {
    const free = await app.account({ name: "free" });
    // Two of its 10 calls a minute: the design and the batch's own create. 8 tasks may start at once; 2 wait.
    const freeStub = (await restClient(app, free.apiKey).json("POST", "/v1/design-api", landmarkEndpoint)).response.stub;
    const created = await create({ endpoint: freeStub, inputs: inputsOf(10) }, free.apiKey);
    expect(created.status).toBe(202);
    const batch = await created.json();
    // Read from the database: a read over HTTP would spend the account's calls too.
    const rowsOf = () => app.db.select().from(tasks).where(eq(tasks.batchId, batch.id));
    const until = Date.now() + 15_000;
    let rows = await rowsOf();
    while (rows.filter((row) => row.status === "succeeded").length < 8) {
      if (Date.now() > until) throw new Error(`the batch's first tasks never ran: ${rows.map((row) => row.status)}`);
      await Bun.sleep(100);
      rows = await rowsOf();
    }
    await Bun.sleep(1_000);
    rows = await rowsOf();
    const waiting = rows.filter((row) => row.status === "queued");
    expect(rows.filter((row) => row.status === "failed")).toHaveLength(0);
    expect(waiting.length).toBeGreaterThanOrEqual(1);
    for (const row of waiting) expect({ attempts: row.attempts, startedAt: row.startedAt }).toEqual({ attempts: 0, startedAt: null });

    // A token every 6 s: the rest finish within about 12 s more.
    const finalUntil = Date.now() + 25_000;
    while (rows.some((row) => row.status === "queued" || row.status === "running")) {
      if (Date.now() > finalUntil) throw new Error(`the batch's waiting tasks never ran: ${rows.map((row) => row.status)}`);
      await Bun.sleep(250);
      rows = await rowsOf();
    }
    expect(rows.map((row) => row.status)).toEqual(Array(10).fill("succeeded"));
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
    const starts = rows.map((row) => row.startedAt!.getTime()).sort((a, b) => a - b);
    // The last ones waited for tokens: at least one refill (6 s at 10 a minute) after the first started.
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(4_000);
    // Its tasks spent the account's calls: the batch is read where they are not spent. The batch is completed just
    // after its last task's row says succeeded (tasks/batch-end.ts, once that task has ended), so it is waited for.
    const batchOf = async () => (await app.db.select().from(batches).where(eq(batches.id, batch.id)))[0]!;
    const completedUntil = Date.now() + 5_000;
    let row = await batchOf();
    while (row.status === "running" && Date.now() < completedUntil) {
      await Bun.sleep(50);
      row = await batchOf();
    }
    expect(row.status).toBe("completed");
    const refused = await app.fetch(`/v1/batches/${batch.id}`, { headers: headers(free.apiKey) });
    expect(refused.status).toBe(429);
  }, 45_000);
});

describe("what is refused", () => {
  test("another account's batch is a 404 on every route, as is a batch that does not exist", async () => {
    const batch = await jsonOf(create({ endpoint: stub, inputs: inputsOf(1) }));
    const stranger = await app.account({ limit: 100_000 });
    for (const [path, method] of [
      [`/v1/batches/${batch.id}`, "GET"],
      [`/v1/batches/${batch.id}/results`, "GET"],
      [`/v1/batches/${batch.id}/cancel`, "POST"],
      ["/v1/batches/batch_00000000000000000000000000", "GET"],
      ["/v1/batches/nonsense/results", "GET"],
    ] as const) {
      const response = await app.fetch(path, { method, headers: headers(stranger.apiKey) });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect((await response.json()).error).toBe("not_found");
    }
    const theirs = await jsonOf(app.fetch("/v1/batches", { headers: headers(stranger.apiKey) }));
    expect(theirs.data).toEqual([]);
    await finished(batch.id);
  });

  test("bad bodies are 4xx with the usual bodies, every bad input named at its index, and nothing is created", async () => {
    const owner = await app.account({ limit: 100_000 });
    const mine = (await restClient(app, owner.apiKey).json("POST", "/v1/design-api", landmarkEndpoint)).response.stub;
    const one = [{ landmark: "Eiffel Tower" }];
    const cases: [unknown, number][] = [
      [{ endpoint: mine }, 422],
      [{ endpoint: mine, inputs: [] }, 422],
      [{ endpoint: mine, inputs: inputsOf(1_001) }, 422],
      [{ endpoint: mine, inputs: one, inputz: one }, 422],
      [{ endpoint: mine, inputs: { landmark: "x" } }, 422],
      [{ endpoint: mine, inputs: [1, "two", null, [3]] }, 422],
      [{ endpoint: mine, published: "x", inputs: one }, 422],
      [{ inputs: one }, 422],
      [{ endpoint: mine, inputs: one, prompt: "x" }, 422],
      [{ endpoint: mine, inputs: one, metadata: [1] }, 422],
      [{ endpoint: mine, inputs: one, webhook: { url: "https://10.0.0.1/x" } }, 422],
      [{ endpoint: "no-such-endpoint", inputs: one }, 404],
      [{ published: "no-such-listing", inputs: one }, 404],
      [{ endpoint: stub, inputs: one }, 404],
    ];
    for (const [body, status] of cases) {
      const response = await create(body, owner.apiKey);
      expect({ body: JSON.stringify(body).slice(0, 200), status: response.status }).toEqual({
        body: JSON.stringify(body).slice(0, 200),
        status,
      });
      const answer = await response.json();
      expect(answer.detail ?? answer.error).toBeDefined();
    }
    const nul = await create(`{"endpoint": "${mine}", "inputs": [{"landmark": "a\\u0000b"}]}`, owner.apiKey);
    expect(nul.status).toBeGreaterThanOrEqual(400);
    expect(nul.status).toBeLessThan(500);

    // Every bad input at once, each at its index: a missing one, a mistyped one, one that is not an object.
    const mixed = await create({ endpoint: mine, inputs: [{ landmark: "Eiffel Tower" }, {}, { landmark: 5 }, "x"] }, owner.apiKey);
    expect(mixed.status).toBe(422);
    const locs = (await mixed.json()).detail.map((issue: { loc: unknown[] }) => issue.loc);
    expect(locs).toEqual([
      ["body", "inputs", 1],
      ["body", "inputs", 2, "landmark"],
      ["body", "inputs", 3],
    ]);

    const listed = await jsonOf(app.fetch("/v1/batches", { headers: headers(owner.apiKey) }));
    expect(listed.data).toEqual([]);
    expect(await app.db.select().from(tasks).where(eq(tasks.accountId, owner.accountId))).toEqual([]);
  });
});
