/**
 * WEB_CONCURRENCY: several server processes on one port under a supervisor,
 * started as an operator starts the service. They are a fleet of their own:
 * one first-start account, one rate limit, and a drain that reaches every
 * worker. Needs TEST_DATABASE_URL and TEST_REDIS_URL (the tests say so in
 * their names and skip without them); the refusals and the restart bound run
 * everywhere, since they stop before any service is reached.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { migrationsFolder } from "../../db/migrate.ts";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../helpers/env.ts";
import { runCli, type ServerProcess, spawnServer, startServer, waitForOutput } from "../helpers/process.ts";
import { clearPrefix, uniquePrefix } from "../helpers/redis.ts";

const services = Boolean(TEST_DATABASE_URL && TEST_REDIS_URL);
const needingServices = services ? "" : " (skipped: needs TEST_DATABASE_URL and TEST_REDIS_URL)";
const KEY_LINE = /export CRITIQUE_API_KEY=(sk_live_[0-9A-Za-z]{46})/g;

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** An empty database (not the migrated template): the workers migrate it as they start, together. */
async function emptyDatabase(): Promise<string> {
  const name = `as_workers_${process.pid}_${crypto.randomUUID().slice(0, 8)}`;
  const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  cleanups.push(async () => {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  });
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Two workers on a fresh database and Redis prefix, both listening. */
async function startWorkers(env: Record<string, string> = {}): Promise<ServerProcess & { databaseUrl: string }> {
  const databaseUrl = await emptyDatabase();
  const prefix = uniquePrefix("workers");
  cleanups.push(() => clearPrefix(prefix));
  const dataDir = mkdtempSync(join(tmpdir(), "as-workers-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer(
    {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL: TEST_REDIS_URL!,
      RATE_LIMIT_KEY_PREFIX: prefix,
      WEB_CONCURRENCY: "2",
      LOG_LEVEL: "info",
      ...env,
    },
    60_000,
  );
  cleanups.push(async () => {
    if (server.child.exitCode === null) await server.stop();
  });
  for (const worker of [1, 2]) await waitForOutput(server, new RegExp(`"msg":"listening".*"worker":${worker}\\}`), 60_000);
  return { ...server, databaseUrl };
}

/** The worker that answered a request, from the access log line its request id is on. */
async function workerOf(server: ServerProcess, response: Response): Promise<number> {
  const id = response.headers.get("x-request-id")!;
  const [, worker] = await waitForOutput(server, new RegExp(`"request_id":"${id}".*"worker":(\\d+)\\}`));
  return Number(worker);
}

/** Each call on a new connection: the kernel hands each new connection to one of the workers' sockets. */
const call = (url: string, init: RequestInit = {}) => fetch(url, { ...init, keepalive: false });

/** The pid the supervisor logged for a worker's latest start. */
function pidOf(server: ServerProcess, worker: number): number {
  const starts = [...server.output().matchAll(new RegExp(`"msg":"worker started","worker":${worker},"pid":(\\d+)`, "g"))];
  return Number(starts.at(-1)![1]);
}

describe(`WEB_CONCURRENCY=2 on Postgres and Redis${needingServices}`, () => {
  let server: ServerProcess & { databaseUrl: string };
  beforeAll(async () => {
    if (services) server = await startWorkers();
  }, 90_000);

  test.skipIf(!services)("the workers migrate the empty database once and create the first account once: one key is printed", async () => {
    const [, key] = await waitForOutput(server, new RegExp(KEY_LINE.source));
    await Bun.sleep(500);
    expect([...server.output().matchAll(KEY_LINE)].length).toBe(1);
    const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [applied] = await sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
      expect(applied!.n).toBe(readdirSync(migrationsFolder).filter((f) => f.endsWith(".sql")).length);
      expect([...(await sql`select name from accounts`)]).toEqual([{ name: "local" }]);
    } finally {
      await sql.end();
    }
    expect((await call(`${server.url}/v1/account`, { headers: { "X-API-Key": key! } })).status).toBe(200);
  });

  test.skipIf(!services)("both workers answer on the one port, and each log line says which worker wrote it", async () => {
    const workers = new Set<number>();
    for (let i = 0; i < 24 && workers.size < 2; i++) {
      const response = await call(`${server.url}/healthz`);
      expect(response.status).toBe(200);
      workers.add(await workerOf(server, response));
    }
    expect([...workers].sort()).toEqual([1, 2]);
    const lines = server.output().split("\n");
    const workerLines = lines.filter((l) => l.includes('"msg":"listening"'));
    expect(workerLines.map((l) => JSON.parse(l).worker).sort()).toEqual([1, 2]);
    // The supervisor's own lines name the workers they are about, and no line is cut or joined to another.
    for (const line of lines.filter((l) => l.startsWith("{"))) expect(() => JSON.parse(line)).not.toThrow();
  });

  test.skipIf(!services)("the Free limit holds across the workers: 10 of 20 calls in a minute are admitted", async () => {
    // A Free account of its own, made by the CLI beside the running workers: its bucket is full.
    const created = await runCli(["accounts", "create", "--name", "limits", "--json"], {
      DATABASE_URL: server.databaseUrl,
      DATA_DIR: tmpdir(),
    });
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout).api_key as string;
    const statuses: number[] = [];
    const admittedBy = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const response = await call(`${server.url}/v1/account`, { headers: { "X-API-Key": key } });
      statuses.push(response.status);
      const worker = await workerOf(server, response);
      if (response.status === 200) admittedBy.add(worker);
    }
    expect(statuses.filter((s) => s === 200).length).toBe(10);
    expect(statuses.filter((s) => s === 429).length).toBe(10);
    expect([...admittedBy].sort()).toEqual([1, 2]);
  });

  test.skipIf(!services)("a worker killed with SIGKILL is started again, and the port answers meanwhile", async () => {
    const killed = pidOf(server, 1);
    process.kill(killed, "SIGKILL");
    await waitForOutput(
      server,
      new RegExp(`"msg":"worker exited; restarting it","worker":1,"pid":${killed},"code":null,"signal":"SIGKILL"`),
    );
    // Worker 2 takes every connection until worker 1 listens again.
    for (let i = 0; i < 10; i++) expect((await call(`${server.url}/healthz`)).status).toBe(200);
    for (let i = 0; i < 200 && pidOf(server, 1) === killed; i++) await Bun.sleep(50);
    expect(pidOf(server, 1)).not.toBe(killed);
    const listening = () => server.output().match(/"msg":"listening".*"worker":1\}/g)?.length ?? 0;
    for (let i = 0; i < 400 && listening() < 2; i++) await Bun.sleep(50);
    expect(listening()).toBe(2);
    const workers = new Set<number>();
    for (let i = 0; i < 24 && workers.size < 2; i++) workers.add(await workerOf(server, await call(`${server.url}/healthz`)));
    expect([...workers].sort()).toEqual([1, 2]);
  });
});

/**
 * One raw HTTP/1.1 connection: a first request on it tells which worker
 * holds it, so a request left in flight on it is known to be on that worker.
 */
async function connectionTo(url: string) {
  const { hostname, port } = new URL(url);
  const decoder = new TextDecoder();
  let received = "";
  let arrived: (() => void) | undefined;
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_socket, data) {
        received += decoder.decode(data);
        arrived?.();
      },
      close() {
        arrived?.();
      },
    },
  });
  return {
    write: (text: string) => socket.write(text),
    /** The next whole response: its status, request id and body (JSON answers carry a Content-Length). */
    async response(): Promise<{ status: number; requestId: string; body: string }> {
      for (;;) {
        const head = received.indexOf("\r\n\r\n");
        const length = head < 0 ? -1 : Number(/content-length: (\d+)/i.exec(received.slice(0, head))?.[1] ?? -1);
        if (head >= 0 && length >= 0 && received.length >= head + 4 + length) {
          const text = received.slice(0, head + 4 + length);
          received = received.slice(head + 4 + length);
          return {
            status: Number(text.slice(9, 12)),
            requestId: /x-request-id: (\S+)/i.exec(text)![1]!,
            body: text.slice(head + 4),
          };
        }
        await new Promise<void>((resolve) => (arrived = resolve));
      }
    },
    close: () => socket.end(),
  };
}

describe(`SIGTERM to the supervisor${needingServices}`, () => {
  test.skipIf(!services)("drains both workers, each finishing the request it has in flight, and exits 0", async () => {
    const server = await startWorkers({ SHUTDOWN_TIMEOUT_MS: "20000" });
    const [, key] = await waitForOutput(server, new RegExp(KEY_LINE.source));
    const { hostname } = new URL(server.url);
    // A connection held by each worker, found by asking on new ones.
    const held = new Map<number, Awaited<ReturnType<typeof connectionTo>>>();
    for (let i = 0; i < 30 && held.size < 2; i++) {
      const connection = await connectionTo(server.url);
      connection.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      const { requestId } = await connection.response();
      const [, worker] = await waitForOutput(server, new RegExp(`"request_id":"${requestId}".*"worker":(\\d+)\\}`));
      if (held.has(Number(worker))) connection.close();
      else held.set(Number(worker), connection);
    }
    expect([...held.keys()].sort()).toEqual([1, 2]);
    // On each, a request whose body is still arriving when SIGTERM comes.
    const body = (worker: number) => JSON.stringify({ name: `in-flight-${worker}` });
    for (const [worker, connection] of held) {
      connection.write(
        `POST /v1/keys HTTP/1.1\r\nHost: ${hostname}\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body(worker).length}\r\n\r\n${body(worker).slice(0, 10)}`,
      );
    }
    await Bun.sleep(300);
    server.child.kill("SIGTERM");
    for (const worker of [1, 2]) await waitForOutput(server, new RegExp(`"msg":"draining".*"worker":${worker}\\}`));
    await Bun.sleep(300);
    for (const [worker, connection] of held) connection.write(body(worker).slice(10));
    for (const [worker, connection] of held) {
      const response = await connection.response();
      expect(response.status).toBe(201);
      expect(JSON.parse(response.body).name).toBe(`in-flight-${worker}`);
      connection.close();
    }
    expect(await server.child.exited).toBe(0);
    for (const worker of [1, 2]) {
      expect(server.output()).toMatch(new RegExp(`"msg":"stopped","worker":${worker}\\}`));
      expect(server.output()).toMatch(new RegExp(`"msg":"worker stopped","worker":${worker},"pid":\\d+,"code":0`));
    }
    expect(server.output()).toContain('"msg":"stopped","workers":2,"clean":true');
  });
});

describe(`SIGKILL to the supervisor${needingServices}`, () => {
  test.skipIf(!services)("its workers see it gone, drain and exit: none serves on, unsupervised", async () => {
    const server = await startWorkers();
    const workers = [pidOf(server, 1), pidOf(server, 2)];
    server.child.kill("SIGKILL");
    await server.child.exited;
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 400 && workers.some(alive); i++) await Bun.sleep(50);
    expect(workers.filter(alive)).toEqual([]);
    await expect(call(`${server.url}/healthz`)).rejects.toThrow();
  });
});

/** Runs the entry with `env` until it exits (or `timeoutMs` passes, when it is killed): its code and output. */
async function runEntry(env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const child = spawnServer(env);
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
  clearTimeout(timer);
  return { code: child.signalCode ? null : child.exitCode, output: stdout + stderr };
}

describe("several processes where they cannot share", () => {
  test("on the embedded database (PGlite), WEB_CONCURRENCY=2 stops the start, saying why", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "as-workers-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { code, output } = await runEntry({ DATA_DIR: dataDir, WEB_CONCURRENCY: "2" }, 20_000);
    expect(code).toBe(2);
    expect(output).toContain("cannot start");
    expect(output).toContain("WEB_CONCURRENCY=2 needs DATABASE_URL: the embedded database (PGlite in DATA_DIR) belongs to one process");
    expect(output).not.toContain('"msg":"listening"');
  });

  test("without Redis, WEB_CONCURRENCY=2 stops the start: each process would admit the whole limit", async () => {
    // Refused before any connection: the database need not exist.
    const { code, output } = await runEntry({ DATABASE_URL: "postgres://127.0.0.1:1/none", WEB_CONCURRENCY: "2" }, 20_000);
    expect(code).toBe(2);
    expect(output).toContain("WEB_CONCURRENCY=2 needs REDIS_URL (or UPSTASH_REDIS_REST_URL)");
    expect(output).toContain("each process would admit the whole limit");
  });
});

describe("a worker that cannot start", () => {
  test("is started again later each time, then the supervisor stops and exits 1 rather than spin", async () => {
    // Nothing listens on port 1: every worker fails at start, connecting to its database.
    const { code, output } = await runEntry(
      { DATABASE_URL: "postgres://127.0.0.1:1/none", REDIS_URL: "redis://127.0.0.1:1", WEB_CONCURRENCY: "2", LOG_LEVEL: "info" },
      90_000,
    );
    expect(code).toBe(1);
    const [, worker] = /"msg":"worker keeps exiting; stopping the others","worker":(\d),.*"exits":6/.exec(output)!;
    const restarts = new RegExp(`"msg":"worker exited; restarting it","worker":${worker},.*"restart_in_ms":(\\d+)`, "g");
    expect([...output.matchAll(restarts)].map((m) => Number(m[1]))).toEqual([250, 500, 1000, 2000, 4000]);
    expect(output).toContain('"msg":"stopped","workers":2,"clean":false');
  });
});
