/**
 * Monitors on the real app, its job queue and scheduler on the test's
 * database (PGlite, or Postgres with TEST_DATABASE_URL), against the
 * loopback web, on a short schedule the operator allows
 * (MONITOR_MIN_EVERY_MINUTES): runs come on schedule, each a task; a run's
 * answer is compared with the last one, and reported changed only when the
 * page behind it changed; paused, resumed, changed and deleted; hostile
 * bodies refused; another account's monitor a 404.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { article } from "../helpers/peers/pages.ts";
import { startWebhookReceiver } from "../helpers/webhook-receiver.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;

const QUESTION = "What did the council decide about the river bridge?";

/** A webhook receiver on loopback: keeps every message it is sent. */
const receiver = startWebhookReceiver();
const received = receiver.received;
const receiverUrl = receiver.url("/monitor-hook");
/** 3 seconds: the shortest this app allows (MONITOR_MIN_EVERY_MINUTES below). */
const EVERY = 0.05;

/** Pages are fetched afresh by every run (CONTENTS_MAX_AGE_SECONDS=0): a changed page is seen by the next run. */
const fleetEnv = () =>
  world.env({
    FETCH_ALLOW_HOSTS: `${world.env().FETCH_ALLOW_HOSTS},${receiver.host}`,
    TASK_POLL_SECONDS: "0.5",
    MONITOR_MIN_EVERY_MINUTES: String(EVERY),
    MONITOR_TICK_SECONDS: "0.5",
    CONTENTS_MAX_AGE_SECONDS: "0",
  });

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, { env: fleetEnv(), resolver: world.resolver });
  apiKey = (await app.account({ limit: 100_000 })).apiKey;
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
  receiver.stop();
});

const headers = (key = apiKey) => ({ "X-API-Key": key, "content-type": "application/json" });
const call = (method: string, path: string, body?: unknown, key = apiKey) =>
  app.fetch(path, { method, headers: headers(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const hook = () => ({ url: world.url("news.test", "/hook") });

/** The monitor's runs (newest first) once `done` holds of them; fails after `ms`. */
async function runsUntil(id: string, done: (runs: any[]) => boolean, ms = 30_000): Promise<any[]> {
  const until = Date.now() + ms;
  for (;;) {
    const runs = (await jsonOf(call("GET", `/v1/monitors/${id}/runs?limit=100`))).data;
    if (done(runs)) return runs;
    if (Date.now() > until) throw new Error(`runs of ${id} never settled: ${JSON.stringify(runs.map((r: any) => [r.status, r.monitor]))}`);
    await Bun.sleep(200);
  }
}

/** The runs that have been compared (succeeded and their comparison written), oldest first. */
const compared = (runs: any[]) => runs.filter((run) => run.monitor !== null).reverse();

const BRIDGE = [
  "The city council approved the new river bridge on Tuesday after a two-year debate about its cost and design.",
  "Construction will begin in March and is expected to take eighteen months, according to the transport department.",
  "The bridge will carry two lanes of traffic, a protected cycle path and a wide walkway for pedestrians.",
];

describe("a monitor on a short schedule over the loopback web", () => {
  test("runs on schedule, each a task; reports a change only when the page changed, with before and after", async () => {
    const created = await call("POST", "/v1/monitors", {
      prompt: QUESTION,
      schedule: { every_minutes: EVERY },
      webhook: { url: receiverUrl },
      metadata: { team: "roads" },
    });
    expect(created.status).toBe(201);
    const monitor = await created.json();
    expect(monitor).toMatchObject({
      object: "monitor",
      status: "active",
      kind: "search",
      endpoint: null,
      request: { prompt: QUESTION },
      schedule: { every_minutes: EVERY },
      webhook: { url: receiverUrl },
      metadata: { team: "roads" },
      last_run: null,
    });
    expect(monitor.id).toMatch(/^mon_/);

    // Three answers with the page as it was: the first has nothing to compare with, the next two are no change.
    const first = compared(await runsUntil(monitor.id, (runs) => compared(runs).length >= 3));
    expect(first[0].monitor).toEqual({ compared: false, changed: false, changes: null });
    expect(first[1].monitor).toEqual({ compared: true, changed: false, changes: null });
    expect(first[2].monitor).toEqual({ compared: true, changed: false, changes: null });
    // Runs are a schedule's, not a burst: one at a time, about EVERY apart.
    const started = first.map((run) => Date.parse(run.created_at));
    expect(started[2]! - started[1]!).toBeGreaterThanOrEqual(EVERY * 60_000 - 1_000);
    for (const run of first) expect(run).toMatchObject({ object: "task", status: "succeeded", kind: "search" });
    const read = await jsonOf(call("GET", `/v1/monitors/${monitor.id}`));
    expect(read.last_run).not.toBeNull();

    // Paused, nothing more starts; the page changes; resumed, the next run sees the change.
    const paused = await jsonOf(call("PATCH", `/v1/monitors/${monitor.id}`, { status: "paused" }));
    expect(paused.status).toBe("paused");
    const settled = await runsUntil(monitor.id, (runs) => runs.every((run) => ["succeeded", "failed", "canceled"].includes(run.status)));
    await Bun.sleep(EVERY * 60_000 + 500);
    const whilePaused = (await jsonOf(call("GET", `/v1/monitors/${monitor.id}/runs?limit=100`))).data;
    expect(whilePaused.length).toBe(settled.length);
    expect(compared(settled).every((run) => run.monitor.changed === false)).toBe(true);

    world.site.put(
      "/bridge.html",
      article(
        "Council approves the river bridge",
        [
          "The city council postponed its vote on the new river bridge on Tuesday after a two-year debate about its cost and design.",
          ...BRIDGE.slice(1),
        ],
        { site: "news.test" },
      ),
    );
    try {
      const resumed = await jsonOf(call("PATCH", `/v1/monitors/${monitor.id}`, { status: "active" }));
      expect(resumed.status).toBe("active");
      const after = compared(await runsUntil(monitor.id, (runs) => compared(runs).length >= compared(settled).length + 2));
      const [changed, steady] = after.slice(compared(settled).length);
      expect(changed.monitor.compared).toBe(true);
      expect(changed.monitor.changed).toBe(true);
      expect(changed.monitor.changes.kind).toBe("prose");
      const claims = changed.monitor.changes.claims;
      expect(claims.added.some((claim: string) => claim.includes("postponed"))).toBe(true);
      expect(claims.removed.length).toBeGreaterThan(0);
      // The page as changed, read again: no change.
      expect(steady.monitor).toEqual({ compared: true, changed: false, changes: null });
      // The comparison is the run's own event too, before its final status.
      const events = await (await app.fetch(`/v1/tasks/${changed.id}/events`, { headers: headers() })).text();
      const types = [...events.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
      expect(types.slice(-2)).toEqual(["monitor", "status"]);
      // Its webhook heard monitor.changed once, for the change and for nothing else, verified by standardwebhooks.
      const secret = (await jsonOf(call("GET", "/v1/webhooks/secret"))).secret as string;
      const mine = () => received.filter((message) => JSON.parse(message.body).data?.monitor?.id === monitor.id);
      const until = Date.now() + 10_000;
      while (mine().length === 0 && Date.now() < until) await Bun.sleep(100);
      await Bun.sleep(500);
      expect(mine()).toHaveLength(1);
      const event = new Webhook(secret).verify(mine()[0]!.body, mine()[0]!.headers) as { type: string; data: any };
      expect(event.type).toBe("monitor.changed");
      expect(event.data.task_id).toBe(changed.id);
      expect(event.data.changes.claims.added.some((claim: string) => claim.includes("postponed"))).toBe(true);
      expect(JSON.stringify(event.data.before)).not.toContain("postponed");
      expect(JSON.stringify(event.data.after)).toContain("postponed");
    } finally {
      world.site.put("/bridge.html", article("Council approves the river bridge", BRIDGE, { site: "news.test" }));
      await call("DELETE", `/v1/monitors/${monitor.id}`);
    }
  });
});

describe("across a fleet", () => {
  test("two instances looking for due monitors on one database start each run once, on schedule", async () => {
    const second = await startTestApp(database, { env: fleetEnv(), resolver: world.resolver });
    try {
      // Its scheduler runs once its job queue has started, as a server's does at its start.
      await second.jobs.start();
      const monitor = await jsonOf(call("POST", "/v1/monitors", { prompt: QUESTION, schedule: { every_minutes: EVERY }, webhook: hook() }));
      const runs = compared(await runsUntil(monitor.id, (all) => compared(all).length >= 4)).slice(0, 4);
      const starts = runs.map((run) => Date.parse(run.created_at));
      // A run claimed twice would start twice within a tick; each is about EVERY after the one before.
      for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(EVERY * 60_000 - 1_000);
      expect(runs.slice(1).every((run) => run.monitor.changed === false)).toBe(true);
      await call("DELETE", `/v1/monitors/${monitor.id}`);
    } finally {
      await second.stop();
    }
  });
});

describe("a cron schedule", () => {
  test("runs come at the cron's times (here every 6 seconds, the schedule's seconds field)", async () => {
    const monitor = await jsonOf(call("POST", "/v1/monitors", { prompt: QUESTION, schedule: { cron: "*/6 * * * * *" }, webhook: hook() }));
    expect(Date.parse(monitor.next_run_at) % 6_000).toBe(0);
    const runs = compared(await runsUntil(monitor.id, (all) => compared(all).length >= 2)).slice(0, 2);
    await call("DELETE", `/v1/monitors/${monitor.id}`);
    // Each run starts within a look (MONITOR_TICK_SECONDS) and a little after a multiple of 6 s.
    for (const run of runs) expect(Date.parse(run.created_at) % 6_000).toBeLessThan(1_500);
    expect(runs[1].monitor).toEqual({ compared: true, changed: false, changes: null });
  });
});

describe("reading, changing and deleting", () => {
  test("listed newest first a page at a time; changed by PATCH; deleted (200), then a 404, its runs still tasks", async () => {
    const body = { prompt: QUESTION, schedule: { cron: "0 9 * * 1" }, webhook: hook(), status: "paused" };
    const a = await jsonOf(call("POST", "/v1/monitors", body));
    const b = await jsonOf(call("POST", "/v1/monitors", body));
    // A cron's first run is at its first time: Monday 09:00 UTC.
    const next = new Date(a.next_run_at);
    expect(next.getUTCDay()).toBe(1);
    expect(next.getUTCHours()).toBe(9);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    const page = await jsonOf(call("GET", "/v1/monitors?limit=1"));
    expect(page.data.map((m: any) => m.id)).toEqual([b.id]);
    expect(page.has_more).toBe(true);
    const rest = await jsonOf(call("GET", `/v1/monitors?limit=100&cursor=${page.next_cursor}`));
    expect(rest.data.map((m: any) => m.id)).toContain(a.id);

    const changed = await jsonOf(
      call("PATCH", `/v1/monitors/${a.id}`, {
        schedule: { every_minutes: 60 },
        metadata: { x: 1 },
        webhook: { url: "https://hooks.example.com/m" },
      }),
    );
    expect(changed).toMatchObject({ schedule: { every_minutes: 60 }, metadata: { x: 1 }, webhook: { url: "https://hooks.example.com/m" } });
    const due = Date.parse(changed.next_run_at) - Date.now();
    expect(due).toBeGreaterThan(59 * 60_000);
    expect(due).toBeLessThanOrEqual(60 * 60_000);
    expect(Date.parse(changed.updated_at)).toBeGreaterThanOrEqual(Date.parse(a.updated_at));

    const deleted = await call("DELETE", `/v1/monitors/${a.id}`);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: a.id, object: "monitor", deleted: true });
    expect((await call("GET", `/v1/monitors/${a.id}`)).status).toBe(404);
    expect((await call("DELETE", `/v1/monitors/${a.id}`)).status).toBe(404);
    await call("DELETE", `/v1/monitors/${b.id}`);
  });
});

describe("what is refused", () => {
  test("another account's monitor is a 404 on every route, as is one that does not exist", async () => {
    const monitor = await jsonOf(
      call("POST", "/v1/monitors", { prompt: QUESTION, schedule: { every_minutes: 60 }, webhook: hook(), status: "paused" }),
    );
    const stranger = await app.account({ limit: 100_000 });
    for (const [method, path, body] of [
      ["GET", `/v1/monitors/${monitor.id}`],
      ["PATCH", `/v1/monitors/${monitor.id}`, { status: "active" }],
      ["DELETE", `/v1/monitors/${monitor.id}`],
      ["GET", `/v1/monitors/${monitor.id}/runs`],
      ["GET", "/v1/monitors/mon_00000000000000000000000000"],
      ["GET", "/v1/monitors/nonsense/runs"],
    ] as const) {
      const response = await call(method, path, body, stranger.apiKey);
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      expect((await response.json()).error).toBe("not_found");
    }
    expect((await jsonOf(call("GET", "/v1/monitors", undefined, stranger.apiKey))).data).toEqual([]);
    // Untouched by the stranger's PATCH and DELETE.
    expect((await jsonOf(call("GET", `/v1/monitors/${monitor.id}`))).status).toBe("paused");
    await call("DELETE", `/v1/monitors/${monitor.id}`);
  });

  test("hostile bodies are 4xx naming the problem, and nothing is made", async () => {
    const before = (await jsonOf(call("GET", "/v1/monitors?limit=100"))).data.length;
    const base = { prompt: QUESTION, schedule: { every_minutes: 60 }, webhook: hook() };
    const cases: [string, unknown, number, RegExp][] = [
      ["a cron out of range", { ...base, schedule: { cron: "61 * * * *" } }, 422, /cron is not valid/],
      ["a cron that is words", { ...base, schedule: { cron: "whenever you like" } }, 422, /cron/],
      ["a cron of three fields", { ...base, schedule: { cron: "1 2 3" } }, 422, /5 fields/],
      ["a cron every second", { ...base, schedule: { cron: "* * * * * *" } }, 422, /more often/],
      ["an interval below the minimum", { ...base, schedule: { every_minutes: EVERY / 2 } }, 422, /at least/],
      ["both kinds of schedule", { ...base, schedule: { every_minutes: 60, cron: "0 * * * *" } }, 422, /./],
      ["no schedule", { prompt: QUESTION, webhook: hook() }, 422, /./],
      ["no webhook", { prompt: QUESTION, schedule: { every_minutes: 60 } }, 422, /./],
      ["an unknown field", { ...base, colour: "blue" }, 422, /Extra inputs/],
      ["an unknown field of the webhook", { ...base, webhook: { ...hook(), secret: "x" } }, 422, /./],
      ["a webhook with credentials", { ...base, webhook: { url: "https://user:pw@hooks.example.com/x" } }, 422, /credentials/],
      ["a plain-http webhook", { ...base, webhook: { url: "http://hooks.example.com/x" } }, 422, /https/],
      ["a private address", { ...base, webhook: { url: "https://10.0.0.1/x" } }, 422, /public address/],
      ["a loopback address", { ...base, webhook: { url: "https://127.0.0.1/x" } }, 422, /public address/],
      ["localhost", { ...base, webhook: { url: "https://localhost/x" } }, 422, /public address/],
      ["an IPv6 loopback", { ...base, webhook: { url: "https://[::1]/x" } }, 422, /public address/],
      ["a webhook that is not a URL", { ...base, webhook: { url: "not a url" } }, 422, /URL/],
      ["a webhook and a task's body of two kinds", { ...base, endpoint: "x" }, 422, /exactly one/],
      ["an endpoint that does not exist", { ...base, prompt: undefined, endpoint: "no-such-endpoint", inputs: {} }, 404, /not found/],
    ];
    for (const [name, body, status, words] of cases) {
      const response = await call("POST", "/v1/monitors", body);
      const text = await response.text();
      expect({ name, status: response.status }).toEqual({ name, status });
      expect({ name, text }).toEqual({ name, text: expect.stringMatching(words) });
    }
    for (const raw of [
      '{"prompt": "a\\u0000b", "schedule": {"every_minutes": 60}, "webhook": {"url": "https://hooks.example.com/x"}}',
      '{"prompt": "q", "schedule": {"cron": "0 9 * * 1\\u0000"}, "webhook": {"url": "https://hooks.example.com/x"}}',
      '{"prompt": "q", "schedule": {"every_minutes": 60}, "webhook": {"url": "https://hooks.example.com/\\u0000"}}',
    ]) {
      const response = await app.fetch("/v1/monitors", { method: "POST", headers: headers(), body: raw });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
    expect((await jsonOf(call("GET", "/v1/monitors?limit=100"))).data.length).toBe(before);

    // PATCH takes only what may change, checked as a create checks it.
    const monitor = await jsonOf(call("POST", "/v1/monitors", { ...base, status: "paused" }));
    for (const [body, words] of [
      [{ prompt: "another question" }, /Extra inputs/],
      [{ schedule: { cron: "*/1 * * * * *" } }, /more often/],
      [{ webhook: { url: "https://192.168.1.1/x" } }, /public address/],
      [{ status: "sleeping" }, /./],
    ] as const) {
      const response = await call("PATCH", `/v1/monitors/${monitor.id}`, body);
      expect({ body, status: response.status }).toEqual({ body, status: 422 });
      expect(await response.text()).toMatch(words);
    }
    expect(await jsonOf(call("GET", `/v1/monitors/${monitor.id}`))).toEqual(monitor);
    await call("DELETE", `/v1/monitors/${monitor.id}`);
  });
});
