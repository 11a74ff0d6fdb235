/**
 * Tasks on the real app, its job queue (pg-boss) on the test's database
 * (PGlite, or Postgres with TEST_DATABASE_URL), against the loopback web:
 * created, followed as events to the synchronous call's own answer, billed
 * once under the task's id; idempotent creates; canceled before and during
 * a run; listed by status a page at a time; one Free account's tasks one
 * at a time; hostile bodies refused; another account's task a 404.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { tasks, usageRecords } from "../../db/schema.ts";
import { TaskEvents } from "../../src/tasks/events.ts";
import { insertTask } from "../../src/tasks/queries.ts";
import { taskEventId } from "../../src/tasks/run.ts";
import { FINAL_EVENT_GRACE_MS } from "../../src/tasks/stream.ts";
import { newId } from "../../src/ids.ts";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { landmarkEndpoint, client as restClient } from "../helpers/endpoints.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;
let accountId: string;

const QUESTION = "What did the council decide about the river bridge?";

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  // Providers are given time, so a run held open by a slow one (world.slowOver) stays open until it is stopped.
  app = await startTestApp(database, {
    env: world.env({ TASK_POLL_SECONDS: "0.5", PROVIDER_TIMEOUT_MS: "10000" }),
    resolver: world.resolver,
  });
  const account = await app.account({ limit: 100_000 });
  apiKey = account.apiKey;
  accountId = account.accountId;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

const headers = (key = apiKey, extra: Record<string, string> = {}) => ({ "X-API-Key": key, "content-type": "application/json", ...extra });
const create = (body: unknown, key = apiKey, extra: Record<string, string> = {}) =>
  app.fetch("/v1/tasks", { method: "POST", headers: headers(key, extra), body: JSON.stringify(body) });
const read = (id: string, key = apiKey) => app.fetch(`/v1/tasks/${id}`, { headers: headers(key) });

/** The task once it has finished: its event stream read to its end (one call, as a Free account's limit allows), then the task. */
async function settled(id: string, key = apiKey): Promise<any> {
  await (await app.fetch(`/v1/tasks/${id}/events`, { headers: headers(key) })).text();
  const task = await jsonOf(read(id, key));
  if (!["succeeded", "failed", "canceled"].includes(task.status)) throw new Error(`task ${id} still ${task.status}`);
  return task;
}

/** The stream's events as {id, event, data}, read to its end. */
async function eventsOf(response: Response): Promise<{ id: string | null; event: string; data: any }[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => {
      const field = (name: string) =>
        block
          .split("\n")
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? null;
      return { id: field("id"), event: field("event")!, data: JSON.parse(field("data")!) };
    });
}

describe("a search task", () => {
  test("created (202), followed as events to the end, its result exactly the synchronous answer, billed once under its id", async () => {
    const created = await create({ prompt: QUESTION, metadata: { row: 7 } });
    expect(created.status).toBe(202);
    const task = await created.json();
    expect(task).toMatchObject({ object: "task", status: "queued", kind: "search", endpoint: null, metadata: { row: 7 }, result: null });
    expect(task.id).toMatch(/^task_/);

    const stream = await app.fetch(`/v1/tasks/${task.id}/events`, { headers: headers() });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const events = await eventsOf(stream);
    const statuses = events.filter((e) => e.event === "status").map((e) => e.data.status);
    expect(statuses).toEqual(["queued", "running", "succeeded"]);
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
    const context = events.find((e) => e.event === "context")!.data.content;
    const text = events
      .filter((e) => e.event === "response")
      .map((e) => e.data.content)
      .join("");

    const done = await jsonOf(read(task.id));
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(1);
    expect(done.started_at).not.toBeNull();
    expect(done.finished_at).not.toBeNull();
    expect(done.result.response).toBe(text);
    expect(done.result.context).toEqual(context);
    expect(done.result.info.token_usage).toBeGreaterThan(0);

    // The synchronous call answers the same (the loopback web and the extractive answerer are deterministic).
    const sync = await jsonOf(app.fetch("/v1/search", { method: "POST", headers: headers(), body: JSON.stringify({ prompt: QUESTION }) }));
    expect(done.result.response).toBe(sync.response);
    expect(done.result.context).toEqual(sync.context);

    const records = await app.db
      .select()
      .from(usageRecords)
      .where(eq(usageRecords.eventId, taskEventId(task.id)));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ accountId, route: "POST /v1/tasks (run)", status: 200, tokens: done.result.info.token_usage });
  });

  test("the event stream resumes after Last-Event-ID, and a finished task's stream replays and ends", async () => {
    const task = await jsonOf(create({ prompt: QUESTION }));
    await settled(task.id);
    const all = await eventsOf(await app.fetch(`/v1/tasks/${task.id}/events`, { headers: headers() }));
    const rest = await eventsOf(await app.fetch(`/v1/tasks/${task.id}/events`, { headers: headers(apiKey, { "Last-Event-ID": "2" }) }));
    expect(rest).toEqual(all.slice(2));
    expect(rest.at(-1)!.data).toEqual({ type: "status", status: "succeeded" });
  });

  test("a structured answer: the result's response is the object, as the synchronous call gives it", async () => {
    const body = { prompt: QUESTION, output_format: { decision: "string", timeline: "string" } };
    const task = await settled((await jsonOf(create(body))).id);
    expect(task.status).toBe("succeeded");
    expect(Object.keys(task.result.response)).toEqual(["decision", "timeline"]);
  });
});

describe("a task ended before its final event is written", () => {
  /** A task already succeeded in its row, with only its first two events written, as a run leaves it between the two. */
  async function endedWithoutFinalEvent(events: TaskEvents): Promise<string> {
    const id = newId("task", Date.now());
    await insertTask(app.db, {
      id,
      accountId,
      status: "succeeded",
      kind: "search",
      request: JSON.stringify({ prompt: QUESTION }),
      finishedAt: new Date(),
    });
    await events.append(id, { type: "status", status: "queued" });
    await events.append(id, { type: "status", status: "running" });
    return id;
  }

  test("a reader waits for the final event the run writes just after, and ends on it with its id", async () => {
    // Written through another TaskEvents, as another instance would: the reader hears of it only by looking again.
    const events = new TaskEvents(app.db);
    const id = await endedWithoutFinalEvent(events);
    const reading = app.fetch(`/v1/tasks/${id}/events`, { headers: headers() }).then(eventsOf);
    await Bun.sleep(300);
    await events.append(id, { type: "status", status: "succeeded" });
    const read = await reading;
    expect(read.map((e) => [e.id, e.data.status])).toEqual([
      ["1", "queued"],
      ["2", "running"],
      ["3", "succeeded"],
    ]);
  });

  test("a final event that never comes (its instance died) is made from the task once the grace has passed", async () => {
    const id = await endedWithoutFinalEvent(new TaskEvents(app.db));
    const started = performance.now();
    const read = await eventsOf(await app.fetch(`/v1/tasks/${id}/events`, { headers: headers() }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(FINAL_EVENT_GRACE_MS - 50);
    expect(read.at(-1)).toEqual({ id: null, event: "status", data: { type: "status", status: "succeeded" } });
    expect(read).toHaveLength(3);
  });
});

describe("an endpoint's task", () => {
  test("a designed endpoint's task answers what its route answers, billed with its version; a published one bills its publisher's share", async () => {
    const owner = await app.account({ name: "owner", limit: 100_000 });
    const caller = await app.account({ name: "caller", limit: 100_000 });
    const designed = (await restClient(app, owner.apiKey).json("POST", "/v1/design-api", landmarkEndpoint)).response;
    const publicStub = `landmarks-${crypto.randomUUID().slice(0, 8)}`;
    await restClient(app, owner.apiKey).json("POST", `/v1/design-api/${designed.id}/publish`, { public_stub: publicStub });
    const inputs = { landmark: "Eiffel Tower" };

    const own = await create({ endpoint: designed.stub, inputs }, owner.apiKey);
    expect(own.status).toBe(202);
    const ownTask = await settled((await own.json()).id, owner.apiKey);
    expect(ownTask).toMatchObject({ status: "succeeded", kind: "endpoint", endpoint: designed.stub });
    const direct = await restClient(app, owner.apiKey).json("POST", `/v1/user-defined-service/${designed.stub}`, inputs);
    expect(ownTask.result.response).toEqual(direct.response);
    const [ownRecord] = await app.db
      .select()
      .from(usageRecords)
      .where(eq(usageRecords.eventId, taskEventId(ownTask.id)));
    expect(ownRecord).toMatchObject({ route: "POST /v1/tasks (run)", status: 200, apiId: designed.id });
    expect(ownRecord!.tokens).toBeGreaterThan(0);

    const theirs = await settled((await jsonOf(create({ published: publicStub, inputs }, caller.apiKey))).id, caller.apiKey);
    expect(theirs).toMatchObject({ status: "succeeded", kind: "published", endpoint: publicStub });
    expect(theirs.result.response).toEqual(direct.response);
    const [record] = await app.db
      .select()
      .from(usageRecords)
      .where(eq(usageRecords.eventId, taskEventId(theirs.id)));
    expect(record).toMatchObject({ accountId: caller.accountId, publisherAccountId: owner.accountId, status: 200 });

    // The endpoint's own checks, before anything is queued: its inputs, and whose endpoint it is.
    const missing = await create({ endpoint: designed.stub, inputs: {} }, owner.apiKey);
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe("missing_inputs");
    expect((await create({ endpoint: designed.stub, inputs: { landmark: ["x"] } }, owner.apiKey)).status).toBe(422);
    expect((await create({ endpoint: designed.stub, inputs: [1] }, owner.apiKey)).status).toBe(422);
    expect((await create({ endpoint: designed.stub, inputs }, caller.apiKey)).status).toBe(404);
    expect((await create({ endpoint: designed.stub, prompt: "x", inputs }, owner.apiKey)).status).toBe(422);
    expect((await create({ endpoint: designed.stub, output_format: { a: "string" }, inputs }, owner.apiKey)).status).toBe(422);
  });
});

describe("idempotency", () => {
  test("a retried create with the same Idempotency-Key answers the first task (200); another body under it is a 409", async () => {
    const key = { "Idempotency-Key": `retry-${crypto.randomUUID()}` };
    const first = await create({ prompt: QUESTION }, apiKey, key);
    expect(first.status).toBe(202);
    const again = await create({ prompt: QUESTION }, apiKey, key);
    expect(again.status).toBe(200);
    const [a, b] = [await first.json(), await again.json()];
    expect(b.id).toBe(a.id);
    const other = await create({ prompt: "Something else entirely about the bridge" }, apiKey, key);
    expect(other.status).toBe(409);
    expect((await other.json()).error).toBe("conflict");
    // Another account's same key is its own.
    const stranger = await app.account({ limit: 100_000 });
    const theirs = await create({ prompt: QUESTION }, stranger.apiKey, key);
    expect(theirs.status).toBe(202);
    expect((await theirs.json()).id).not.toBe(a.id);
  });

  test("a malformed Idempotency-Key is a 422", async () => {
    const response = await create({ prompt: QUESTION }, apiKey, { "Idempotency-Key": "has space" });
    expect(response.status).toBe(422);
  });
});

describe("cancel", () => {
  test("a task canceled while it runs stops, stays canceled and is not billed", async () => {
    world.slowOver("lighthouse", 8_000);
    const task = await jsonOf(create({ prompt: "Who keeps the lighthouse on the bridge?" }));
    const until = Date.now() + 15_000;
    while ((await jsonOf(read(task.id))).status !== "running") {
      if (Date.now() > until) throw new Error("the task never ran");
      await Bun.sleep(50);
    }
    // Running is written when the task is taken; its run counts in a moment later.
    for (const until = Date.now() + 5_000; app.load.value === 0 && Date.now() < until; ) await Bun.sleep(20);
    expect(app.load.value).toBe(1);
    const started = Date.now();
    const canceled = await app.fetch(`/v1/tasks/${task.id}/cancel`, { method: "POST", headers: headers() });
    expect(canceled.status).toBe(200);
    expect((await canceled.json()).status).toBe("canceled");
    const events = await eventsOf(await app.fetch(`/v1/tasks/${task.id}/events`, { headers: headers() }));
    expect(events.at(-1)!.data).toEqual({ type: "status", status: "canceled" });
    // The run itself stops within a second or so of the cancel; its providers would have held it 8.
    while (app.load.value > 0 && Date.now() - started < 7_000) await Bun.sleep(50);
    expect(app.load.value).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await jsonOf(read(task.id))).status).toBe("canceled");
    const records = await app.db
      .select()
      .from(usageRecords)
      .where(eq(usageRecords.eventId, taskEventId(task.id)));
    expect(records.filter((r) => r.tokens > 0)).toHaveLength(0);
    // A finished task cannot be canceled again.
    const twice = await app.fetch(`/v1/tasks/${task.id}/cancel`, { method: "POST", headers: headers() });
    expect(twice.status).toBe(409);
  });

  test("a task canceled before it runs never runs and costs nothing", async () => {
    // A Free account runs one task at a time: its second waits behind the first (held open by the slow providers).
    world.slowOver("harbour", 3_000);
    const free = await app.account();
    const first = await jsonOf(create({ prompt: "What happened at the harbour bridge?" }, free.apiKey));
    const second = await jsonOf(create({ prompt: QUESTION }, free.apiKey));
    await Bun.sleep(1_000);
    expect((await jsonOf(read(first.id, free.apiKey))).status).toBe("running");
    expect((await jsonOf(read(second.id, free.apiKey))).status).toBe("queued");
    const canceled = await jsonOf(app.fetch(`/v1/tasks/${second.id}/cancel`, { method: "POST", headers: headers(free.apiKey) }));
    expect(canceled.status).toBe("canceled");
    await settled(first.id, free.apiKey);
    await Bun.sleep(1_500);
    const after = await jsonOf(read(second.id, free.apiKey));
    expect(after).toMatchObject({ status: "canceled", attempts: 0, started_at: null, result: null });
    const records = await app.db
      .select()
      .from(usageRecords)
      .where(eq(usageRecords.eventId, taskEventId(second.id)));
    expect(records).toHaveLength(0);
  });
});

describe("a Free account's tasks run one at a time", () => {
  test("three tasks of one Free account never overlap", async () => {
    world.slowOver("ferry", 400);
    const free = await app.account();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await jsonOf(create({ prompt: `When does the ferry cross the bridge river ${i}?` }, free.apiKey))).id);
    const done = await Promise.all(ids.map((id) => settled(id, free.apiKey)));
    expect(done.map((task) => task.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    const spans = done.map((task) => [Date.parse(task.started_at), Date.parse(task.finished_at)] as const).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
  });
});

describe("a dashboard session's tasks", () => {
  test("spend the plan's calls a minute when they start to run: past a Free session's 10, its tasks wait, unclaimed, not failed", async () => {
    const signup = await app.fetch("/auth/signup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `pace-${crypto.randomUUID().slice(0, 8)}@example.com`, password: "correct horse battery" }),
    });
    const body = await signup.json();
    const session = {
      cookie: signup.headers.get("set-cookie")!.split(";")[0]!,
      "x-csrf-token": body.csrf_token,
      "content-type": "application/json",
    };
    const started = Date.now();
    for (let i = 0; i < 14; i++) {
      const created = await app.fetch("/v1/tasks", {
        method: "POST",
        headers: session,
        body: JSON.stringify({ prompt: `${QUESTION} (${i})` }),
      });
      expect(created.status).toBe(202);
    }
    // Read from the database: the rows say it plainly, and reading spends nothing.
    const rows = async () => app.db.select().from(tasks).where(eq(tasks.accountId, body.account.id));
    const until = Date.now() + 30_000;
    while ((await rows()).filter((row) => row.status === "succeeded").length < 10 && Date.now() < until) await Bun.sleep(200);
    await Bun.sleep(1_500);
    const now = await rows();
    const succeeded = now.filter((row) => row.status === "succeeded").length;
    // 10 at once, and one more for each 6 s the plan refilled meanwhile (a loaded machine is slower): never all 14.
    expect(succeeded).toBeGreaterThanOrEqual(10);
    expect(succeeded).toBeLessThanOrEqual(10 + Math.ceil((Date.now() - started) / 6_000));
    const waiting = now.filter((row) => row.status === "queued");
    expect(waiting.length).toBeGreaterThan(0);
    for (const row of waiting) expect(row).toMatchObject({ attempts: 0, startedAt: null });
    expect(now.filter((row) => row.status === "failed")).toHaveLength(0);
  });
});

describe("listing", () => {
  test("newest first, filtered by status, a page at a time with a cursor, only the account's own", async () => {
    const mine = await app.account({ limit: 100_000 });
    const ids: string[] = [];
    // The last one's providers hold its run open (as the cancel tests do), so it is still queued or running when it is
    // canceled: a quick one could finish first, and the cancel would be a 409 (seen once in CI).
    world.slowOver("lighthouse", 8_000);
    for (let i = 0; i < 5; i++) {
      const prompt = i === 4 ? "Who keeps the lighthouse on the bridge? (listing)" : `${QUESTION} (${i})`;
      ids.push((await jsonOf(create({ prompt }, mine.apiKey))).id);
    }
    const cancel = await app.fetch(`/v1/tasks/${ids[4]}/cancel`, { method: "POST", headers: headers(mine.apiKey) });
    expect(cancel.status).toBe(200);
    const first = await jsonOf(app.fetch("/v1/tasks?limit=2", { headers: headers(mine.apiKey) }));
    expect(first.object).toBe("list");
    expect(first.data.map((task: { id: string }) => task.id)).toEqual([ids[4], ids[3]]);
    expect(first.has_more).toBe(true);
    const second = await jsonOf(app.fetch(`/v1/tasks?limit=2&cursor=${first.next_cursor}`, { headers: headers(mine.apiKey) }));
    expect(second.data.map((task: { id: string }) => task.id)).toEqual([ids[2], ids[1]]);
    const last = await jsonOf(app.fetch(`/v1/tasks?limit=2&cursor=${second.next_cursor}`, { headers: headers(mine.apiKey) }));
    expect(last.data.map((task: { id: string }) => task.id)).toEqual([ids[0]]);
    expect(last).toMatchObject({ has_more: false, next_cursor: null });
    const canceled = await jsonOf(app.fetch("/v1/tasks?status=canceled", { headers: headers(mine.apiKey) }));
    expect(canceled.data.map((task: { id: string }) => task.id)).toEqual([ids[4]]);
    expect((await app.fetch("/v1/tasks?status=lost", { headers: headers(mine.apiKey) })).status).toBe(422);
    expect((await app.fetch("/v1/tasks?cursor=nonsense", { headers: headers(mine.apiKey) })).status).toBe(400);
  });
});

describe("what is refused", () => {
  test("another account's task is a 404 on every route, as is a task that does not exist", async () => {
    const task = await jsonOf(create({ prompt: QUESTION }));
    const stranger = await app.account({ limit: 100_000 });
    for (const [path, method] of [
      [`/v1/tasks/${task.id}`, "GET"],
      [`/v1/tasks/${task.id}/events`, "GET"],
      [`/v1/tasks/${task.id}/cancel`, "POST"],
      ["/v1/tasks/task_00000000000000000000000000", "GET"],
      ["/v1/tasks/nonsense", "GET"],
    ] as const) {
      const response = await app.fetch(path, { method, headers: headers(stranger.apiKey) });
      expect(response.status).toBe(404);
      expect((await response.json()).error).toBe("not_found");
    }
  });

  test("bad bodies are 4xx with the usual bodies, and nothing is queued", async () => {
    const before = (await jsonOf(app.fetch("/v1/tasks?limit=100", { headers: headers() }))).data.length;
    const cases: [unknown, number][] = [
      [{}, 422],
      [{ prompt: QUESTION, endpoint: "x" }, 422],
      [{ prompt: QUESTION, webhok: { url: "https://example.com" } }, 422],
      [{ prompt: QUESTION, inputs: { a: 1 } }, 422],
      [{ prompt: "" }, 422],
      [{ prompt: QUESTION, output_format: { a: "nonsense" } }, 422],
      [{ prompt: QUESTION, metadata: { blob: "x".repeat(5_000) } }, 422],
      [{ prompt: QUESTION, metadata: [1, 2] }, 422],
      [{ endpoint: "no-such-endpoint", inputs: {} }, 404],
      [{ published: "no-such-listing", inputs: {} }, 404],
      [{ prompt: QUESTION, webhook: { url: "https://10.0.0.1/x" } }, 422],
    ];
    for (const [body, status] of cases) {
      const response = await create(body);
      expect({ body, status: response.status }).toEqual({ body, status });
      const answer = await response.json();
      expect(typeof (answer.detail ?? answer.error)).not.toBe("undefined");
    }
    const nul = await app.fetch("/v1/tasks", { method: "POST", headers: headers(), body: '{"prompt": "a\\u0000b"}' });
    expect(nul.status).toBeGreaterThanOrEqual(400);
    expect(nul.status).toBeLessThan(500);
    const after = (await jsonOf(app.fetch("/v1/tasks?limit=100", { headers: headers() }))).data.length;
    expect(after).toBe(before);
  });

  test("past the bound of queued tasks an account gets a 429 that says why", async () => {
    // A database of its own: the main app's workers would take these tasks off the queue.
    const own = await freshDatabase();
    const bounded = await startTestApp(own, {
      env: world.env({ TASK_QUEUED_MAX: "2", TASK_WORKERS: "0" }),
      resolver: world.resolver,
    });
    try {
      const key = (await bounded.account({ limit: 100_000 })).apiKey;
      const post = () => bounded.fetch("/v1/tasks", { method: "POST", headers: headers(key), body: JSON.stringify({ prompt: QUESTION }) });
      expect((await post()).status).toBe(202);
      expect((await post()).status).toBe(202);
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("30");
      expect((await refused.json()).detail).toContain("tasks waiting to run");
    } finally {
      await bounded.stop();
      await own.drop();
    }
  });
});
