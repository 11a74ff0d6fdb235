/**
 * No usage lost: a billable call's record and its debit are in the database
 * before its answer is sent, so nothing waits in a process's memory that
 * money depends on; and while the database will not take usage, billable
 * calls are refused (before they run, or with their answer withheld), never
 * answered unbilled, while calls that move no money go on and their records
 * are written, none dropped, once it is back.
 *
 * The batch flush is set to a minute here: whatever the tests read, the
 * call's own path wrote.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { accounts, usageRecords } from "../../db/schema.ts";
import { jsonOf, startTestApp, type TestAccount, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { openSocket } from "../helpers/websocket.ts";

let world: SearchWorld;
let database: TestDatabase;
let app: TestApp;
let pro: TestAccount;

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  app = await startTestApp(database, {
    env: world.env({ SEARCH_HEDGING: "false" }),
    resolver: world.resolver,
    usage: { flushIntervalMs: 60_000, failureBackoffMs: 300 },
  });
  pro = await app.account({ name: "pro", credit: 50 });
});
afterAll(async () => {
  await app.stop();
  await database.drop();
  world.stop();
});

const post = (path: string, body: unknown, requestId: string, extra: Record<string, string> = {}) =>
  app.fetch(path, {
    method: "POST",
    headers: { "X-API-Key": pro.apiKey, "content-type": "application/json", "x-request-id": requestId, ...extra },
    body: JSON.stringify(body),
  });

/** Read straight from the table: no flush. */
const rowsOf = (requestId: string) => app.db.select().from(usageRecords).where(eq(usageRecords.requestId, requestId));
const balance = async () =>
  (await app.db.select({ micros: accounts.balanceMicros }).from(accounts).where(eq(accounts.id, pro.accountId)))[0]!.micros;

describe("a billable call's usage is written before its answer is sent", () => {
  test("a search: its record and its debit are in the database when the answer arrives", async () => {
    const before = await balance();
    const response = await post("/v1/search", { prompt: "river bridge cost" }, "req_durable_search");
    expect(response.status).toBe(200);
    const answer = await response.json();
    const rows = await rowsOf("req_durable_search");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ route: "POST /v1/search", status: 200, tokens: answer.info.token_usage });
    expect(rows[0]!.costMicros).toBeGreaterThan(0);
    expect(rows[0]!.eventId).toMatch(/^use_/);
    expect(await balance()).toBe(before - rows[0]!.costMicros);
  });

  test("a page read, and a search streamed over SSE and over the WebSocket: each written before it ends", async () => {
    const read = await post("/v1/contents", { url: world.url("news.test", "/bridge.html") }, "req_durable_contents");
    expect(read.status).toBe(200);
    expect(await rowsOf("req_durable_contents")).toHaveLength(1);
    const streamed = await post("/v1/search", { prompt: "river bridge cost" }, "req_durable_sse", { accept: "text/event-stream" });
    expect(await streamed.text()).toContain("event: response");
    expect((await rowsOf("req_durable_sse")).map((r) => [r.route, r.status])).toEqual([["POST /v1/search (stream)", 200]]);
    const socket = await openSocket(`${app.url.replace("http", "ws")}/v1/ws/search`, {
      headers: { "X-API-Key": pro.apiKey, "x-request-id": "req_durable_ws" },
      send: JSON.stringify({ prompt: "river bridge cost" }),
    });
    expect(socket.closeReason).toBe("done");
    expect((await rowsOf("req_durable_ws")).map((r) => [r.route, r.status])).toEqual([["WS /v1/ws/search", 200]]);
  });
});

describe("while the database will not take usage", () => {
  test("billable calls are refused, never answered unbilled; cheap calls go on; once it is back nothing was dropped", async () => {
    await app.db.execute(sql`
      create function refuse_usage() returns trigger language plpgsql as $$
      begin
        raise exception 'usage refused for the test';
      end $$`);
    await app.db.execute(sql`create trigger refuse_usage before insert on usage_records for each row execute function refuse_usage()`);
    try {
      // The run answers, but its usage cannot be written: the answer is withheld.
      const withheld = await post("/v1/search", { prompt: "river bridge cost" }, "req_refused_1");
      expect(withheld.status).toBe(503);
      expect(await jsonOf(withheld)).toMatchObject({ error: "usage_unavailable" });
      // Right after, billable calls are refused before they run: no provider is asked.
      const asked = world.searxng.requests.length;
      const refused = await post("/v1/search", { prompt: "river bridge cost" }, "req_refused_2");
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(world.searxng.requests.length).toBe(asked);
      // A call that moves no money is answered; its record waits for the database.
      const cheap = await app.fetch("/v1/account", { headers: { "X-API-Key": pro.apiKey, "x-request-id": "req_cheap_meanwhile" } });
      expect(cheap.status).toBe(200);
      await app.usage.flush();
      expect(await rowsOf("req_cheap_meanwhile")).toHaveLength(0);
    } finally {
      await app.db.execute(sql`drop trigger refuse_usage on usage_records`);
    }
    await Bun.sleep(350);
    const again = await post("/v1/search", { prompt: "river bridge cost" }, "req_after_outage");
    expect(again.status).toBe(200);
    expect(await rowsOf("req_after_outage")).toHaveLength(1);
    await app.usage.flush();
    // The cheap call's record, kept through the outage, and the withheld call's, with no tokens and no cost.
    expect(await rowsOf("req_cheap_meanwhile")).toHaveLength(1);
    expect((await rowsOf("req_refused_1")).map((r) => [r.status, r.tokens, r.costMicros])).toEqual([[503, 0, 0]]);
  });
});
