import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonOf, startTestApp, type TestApp } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
let app: TestApp;
let configured: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  app = await startTestApp(database);
  configured = await startTestApp(database, { env: { PUBLIC_BASE_URL: "https://search.example.com/" } });
});
afterAll(async () => {
  await app.stop();
  await configured.stop();
  await database.drop();
});

describe("GET /v1/agent-integration", () => {
  test("answers without a key, with a prompt, per-tool clients and resource links", async () => {
    const response = await app.fetch("/v1/agent-integration");
    expect(response.status).toBe(200);
    const body = await jsonOf(response);
    expect(body.base_url).toBe(app.url);
    expect(body.auth).toEqual({ header: "X-API-Key", env_var: "CRITIQUE_API_KEY" });
    for (const topic of ["X-API-Key", "429", "Retry-After", "422", "/v1/account", "back-off", "Streaming"])
      expect(body.prompt).toContain(topic);
    expect(Object.keys(body.clients).sort()).toEqual([
      "claude_code",
      "codex",
      "curl",
      "cursor",
      "javascript",
      "mcp_claude_code",
      "mcp_cursor",
      "mcp_streamable_http",
      "mcp_vscode",
      "openai_python",
      "openai_typescript",
      "python",
      "vercel_ai_sdk",
    ]);
    for (const recipe of Object.values(body.clients) as { install: string; invoke: string }[]) {
      expect(recipe.install.length).toBeGreaterThan(0);
      expect(recipe.invoke.length).toBeGreaterThan(0);
    }
    expect(body.clients.curl.invoke).toContain("$CRITIQUE_API_KEY");
    expect(body.clients.python.invoke).toContain('os.environ["CRITIQUE_API_KEY"]');
    expect(body.clients.javascript.invoke).toContain("process.env.CRITIQUE_API_KEY");
    expect(body.resources).toEqual({ openapi: `${app.url}/openapi.json`, docs: `${app.url}/docs` });
  });

  test("MCP set-ups point at /mcp and take the key from CRITIQUE_API_KEY", async () => {
    const body = await jsonOf(app.fetch("/v1/agent-integration"));
    expect(body.prompt).toContain(`${app.url}/mcp`);
    expect(body.clients.mcp_claude_code.install).toBe(
      `claude mcp add --transport http agentic-search ${app.url}/mcp --header "Authorization: Bearer $CRITIQUE_API_KEY"`,
    );
    for (const name of ["mcp_cursor", "mcp_vscode"]) {
      const json = /echo '(.+)' >/.exec(body.clients[name].install)![1]!;
      const servers = JSON.parse(json).mcpServers ?? JSON.parse(json).servers;
      expect(servers["agentic-search"]).toMatchObject({
        url: `${app.url}/mcp`,
        headers: { Authorization: "Bearer ${env:CRITIQUE_API_KEY}" },
      });
    }
    expect(JSON.parse(body.clients.mcp_streamable_http.invoke)).toEqual({
      transport: "streamable-http",
      url: `${app.url}/mcp`,
      headers: { Authorization: "Bearer $CRITIQUE_API_KEY" },
    });
  });

  test("OpenAI-compatible set-ups use the base URL /v1, the model search and the key from CRITIQUE_API_KEY", async () => {
    const body = await jsonOf(app.fetch("/v1/agent-integration"));
    expect(body.prompt).toContain(`${app.url}/v1`);
    expect(body.prompt).toContain("/v1/chat/completions");
    expect(body.clients.openai_typescript.invoke).toContain(
      `new OpenAI({ apiKey: process.env.CRITIQUE_API_KEY, baseURL: "${app.url}/v1" })`,
    );
    expect(body.clients.openai_python.invoke).toContain(`OpenAI(api_key=os.environ["CRITIQUE_API_KEY"], base_url="${app.url}/v1")`);
    expect(body.clients.vercel_ai_sdk.invoke).toContain(`baseURL: "${app.url}/v1", apiKey: process.env.CRITIQUE_API_KEY`);
    for (const name of ["openai_typescript", "openai_python", "vercel_ai_sdk"]) expect(body.clients[name].invoke).toContain('"search"');
    expect(await (await app.fetch("/llms.txt")).text()).toContain(`- [OpenAI-compatible](${app.url}/v1/chat/completions)`);
  });

  test("the guide and /llms.txt tell an agent when a task beats a synchronous search, and how to follow one to its answer", async () => {
    const { prompt } = await jsonOf(app.fetch("/v1/agent-integration"));
    for (const topic of [
      "POST /v1/tasks",
      "instead of POST /v1/search when the research is long",
      "many questions",
      "GET /v1/tasks/{task_id}/events",
      "Last-Event-ID",
      "GET /v1/tasks/{task_id} every few seconds",
      "succeeded, failed or canceled",
      "exactly what POST /v1/search would have answered",
      "Idempotency-Key",
      "start_task and get_task",
    ])
      expect(prompt).toContain(topic);
    const text = await (await app.fetch("/llms.txt")).text();
    expect(text).toContain(`- [Tasks](${app.url}/v1/tasks): for long research or many questions`);
    expect(text).toContain("tools search, contents, start_task and get_task");
    expect(text).toContain(`- [POST /v1/tasks](${app.url}/v1/tasks): `);
    const card = await jsonOf(app.fetch("/.well-known/mcp"));
    expect(card.tools.slice(0, 4)).toEqual(["search", "contents", "start_task", "get_task"]);
  });

  test("/llms.txt lists the API's routes, the MCP endpoint and the docs for agents, without a key", async () => {
    const response = await app.fetch("/llms.txt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/plain");
    const text = await response.text();
    expect(text).toStartWith("# Agentic search\n\n> ");
    expect(text).toContain(`- [POST /v1/search](${app.url}/v1/search): `);
    expect(text).toContain(`- [MCP, Streamable HTTP](${app.url}/mcp)`);
    expect(text).toContain(`(${app.url}/openapi.json)`);
    expect(text).toContain("CRITIQUE_API_KEY");
  });

  test("/.well-known/mcp says where the MCP face is and how to authenticate, without a key", async () => {
    const card = await jsonOf(app.fetch("/.well-known/mcp"));
    expect(card).toMatchObject({
      name: "agentic-search",
      protocol_version: "2025-11-25",
      transport: { type: "streamable-http", url: `${app.url}/mcp` },
      authentication: { type: "bearer", header: "Authorization", env_var: "CRITIQUE_API_KEY" },
    });
    expect(card.tools.slice(0, 2)).toEqual(["search", "contents"]);
  });

  test("never inlines a key", async () => {
    const { apiKey } = await app.account();
    const text = await (await app.fetch("/v1/agent-integration", { headers: { "X-API-Key": apiKey } })).text();
    expect(text).not.toContain(apiKey);
    expect(text).not.toMatch(/sk_live_[0-9A-Za-z]{8}/);
  });

  test("lists the app's own routes, authenticated ones marked", async () => {
    const body = await jsonOf(app.fetch("/v1/agent-integration"));
    const account = body.routes.find((r: { path: string }) => r.path === "/v1/account");
    expect(account).toMatchObject({ method: "GET", authenticated: true });
    expect(body.routes.find((r: { path: string }) => r.path === "/v1/agent-integration")).toMatchObject({ authenticated: false });
    expect(body.routes.some((r: { path: string }) => r.path === "/v1/keys/{key_id}")).toBe(true);
  });

  test("takes its base URL from the request's Host, or from PUBLIC_BASE_URL when set", async () => {
    const viaHost = await jsonOf(app.fetch("/v1/agent-integration", { headers: { Host: "api.local:8080" } }));
    expect(viaHost.base_url).toBe("http://api.local:8080");
    const hostile = await app.fetch("/v1/agent-integration", { headers: { Host: "evil.example/<script>" } });
    expect(hostile.status).toBe(200);
    expect((await jsonOf(hostile)).base_url).toBe("http://localhost");
    const fixed = await jsonOf(configured.fetch("/v1/agent-integration", { headers: { Host: "api.local:8080" } }));
    expect(fixed.base_url).toBe("https://search.example.com");
    expect(fixed.clients.curl.invoke).toContain("https://search.example.com/v1/search");
  });
});

describe("OpenAPI", () => {
  test("/openapi.json is version 1.6.0: X-API-Key on every API operation, the session cookie on the dashboard's own", async () => {
    const response = await app.fetch("/openapi.json");
    expect(response.status).toBe(200);
    const doc = await jsonOf(response);
    expect(doc.info.version).toBe("1.6.0");
    expect(doc.components.securitySchemes.ApiKeyAuth).toEqual({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(doc.components.securitySchemes.SessionCookie).toEqual({ type: "apiKey", in: "cookie", name: "as_session" });
    const publicPaths = new Set(["/v1/agent-integration", "/healthz", "/readyz", "/auth/signup", "/auth/signin", "/auth/claim"]);
    const sessionPaths = new Set(["/auth/session", "/auth/signout", "/dashboard/api/credit"]);
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, { security?: unknown }>][]) {
      expect(path.startsWith("/docs")).toBe(false);
      for (const [method, operation] of Object.entries(item)) {
        operations++;
        if (publicPaths.has(path)) expect({ path, method, security: operation.security }).toEqual({ path, method, security: [] });
        else if (sessionPaths.has(path))
          expect({ path, method, security: operation.security }).toEqual({ path, method, security: [{ SessionCookie: [] }] });
        else expect({ path, method, security: operation.security }).toEqual({ path, method, security: [{ ApiKeyAuth: [] }] });
      }
    }
    expect(operations).toBeGreaterThanOrEqual(8);
    expect(doc.paths["/v1/account"].get.responses["200"]).toBeDefined();
  });

  test("every route the app serves is documented", async () => {
    const doc = await jsonOf(app.fetch("/openapi.json"));
    const routes = (await jsonOf(app.fetch("/v1/agent-integration"))).routes as { method: string; path: string }[];
    for (const route of routes) expect(doc.paths[route.path]?.[route.method.toLowerCase()]).toBeDefined();
  });

  test("/docs is served with its viewer from this service: no third-party requests", async () => {
    const response = await app.fetch("/docs");
    expect(response.status).toBe(200);
    const html = await response.text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references.length).toBeGreaterThan(0);
    for (const reference of references) {
      expect(reference.startsWith("/")).toBe(true);
      expect((await app.fetch(reference)).status).toBe(200);
    }
    expect((await app.fetch("/docs/assets/../../package.json")).status).toBe(404);
    expect((await app.fetch("/docs/assets/package.json")).status).toBe(404);
  });
});

describe("operations", () => {
  test("/healthz and /readyz answer without a key", async () => {
    expect(await jsonOf(app.fetch("/healthz"))).toEqual({ status: "ok" });
    const ready = await app.fetch("/readyz");
    expect(ready.status).toBe(200);
    expect(await jsonOf(ready)).toMatchObject({
      status: "ready",
      database: { ok: true },
      rate_limit_store: { healthy: true, fail_mode: "open" },
      draining: false,
      runs: { running: 0, queued: 0, queue_max: 2_000 },
    });
  });
});
