/**
 * /mcp served by a fleet: three instances of the real app on one database
 * (and one Redis key prefix with TEST_REDIS_URL), as a balancer would send a
 * session's requests to any of them. The SDK's own client, whose requests a
 * fetch of its own sends to the instance a test chooses; by hand where a
 * stream must be cut. The sessions' store is the wiring's for the backends:
 * Redis with TEST_REDIS_URL, else Postgres with TEST_DATABASE_URL, else (the
 * embedded database, one process) memory shared by the three.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { backendName } from "../helpers/env.ts";
import { mcpHeaders, mcpPost, openSession, readEvents } from "../helpers/mcp.ts";
import { uniquePrefix } from "../helpers/redis.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";

let database: TestDatabase;
let world: SearchWorld;
let fleet: TestApp[];
let a: TestApp;
let b: TestApp;
let c: TestApp;
let apiKey: string;
let accountId: string;
const open: Client[] = [];

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  const keyPrefix = uniquePrefix("fleet");
  fleet = [];
  for (let i = 0; i < 3; i++) fleet.push(await startTestApp(database, { env: world.env(), resolver: world.resolver, keyPrefix }));
  [a, b, c] = fleet as [TestApp, TestApp, TestApp];
  ({ apiKey, accountId } = await a.account({ name: "agent", limit: 100_000 }));
});
afterAll(async () => {
  for (const mcp of open) await mcp.close().catch(() => {});
  for (const app of fleet) await app.stop();
  await database.drop();
  world.stop();
});

const QUESTION = "When will construction of the river bridge begin?";

/** A client whose every request goes to the instance `via()` names at the time, as a balancer may send it anywhere. */
async function connect(key: string, via: () => TestApp): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => fetch(`${via().url}${new URL(url).pathname}`, init),
  });
  const mcp = new Client({ name: "fleet-test", version: "1.0.0" });
  await mcp.connect(transport);
  open.push(mcp);
  return mcp;
}

/** Each of the three ways into a session, by hand, through `app`; the statuses and JSON-RPC error codes. */
async function everyMethod(app: TestApp, session: string) {
  const answers = [
    await mcpPost(app, apiKey, session, { id: 9, method: "tools/list" }),
    await app.fetch("/mcp", { method: "GET", headers: { ...mcpHeaders(apiKey, session), accept: "text/event-stream" } }),
    await app.fetch("/mcp", { method: "DELETE", headers: mcpHeaders(apiKey, session) }),
  ];
  return Promise.all(answers.map(async (r) => [r.status, ((await r.json()) as { error: { code: number } }).error.code]));
}

describe(`a session on any instance (${backendName})`, () => {
  test("initialised through A, listed and called through B, deleted through C: then, like an unknown id, a 404 with the JSON-RPC error on every instance", async () => {
    let via = a;
    const mcp = await connect(apiKey, () => via);
    const session = mcp.transport!.sessionId!;
    // The client opens its notification stream on A once initialised.
    await waitFor(() => a.mcpSessions.listening(accountId) === 1, "the notification stream on A");

    via = b;
    const names = (await mcp.listTools()).tools.map((t) => t.name);
    expect(names.slice(0, 2)).toEqual(["search", "contents"]);
    const result = await mcp.callTool({ name: "search", arguments: { prompt: QUESTION } });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { context: unknown[] }).context.length).toBeGreaterThan(0);

    via = c;
    await (mcp.transport as StreamableHTTPClientTransport).terminateSession();
    // Ended everywhere: A's stream of it ends too.
    await waitFor(() => a.mcpSessions.listening(accountId) === 0, "the notification stream on A to end");
    for (const app of fleet)
      for (const id of [session, "00000000-0000-4000-8000-000000000000"])
        expect(await everyMethod(app, id)).toEqual([
          [404, -32001],
          [404, -32001],
          [404, -32001],
        ]);
  });

  test("a session is reached only with a key of its account, on any instance", async () => {
    const session = await openSession(a, apiKey);
    const intruder = (await b.account({ name: "intruder", limit: 100_000 })).apiKey;
    for (const app of fleet) {
      expect((await mcpPost(app, intruder, session, { id: 3, method: "tools/list" })).status).toBe(404);
      const mine = await mcpPost(app, apiKey, session, { id: 3, method: "tools/list" });
      expect(mine.status).toBe(200);
      await mine.body!.cancel();
    }
  });
});

describe(`a dropped stream resumes on another instance (${backendName})`, () => {
  test("a search's stream cut on A is resumed on B with Last-Event-ID while the search still runs on A: its progress and answer arrive on B", async () => {
    // The providers answer slowly: the search is still running on A when the client comes back on B.
    world.searxng.setLatency(400);
    world.brave.setLatency(400);
    try {
      const session = await openSession(a, apiKey);
      const call = await mcpPost(a, apiKey, session, {
        id: 2,
        method: "tools/call",
        params: { name: "search", arguments: { prompt: QUESTION }, _meta: { progressToken: "p" } },
      });
      // The priming event hands the cursor; the connection drops after the first progress.
      const before = await readEvents(call, (e) => e.data.includes('"progress":1'));
      const cursor = before.events.findLast((e) => e.id !== undefined)!.id!;
      await before.reader.cancel();

      const resumed = await b.fetch("/mcp", {
        method: "GET",
        headers: { ...mcpHeaders(apiKey, session), accept: "text/event-stream", "last-event-id": cursor },
      });
      expect(resumed.status).toBe(200);
      const { events, reader } = await readEvents(resumed, (e) => e.data.includes('"id":2'));
      await reader.cancel();
      const messages = events.map((e) => JSON.parse(e.data) as { method?: string; params?: { progress?: number }; result?: any });
      expect(messages.filter((m) => m.method === "notifications/progress").map((m) => m.params!.progress)).toEqual([2, 3]);
      const answer = messages.at(-1)!;
      expect(answer.result.content[0].text).toMatch(/\[1\]/);
      expect(answer.result.structuredContent.context.length).toBeGreaterThan(0);
      // Each event once, in order, with the log's ids.
      const ids = events.map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(ids[0]).toBeGreaterThan(Number(cursor));
    } finally {
      world.searxng.setLatency(0);
      world.brave.setLatency(0);
    }
  });

  test("a notification stream resumes on another instance with what it missed", async () => {
    const owner = await a.account({ name: "missed", limit: 100_000 });
    const session = await openSession(a, owner.apiKey);
    const listen = (app: TestApp, lastEventId?: string) =>
      app.fetch("/mcp", {
        method: "GET",
        headers: {
          ...mcpHeaders(owner.apiKey, session),
          accept: "text/event-stream",
          ...(lastEventId ? { "last-event-id": lastEventId } : {}),
        },
      });
    const first = await listen(a);
    await waitFor(() => a.mcpSessions.listening(owner.accountId) === 1, "the notification stream on A");
    const owned = client(c, owner.apiKey);
    await owned.json("POST", "/v1/design-api", { ...landmarkEndpoint, api_name: "First tower facts" });
    const heard = await readEvents(first, (e) => e.data.includes("list_changed"));
    await heard.reader.cancel();
    const cursor = heard.events.find((e) => e.data.includes("list_changed"))!.id!;
    // While nobody listens, a second change.
    await owned.json("POST", "/v1/design-api", { ...landmarkEndpoint, api_name: "Second tower facts" });
    const again = await listen(b, cursor);
    expect(again.status).toBe(200);
    const missed = await readEvents(again, (e) => e.data.includes("list_changed"));
    await missed.reader.cancel();
    expect(Number(missed.events.find((e) => e.data.includes("list_changed"))!.id)).toBeGreaterThan(Number(cursor));
  });
});

describe(`notifications reach the instance that holds the stream (${backendName})`, () => {
  test("tools/list_changed from a change made through A reaches a notification stream open on B, and no other account's", async () => {
    const owner = await a.account({ name: "releaser", limit: 100_000 });
    const mcp = await connect(owner.apiKey, () => b);
    let changes = 0;
    mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    const quiet = await a.account({ name: "quiet", limit: 100_000 });
    const bystander = await connect(quiet.apiKey, () => c);
    let overheard = 0;
    bystander.setNotificationHandler(ToolListChangedNotificationSchema, () => void overheard++);
    await waitFor(
      () => b.mcpSessions.listening(owner.accountId) === 1 && c.mcpSessions.listening(quiet.accountId) === 1,
      "the notification streams on B and C",
    );

    const owned = client(a, owner.apiKey);
    const draft = (await owned.json("POST", "/v1/design-api", { ...landmarkEndpoint, api_name: "Fleet tower facts" })).response;
    await waitFor(() => changes === 1, "a notification on B after the endpoint was created through A");
    expect((await mcp.listTools()).tools.map((t) => t.name)).toContain(draft.stub);
    expect((await owned.call("DELETE", `/v1/design-api/${draft.id}`)).status).toBe(200);
    await waitFor(() => changes === 2, "a notification on B after the deletion through A");
    await Bun.sleep(100);
    expect(changes).toBe(2);
    expect(overheard).toBe(0);
  });
});
