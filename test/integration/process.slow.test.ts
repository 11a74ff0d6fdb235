/**
 * The entry points as an operator runs them: first start, the CLI beside a
 * running server, a bad environment, and a graceful shutdown.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonOf } from "../helpers/app.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { TEST_DATABASE_URL } from "../helpers/env.ts";
import { runCli, startServer, waitForOutput } from "../helpers/process.ts";

const dirs: string[] = [];
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});

/** A data folder, and on the Postgres pass a fresh empty database too. */
async function freshEnvironment(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), "as-data-"));
  dirs.push(dir);
  const env: Record<string, string> = { DATA_DIR: dir, LOG_LEVEL: "info" };
  if (TEST_DATABASE_URL) {
    const database = await freshDatabase();
    databases.push(database);
    env.DATABASE_URL = database.url!;
  }
  return env;
}

const KEY_LINE = /export CRITIQUE_API_KEY=(sk_live_[0-9A-Za-z]{46})/;
const LINK_LINE = /(http:\/\/[^\s]+)\/dashboard\/claim#([A-Za-z0-9_-]{43})/;
const ACCOUNT_LINE = /created the account "local" \((acct_[0-9a-z]{26})\)/;

/** Claims a sign-in link the way the dashboard's page does: the token from the fragment, in a JSON body. */
const claim = (url: string, token: string, email: string) =>
  fetch(`${url}/auth/claim`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token, email, password: "a long enough password" }),
  });

describe("the first start", () => {
  test("creates a `local` account, prints its key once with a curl line and a one-time sign-in link; both work; a restart prints nothing", async () => {
    const env = await freshEnvironment();
    const server = await startServer(env);
    try {
      const [, key] = await waitForOutput(server, KEY_LINE);
      expect(server.output()).toContain(`curl -sS ${server.url}/v1/account -H "X-API-Key: $CRITIQUE_API_KEY"`);
      expect(server.output()).toContain(`The dashboard is at ${server.url}/dashboard`);
      expect((await fetch(`${server.url}/`, { redirect: "manual" })).headers.get("location")).toBe("/dashboard");
      // The one-time sign-in link: it signs the owner in once, then never again.
      const [, linkBase, token] = await waitForOutput(server, LINK_LINE);
      expect(linkBase).toBe(server.url);
      const [, accountId] = ACCOUNT_LINE.exec(server.output())!;
      expect(server.output()).toContain(`npm run cli -- accounts password --account ${accountId}`);
      const claimed = await claim(server.url, token!, "first@example.com");
      expect(claimed.status).toBe(200);
      expect(claimed.headers.get("set-cookie")).toContain("as_session=");
      expect(await jsonOf(claimed)).toMatchObject({ email: "first@example.com", account: { id: accountId, name: "local" } });
      expect((await claim(server.url, token!, "second@example.com")).status).toBe(401);
      const account = await fetch(`${server.url}/v1/account`, { headers: { "X-API-Key": key! } });
      expect(account.status).toBe(200);
      expect(await jsonOf(account)).toMatchObject({ name: "local", plan: "free", rate_limit_per_minute: 10 });
      // The banner is not a log line: no JSON record carries the key.
      const logLines = server
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"));
      expect(logLines.some((l) => l.includes(key!) || l.includes(token!))).toBe(false);
      expect(await server.stop()).toBe(0);

      const again = await startServer(env);
      try {
        await Bun.sleep(300);
        expect(again.output()).not.toMatch(KEY_LINE);
        expect(again.output()).not.toMatch(LINK_LINE);
        expect((await fetch(`${again.url}/v1/account`, { headers: { "X-API-Key": key! } })).status).toBe(200);
      } finally {
        await again.stop();
      }
    } finally {
      if (server.child.exitCode === null) await server.stop();
    }
  });
});

describe("the CLI beside a running server", () => {
  test(
    TEST_DATABASE_URL
      ? "on Postgres, creates an account whose key the server accepts at once"
      : "on the embedded database, refuses clearly and leaves it intact",
    async () => {
      const env = await freshEnvironment();
      const server = await startServer(env);
      try {
        const [, firstKey] = await waitForOutput(server, KEY_LINE);
        const result = await runCli(["accounts", "create", "--name", "second", "--json"], env);
        if (TEST_DATABASE_URL) {
          expect(result.code).toBe(0);
          const created = JSON.parse(result.stdout);
          expect(Object.keys(created).sort()).toEqual(["account_id", "api_key"]);
          const response = await fetch(`${server.url}/v1/account`, { headers: { "X-API-Key": created.api_key } });
          expect(await jsonOf(response)).toMatchObject({ id: created.account_id, name: "second" });
        } else {
          expect(result.code).toBe(3);
          expect(result.stdout).toBe("");
          expect(result.stderr).toContain("is held by the running server");
          expect(result.stderr).toContain("/v1/keys");
          // The server still owns a healthy database.
          expect((await fetch(`${server.url}/v1/account`, { headers: { "X-API-Key": firstKey! } })).status).toBe(200);
          expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
        }
      } finally {
        await server.stop();
      }
    },
  );

  test("on a stopped embedded database, every command works and --json prints only the JSON", async () => {
    const dir = mkdtempSync(join(tmpdir(), "as-cli-"));
    dirs.push(dir);
    const env = { DATA_DIR: dir };
    const created = await runCli(["accounts", "create", "--name", "acme", "--credit", "25", "--json"], env);
    expect(created.code).toBe(0);
    const { account_id, api_key } = JSON.parse(created.stdout);
    expect(api_key).toMatch(/^sk_live_/);

    const key = await runCli(["keys", "create", "--account", account_id, "--json"], env);
    const { key_id } = JSON.parse(key.stdout);
    expect((await runCli(["keys", "revoke", key_id], env)).stdout).toContain("revoked");
    const list = JSON.parse((await runCli(["keys", "list", "--account", account_id, "--json"], env)).stdout);
    expect(list.find((k: { id: string }) => k.id === key_id).revoked_at).not.toBeNull();
    expect(JSON.stringify(list)).not.toContain(api_key);

    const credit = await runCli(["credit", "add", "--account", account_id, "--amount", "5"], env);
    expect(credit.stdout).toContain("balance $30.00, plan Pro");
    const enterprise = await runCli(["accounts", "create", "--name", "big", "--limit", "6000", "--json"], env);
    expect(enterprise.code).toBe(0);
    const tooSmall = await runCli(["accounts", "create", "--name", "small", "--limit", "50"], env);
    expect(tooSmall.code).toBe(1);
    expect(tooSmall.stderr).toContain("5000");
    const accounts = JSON.parse((await runCli(["accounts", "list", "--json"], env)).stdout);
    expect(accounts.map((a: { plan: string }) => a.plan).sort()).toEqual(["enterprise", "pro"]);
    const unknown = await runCli(["keys", "revoke", "key_01m81vxjpee6ta28c6edpbkmfh"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("not found");
    const bad = await runCli(["frobnicate"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Usage:");
  });
});

describe("a bad environment stops the start with a message naming the variable", () => {
  for (const [name, value] of [
    ["PORT", "abc"],
    ["RATE_LIMIT_FAIL_MODE", "sometimes"],
    ["DATABASE_URL", "mysql://x"],
    ["LOG_LEVEL", "loud"],
  ] as const) {
    test(`${name}=${value}`, async () => {
      const child = Bun.spawn([process.execPath, "src/main.ts"], {
        cwd: new URL("../..", import.meta.url).pathname,
        env: { PATH: process.env.PATH ?? "", [name]: value, DATA_DIR: "/nonexistent/never-created" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      expect(code).toBe(2);
      expect(stderr).toContain(name);
      expect(stderr).toContain("cannot start");
    });
  }
});

describe("graceful shutdown", () => {
  test("SIGTERM: /readyz turns 503 at once while new calls are still served for the grace; then the instance stops accepting, lets an in-flight request finish, and exits 0", async () => {
    const env = await freshEnvironment();
    const server = await startServer({ ...env, SHUTDOWN_TIMEOUT_MS: "10000", DRAIN_GRACE_MS: "1500" });
    const [, key] = await waitForOutput(server, KEY_LINE);
    // A request whose body is still arriving when SIGTERM comes.
    let finish!: () => void;
    const release = new Promise<void>((resolve) => (finish = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name": "in-fli'));
        await release;
        controller.enqueue(new TextEncoder().encode('ght"}'));
        controller.close();
      },
    });
    const inflight = fetch(`${server.url}/v1/keys`, {
      method: "POST",
      body,
      headers: { "X-API-Key": key!, "content-type": "application/json" },
    });
    await Bun.sleep(300);
    server.child.kill("SIGTERM");
    await waitForOutput(server, /"msg":"draining"/);
    const signalled = performance.now();
    // The grace: not ready, so the balancer stops sending; but what it still sends is served, each response closing
    // its connection so none is reused once the instance stops accepting.
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await jsonOf(ready)).draining).toBe(true);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const served = await fetch(`${server.url}/v1/account`, { headers: { "X-API-Key": key! } });
    expect(served.status).toBe(200);
    expect(served.headers.get("connection")).toBe("close");
    expect(performance.now() - signalled).toBeLessThan(1500);
    // Past the grace it accepts no connection (a balancer retries a refused one elsewhere); the in-flight call goes on.
    await Bun.sleep(1500 - (performance.now() - signalled) + 300);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    finish();
    const response = await inflight;
    expect(response.status).toBe(201);
    expect((await jsonOf(response)).name).toBe("in-flight");
    expect(await server.child.exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
  });

  test("an MCP client's open notification stream does not hold SIGTERM to its deadline", async () => {
    const env = await freshEnvironment();
    const server = await startServer({ ...env, SHUTDOWN_TIMEOUT_MS: "20000", DRAIN_GRACE_MS: "500" });
    const [, key] = await waitForOutput(server, KEY_LINE);
    const mcp = new Client({ name: "process-test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    expect((await mcp.listTools()).tools.length).toBeGreaterThanOrEqual(2);
    const started = performance.now();
    server.child.kill("SIGTERM");
    expect(await server.child.exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(server.output()).not.toContain("shutdown deadline passed");
    await mcp.close().catch(() => {});
  });
});
