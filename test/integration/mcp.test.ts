/**
 * /mcp with the MCP SDK's own client over Streamable HTTP, against the real
 * app, the loopback search world and the extractive answerer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, ProgressNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { client, landmarkEndpoint } from "../helpers/endpoints.ts";
import { mcpHeaders, mcpPost, openSession, readEvents } from "../helpers/mcp.ts";
import { startSearchWorld, type SearchWorld } from "../helpers/search-world.ts";
import { waitFor } from "../helpers/wait.ts";

let database: TestDatabase;
let world: SearchWorld;
let app: TestApp;
let apiKey: string;
let stub: string;
let otherStub: string;
let otherKey: string;
const open: Client[] = [];
const INIT_PARAMS = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "mcp-test", version: "1.0.0" } };

beforeAll(async () => {
  world = startSearchWorld();
  database = await freshDatabase();
  // Nothing cut for being slow: a task's answer and the synchronous one are compared.
  app = await startTestApp(database, {
    env: world.env({ SEARCH_READ_GRACE: "false", SEARCH_QUORUM: "false", SEARCH_HEDGING: "false" }),
    resolver: world.resolver,
  });
  apiKey = (await app.account({ name: "agent", limit: 100_000 })).apiKey;
  stub = (await client(app, apiKey).json("POST", "/v1/design-api", landmarkEndpoint)).response.stub;
  const other = (await app.account({ name: "someone else", limit: 100_000 })).apiKey;
  otherKey = other;
  otherStub = (await client(app, other).json("POST", "/v1/design-api", { ...landmarkEndpoint, api_name: "Private tower facts" })).response
    .stub;
});
afterAll(async () => {
  for (const c of open) await c.close().catch(() => {});
  await app.stop();
  await database.drop();
  world.stop();
});

async function connect(key: string, header: "bearer" | "x-api-key" = "bearer"): Promise<Client> {
  const headers: Record<string, string> = header === "bearer" ? { authorization: `Bearer ${key}` } : { "x-api-key": key };
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers } });
  const mcp = new Client({ name: "mcp-test", version: "1.0.0" });
  await mcp.connect(transport);
  open.push(mcp);
  return mcp;
}

const textOf = (result: Record<string, unknown>) =>
  ((result.content ?? []) as { type: string; text?: string }[])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");

describe("initialize and tools/list", () => {
  test("the server names itself, and lists search, contents and the caller's live endpoint, never another account's", async () => {
    const mcp = await connect(apiKey);
    expect(mcp.getServerVersion()?.name).toBe("agentic-search");
    expect(mcp.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const { tools } = await mcp.listTools();
    const names = tools.map((t) => t.name);
    expect(names.slice(0, 2)).toEqual(["search", "contents"]);
    expect(names).toContain(stub);
    expect(names).not.toContain(otherStub);
    const endpoint = tools.find((t) => t.name === stub)!;
    expect(endpoint.description).toContain("Landmark facts");
    expect(endpoint.inputSchema.required).toEqual(["landmark"]);
    const output = endpoint.outputSchema as { properties: Record<string, any> } | undefined;
    expect(output?.properties.response.properties.completed_year).toBeDefined();
  });

  test("X-API-Key works as well as a bearer token; listing spends nothing of the plan", async () => {
    // A Free account: ten calls a minute.
    const account = await app.account({ name: "lister" });
    const mcp = await connect(account.apiKey, "x-api-key");
    for (let i = 0; i < 12; i++) expect((await mcp.listTools()).tools.length).toBeGreaterThanOrEqual(2);
    // Had listing spent, the minute's ten calls would be gone.
    const response = await client(app, account.apiKey).call("POST", "/v1/search", { prompt: "test" });
    expect(response.status).toBe(200);
  });
});

describe("one source for every schema", () => {
  test("search's and contents' input schemas are their routes' request bodies in /openapi.json, search's output its answer", async () => {
    const mcp = await connect(apiKey);
    const { tools } = await mcp.listTools();
    const doc = await (await app.fetch("/openapi.json")).json();
    const body = (path: string) => doc.paths[path].post.requestBody.content["application/json"].schema;
    const search = tools.find((t) => t.name === "search")!;
    const contents = tools.find((t) => t.name === "contents")!;
    expect(search.inputSchema).toEqual(body("/v1/search"));
    expect(contents.inputSchema).toEqual(body("/v1/contents"));
    expect(search.outputSchema).toEqual(doc.paths["/v1/search"].post.responses["200"].content["application/json"].schema);
    // The limits the routes keep, not a second guess of them (the tool once said 10,000 characters and 253 per domain).
    const properties = search.inputSchema.properties as Record<string, any>;
    expect(properties.prompt.maxLength).toBe(20_000);
    expect(properties.source_whitelist.items.maxLength).toBe(2048);
  });

  test("an endpoint's tool takes and answers what the endpoint's integration publishes", async () => {
    const mcp = await connect(apiKey);
    const { tools } = await mcp.listTools();
    const listed = await client(app, apiKey).json("GET", "/v1/design-api");
    const record = (listed as { stub: string; integration: Record<string, unknown> }[]).find((e) => e.stub === stub)!;
    const tool = tools.find((t) => t.name === stub)!;
    expect(tool.inputSchema).toEqual(record.integration.request_schema as typeof tool.inputSchema);
    expect(tool.outputSchema).toEqual(record.integration.response_schema as typeof tool.outputSchema);
  });
});

describe("tools/call", () => {
  test("search answers with [n] citations and its sources listed, and the whole answer as structured content", async () => {
    const mcp = await connect(apiKey);
    await mcp.listTools();
    const result = await mcp.callTool({ name: "search", arguments: { prompt: "When will construction of the river bridge begin?" } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/\[1\]/);
    expect(textOf(result)).toContain("Sources:\n[1] ");
    const structured = result.structuredContent as { response: unknown; context: { id: number }[]; info: Record<string, unknown> };
    expect(typeof structured.response).toBe("string");
    expect(structured.context[0]!.id).toBe(1);
    expect(Number.isInteger(structured.info.token_usage)).toBe(true);
  });

  test("search sends progress in order when the client asks for it: searching, the sources read, answering", async () => {
    const mcp = await connect(apiKey);
    await mcp.listTools();
    const heard: { progress: number; total?: number; message?: string }[] = [];
    const result = await mcp.callTool(
      { name: "search", arguments: { prompt: "When will construction of the river bridge begin?" } },
      undefined,
      { onprogress: (p) => heard.push(p) },
    );
    expect(result.isError).toBeFalsy();
    const sources = (result.structuredContent as { context: unknown[] }).context.length;
    expect(heard).toEqual([
      { progress: 1, total: 3, message: "searching the web" },
      { progress: 2, total: 3, message: `read ${sources} sources` },
      { progress: 3, total: 3, message: "answering" },
    ]);
    // Without a progress token nothing is sent: the call above is the only one that asked.
    const quiet: unknown[] = [];
    mcp.setNotificationHandler(ProgressNotificationSchema, (n) => void quiet.push(n));
    await mcp.callTool({ name: "search", arguments: { prompt: "When will construction of the river bridge begin?" } });
    expect(quiet).toEqual([]);
  });

  test("search with output_format answers an object of that shape", async () => {
    const mcp = await connect(apiKey);
    await mcp.listTools();
    const result = await mcp.callTool({
      name: "search",
      arguments: {
        prompt: "When will construction of the river bridge begin?",
        output_format: { start_month: "string", lanes: "integer" },
      },
    });
    expect(result.isError).toBeFalsy();
    const response = (result.structuredContent as { response: Record<string, unknown> }).response;
    expect(Object.keys(response).sort()).toEqual(["lanes", "start_month"]);
  });

  test("contents reads a page through the same route", async () => {
    const mcp = await connect(apiKey);
    const result = await mcp.callTool({ name: "contents", arguments: { url: world.url("news.test", "/bridge.html"), format: "text" } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("approved the new river bridge");
  });

  test("a designed endpoint is called as a tool, and a missing required input is a tool error naming it", async () => {
    const mcp = await connect(apiKey);
    await mcp.listTools();
    const ok = await mcp.callTool({ name: stub, arguments: { landmark: "Eiffel Tower" } });
    expect(ok.isError).toBeFalsy();
    expect(Object.keys((ok.structuredContent as { response: object }).response).sort()).toEqual([
      "completed_year",
      "designer",
      "height_metres",
    ]);
    const missing = await mcp.callTool({ name: stub, arguments: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain("landmark");
  });

  test("a page that cannot be read is a tool error with the route's code, not a protocol error", async () => {
    const mcp = await connect(apiKey);
    const result = await mcp.callTool({ name: "contents", arguments: { url: "http://127.0.0.1/private" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/\([a-z_]+\)$/);
  });

  test("another account's endpoint, or no such tool, is refused", async () => {
    const mcp = await connect(apiKey);
    await expect(mcp.callTool({ name: otherStub, arguments: { landmark: "Eiffel Tower" } })).rejects.toThrow(/unknown tool/);
  });
});

describe("tasks as tools", () => {
  const QUESTION = "What did the council decide about the river bridge?";

  test("start_task's and get_task's schemas are their routes' in /openapi.json: the create body, the task_id path parameter, the task", async () => {
    const mcp = await connect(apiKey);
    const { tools } = await mcp.listTools();
    const doc = await (await app.fetch("/openapi.json")).json();
    const start = tools.find((t) => t.name === "start_task")!;
    const get = tools.find((t) => t.name === "get_task")!;
    expect(start.inputSchema).toEqual(doc.paths["/v1/tasks"].post.requestBody.content["application/json"].schema);
    expect(start.outputSchema).toEqual(doc.paths["/v1/tasks"].post.responses["202"].content["application/json"].schema);
    const parameter = doc.paths["/v1/tasks/{task_id}"].get.parameters.find((p: { name: string }) => p.name === "task_id");
    expect(get.inputSchema).toEqual({
      type: "object",
      properties: { task_id: parameter.schema },
      required: ["task_id"],
      additionalProperties: false,
    });
    expect(get.outputSchema).toEqual(doc.paths["/v1/tasks/{task_id}"].get.responses["200"].content["application/json"].schema);
  });

  test("start_task queues a search; get_task, polled, reads it to succeeded with the route's task and the synchronous answer", async () => {
    const mcp = await connect(apiKey);
    const started = await mcp.callTool({ name: "start_task", arguments: { prompt: QUESTION, metadata: { row: 3 } } });
    expect(started.isError).toBeFalsy();
    const task = started.structuredContent as { id: string; status: string; kind: string; metadata: unknown };
    expect(task).toMatchObject({ status: "queued", kind: "search", metadata: { row: 3 } });
    expect(task.id).toMatch(/^task_/);
    expect(textOf(started)).toContain(`get_task with task_id "${task.id}"`);

    const polls: string[] = [];
    const done = await waitFor(
      async () => {
        const read = await mcp.callTool({ name: "get_task", arguments: { task_id: task.id } });
        expect(read.isError).toBeFalsy();
        const status = (read.structuredContent as { status: string }).status;
        polls.push(status);
        if (status === "succeeded") return read;
        await Bun.sleep(50);
        return null;
      },
      "the task to succeed",
      30_000,
    );
    expect(polls.every((s) => ["queued", "running", "succeeded"].includes(s))).toBe(true);
    // The tool's task is the route's, field for field.
    const route = await client(app, apiKey).json("GET", `/v1/tasks/${task.id}`);
    expect(done.structuredContent).toEqual(route);
    const result = (done.structuredContent as { result: { response: string; context: { id: number }[] } }).result;
    const sync = await client(app, apiKey).json("POST", "/v1/search", { prompt: QUESTION });
    expect(result.response).toBe(sync.response);
    expect(result.context).toEqual(sync.context);
    // The text shows the answer as search does: the response, then its sources by [n].
    expect(textOf(done)).toStartWith(`Task ${task.id} succeeded.\n\n${sync.response}`);
    expect(textOf(done)).toContain("Sources:\n[1] ");
  });

  test("start_task with a body its route refuses is a tool error with the route's words", async () => {
    const mcp = await connect(apiKey);
    const result = await mcp.callTool({ name: "start_task", arguments: { endpoint: "no-such-endpoint", inputs: {} } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/\(not_found\)$/);
  });

  test("another account's task id, an unknown one, or none at all is a tool error, never that task", async () => {
    const theirs = await client(app, otherKey).json("POST", "/v1/tasks", { prompt: QUESTION });
    expect(theirs.id).toMatch(/^task_/);
    const mcp = await connect(apiKey);
    for (const taskId of [theirs.id, "task_00000000000000000000000000", "not a task"]) {
      const result = await mcp.callTool({ name: "get_task", arguments: { task_id: taskId } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("(not_found)");
      expect(result.structuredContent).toBeUndefined();
    }
    // None would reach the list (/v1/tasks/), and ".." the path above: neither is sent.
    for (const args of [{}, { task_id: ".." }, { task_id: 7 }]) {
      const missing = await mcp.callTool({ name: "get_task", arguments: args });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toBe("task_id: required, a non-empty string (validation_failed)");
    }
  });
});

describe("published endpoints the caller uses from its agents", () => {
  test("subscribing lists a published endpoint as a tool that runs its newest version; unsubscribing removes it", async () => {
    const publisher = client(app, (await app.account({ name: "publisher", limit: 100_000 })).apiKey);
    const draft = (await publisher.json("POST", "/v1/design-api", { ...landmarkEndpoint, api_name: "Tower facts for sale" })).response;
    const published = await publisher.json("POST", `/v1/design-api/${draft.id}/publish`, { public_stub: "tower-facts" });
    expect(published.public_stub).toBe("tower-facts");

    const mcp = await connect(apiKey);
    expect((await mcp.listTools()).tools.map((t) => t.name)).not.toContain("tower-facts");
    const me = client(app, apiKey);
    const subscribed = await me.call("POST", "/v1/marketplace/tower-facts/subscribe");
    expect(subscribed.status).toBe(200);
    expect(await subscribed.json()).toEqual({ public_stub: "tower-facts", subscribed: true });
    // Idempotent, and readable.
    expect((await me.call("POST", "/v1/marketplace/tower-facts/subscribe")).status).toBe(200);
    expect(await me.json("GET", "/v1/marketplace/tower-facts/subscribe")).toEqual({ public_stub: "tower-facts", subscribed: true });

    // A subscription is the subscriber's own.
    const bystander = await connect((await app.account({ name: "bystander", limit: 100_000 })).apiKey);
    expect((await bystander.listTools()).tools.map((t) => t.name)).not.toContain("tower-facts");
    const tool = (await mcp.listTools()).tools.find((t) => t.name === "tower-facts");
    expect(tool?.description).toContain("from the marketplace");
    expect(tool?.inputSchema.required).toEqual(["landmark"]);
    const result = await mcp.callTool({ name: "tower-facts", arguments: { landmark: "Eiffel Tower" } });
    expect(result.isError).toBeFalsy();
    expect(Object.keys((result.structuredContent as { response: object }).response).sort()).toEqual([
      "completed_year",
      "designer",
      "height_metres",
    ]);

    expect(await (await me.call("DELETE", "/v1/marketplace/tower-facts/subscribe")).json()).toEqual({
      public_stub: "tower-facts",
      subscribed: false,
    });
    expect((await mcp.listTools()).tools.map((t) => t.name)).not.toContain("tower-facts");
    expect(await me.json("GET", "/v1/marketplace/tower-facts/subscribe")).toEqual({ public_stub: "tower-facts", subscribed: false });
  });

  test("subscribing to a listing that does not exist is a 404", async () => {
    const response = await client(app, apiKey).call("POST", "/v1/marketplace/no-such-listing/subscribe");
    expect(response.status).toBe(404);
    expect((await response.json()).error).toBe("not_found");
  });
});

describe("sessions", () => {
  test("creating, releasing or deleting an endpoint sends tools/list_changed to the account's open sessions, and to no one else's", async () => {
    const owner = await app.account({ name: "releaser", limit: 100_000 });
    const mcp = await connect(owner.apiKey);
    expect(mcp.transport?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    let changes = 0;
    mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    const quiet = await app.account({ name: "quiet", limit: 100_000 });
    const bystander = await connect(quiet.apiKey);
    let overheard = 0;
    bystander.setNotificationHandler(ToolListChangedNotificationSchema, () => void overheard++);
    // The client opens its notification stream once initialised: wait until the server has it.
    await waitFor(
      () => app.mcpSessions.listening(owner.accountId) === 1 && app.mcpSessions.listening(quiet.accountId) === 1,
      "the notification streams",
    );

    const owned = client(app, owner.apiKey);
    const draft = (await owned.json("POST", "/v1/design-api", { ...landmarkEndpoint, api_name: "Released tower facts" })).response;
    await waitFor(() => changes === 1, "a notification after the endpoint was created");
    expect((await mcp.listTools()).tools.map((t) => t.name)).toContain(draft.stub);
    expect((await owned.call("POST", `/v1/design-api/${draft.id}/release`)).status).toBe(200);
    await waitFor(() => changes === 2, "a notification after the release");
    expect((await owned.call("DELETE", `/v1/design-api/${draft.id}`)).status).toBe(200);
    await waitFor(() => changes === 3, "a notification after the deletion");
    expect((await mcp.listTools()).tools.map((t) => t.name)).not.toContain(draft.stub);
    // A refused change announces nothing.
    expect((await owned.call("POST", "/v1/design-api/999999999/release")).status).toBe(404);
    await Bun.sleep(100);
    expect(changes).toBe(3);
    expect(overheard).toBe(0);
  });

  test("a session is reached only with a key of the account that opened it, and an unknown one is a 404", async () => {
    const mcp = await connect(apiKey);
    const id = mcp.transport!.sessionId!;
    const someone = (await app.account({ name: "intruder", limit: 100_000 })).apiKey;
    const post = (key: string, session: string) =>
      app.fetch("/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-11-25",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
      });
    expect((await post(someone, id)).status).toBe(404);
    expect((await post(apiKey, "00000000-0000-0000-0000-000000000000")).status).toBe(404);
    expect((await post(apiKey, id)).status).toBe(200);
  });
});

describe("a dropped stream", () => {
  test("a search whose stream drops is resumed with Last-Event-ID, and the answer arrives on the new stream", async () => {
    const session = await openSession(app, apiKey, "resume-test");
    const call = await mcpPost(app, apiKey, session, {
      id: 2,
      method: "tools/call",
      params: { name: "search", arguments: { prompt: "When will construction of the river bridge begin?" } },
    });
    // The first event primes the cursor; the connection drops before the answer.
    const primed = await readEvents(call, (e) => e.id !== undefined);
    const cursor = primed.events.find((e) => e.id !== undefined)!.id!;
    await primed.reader.cancel();

    const resumed = await app.fetch("/mcp", {
      method: "GET",
      headers: { ...mcpHeaders(apiKey, session), accept: "text/event-stream", "last-event-id": cursor },
    });
    expect(resumed.status).toBe(200);
    const { events, reader } = await readEvents(resumed, (e) => e.data.includes('"id":2'));
    await reader.cancel();
    const answer = JSON.parse(events.find((e) => e.data.includes('"id":2'))!.data);
    expect(answer.result.content[0].text).toMatch(/\[1\]/);
    expect(answer.result.structuredContent.context.length).toBeGreaterThan(0);
  });
});

describe("streams open at once", () => {
  test("a GET stream's headers reach the client within a second, not with the first keep-alive 15 s later", async () => {
    const session = await openSession(app, apiKey, "listener");
    const started = performance.now();
    const stream = await fetch(`${app.url}/mcp`, {
      headers: { ...mcpHeaders(apiKey, session), accept: "text/event-stream" },
      signal: AbortSignal.timeout(3_000),
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    await stream.body!.cancel();
  });
});

/**
 * Params of the wrong types, in a session: each is -32602 invalid params, as JSON-RPC prescribes (they were -32603
 * internal error). An initialize in a session that has one is a repeated initialize.
 */
const WRONG_PARAMS: [string, Record<string, unknown>][] = [
  ["a tool name that is a number", { method: "tools/call", params: { name: 42, arguments: {} } }],
  ["a tool name that is null", { method: "tools/call", params: { name: null } }],
  ["a tool name that is an object", { method: "tools/call", params: { name: {}, arguments: {} } }],
  ["no tool name", { method: "tools/call", params: { arguments: {} } }],
  ["a tools/call without params", { method: "tools/call" }],
  ["arguments that are a string", { method: "tools/call", params: { name: "search", arguments: "When?" } }],
  ["arguments that are a list", { method: "tools/call", params: { name: "search", arguments: [1] } }],
  ["arguments that are a number", { method: "tools/call", params: { name: "search", arguments: 5 } }],
  ["arguments that are null", { method: "tools/call", params: { name: "search", arguments: null } }],
  ["a repeated initialize without params", { method: "initialize" }],
  ["a repeated initialize whose protocol version is a number", { method: "initialize", params: { ...INIT_PARAMS, protocolVersion: 1 } }],
  ["a repeated initialize whose capabilities are a string", { method: "initialize", params: { ...INIT_PARAMS, capabilities: "all" } }],
  ["a repeated initialize without its client", { method: "initialize", params: { ...INIT_PARAMS, clientInfo: undefined } }],
  [
    "a repeated initialize whose client's name is a number",
    { method: "initialize", params: { ...INIT_PARAMS, clientInfo: { name: 1, version: "1" } } },
  ],
  ["a tools/list whose cursor is a number", { method: "tools/list", params: { cursor: 5 } }],
];

describe("params of the wrong types", () => {
  let session: string;
  beforeAll(async () => {
    session = await openSession(app, apiKey, "hostile");
  });

  test.each(WRONG_PARAMS)("%s: -32602 invalid params, and the session goes on", async (_, message) => {
    const answer = async (id: number, sent: Record<string, unknown>) => {
      const response = await mcpPost(app, apiKey, session, { id, ...sent });
      expect(response.status).toBe(200);
      const { events, reader } = await readEvents(response, (e) => e.data.includes(`"id":${id}`));
      await reader.cancel();
      return JSON.parse(events.find((e) => e.data.includes(`"id":${id}`))!.data);
    };
    const refused = await answer(70, message);
    expect(refused.error.code).toBe(-32602);
    expect(refused.error.message).toMatch(/params/i);
    expect((await answer(71, { method: "tools/list" })).result.tools.length).toBeGreaterThanOrEqual(2);
  });
});

describe("refusals", () => {
  test("no key, or a bad one, is an HTTP 401 that names Bearer, before any MCP message", async () => {
    for (const headers of [{}, { authorization: "Bearer not-a-key" }] as Record<string, string>[]) {
      const response = await app.fetch("/mcp", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
    await expect(connect("not-a-key")).rejects.toThrow();
  });

  test("hostile or malformed bodies are 4xx, never a 500", async () => {
    const deep = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    for (const body of ["{not json", '"a string"', "[]", deep, '{"jsonrpc":"2.0","id":1,"method":"tools/list\u0000"}', "{}"]) {
      const response = await app.fetch("/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      });
      expect({ body: body.slice(0, 30), status: response.status >= 400 && response.status < 500 }).toEqual({
        body: body.slice(0, 30),
        status: true,
      });
    }
  });

  test("a key past its plan's limit: the tool call is a JSON-RPC error with the 429 and its wait", async () => {
    const account = await app.account({ name: "free plan" });
    const mcp = await connect(account.apiKey);
    let refused: McpError | null = null;
    let calls = 0;
    for (; calls < 15 && !refused; calls++) {
      try {
        await mcp.callTool({ name: "contents", arguments: { url: world.url("news.test", "/bridge.html") } });
      } catch (error) {
        refused = error as McpError;
      }
    }
    expect(refused).toBeInstanceOf(McpError);
    // Ten calls went through first: the MCP face spends what the HTTP API spends, no more.
    expect(calls).toBe(11);
    expect(refused!.code).toBe(-32002);
    expect(refused!.data).toMatchObject({ status: 429, error: "rate_limited" });
    expect((refused!.data as { retry_after_seconds: number }).retry_after_seconds).toBeGreaterThan(0);
  });
});
