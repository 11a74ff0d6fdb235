/**
 * npm run bench:http
 *
 * The hot path under load: raw Bun.serve (the ceiling), the floor (the same
 * Elysia with the same schemas, an auth derive over a Map and a cheap access
 * log: lib/floor-app.ts) and the app, on Postgres + Redis and on the
 * embedded defaults (PGlite + in-memory limiter), each a process of its own,
 * driven by wrk (-t1 -c64) in interleaved rounds so the machine's drift hits
 * every target alike. For each target: req/s, p50, p99, the ratios to raw Bun
 * and to the floor in the same run, and, on Postgres + Redis, Redis round
 * trips and Postgres statements per request.
 *
 * The app on Postgres + Redis runs twice: one server process, and
 * WEB_CONCURRENCY workers on one port under their supervisor (BENCH_WORKERS,
 * default the number of CPUs, at least 2), and a second table puts their
 * req/s side by side, with the server's CPU time per request (all its
 * processes, from /proc). wrk takes a core of its own (-t1) on the same machine:
 * with 2 cores the workers share the one wrk leaves them (and Postgres and
 * Redis theirs), so the ratio shows what more processes give where the load
 * generator competes for the cores, a floor of what they give on a machine
 * whose load comes from the network.
 *
 * Redis is a private redis-server started for the run and Postgres a fresh
 * database, so their counters hold this bench's traffic only. Redis's
 * commandstats also counts the commands a Lua script runs inside the server;
 * those are not round trips and are left out (read from our scripts).
 * Postgres statements are transactions committed (each statement outside a
 * transaction is one) from pg_stat_database, after the stats are flushed.
 *
 * BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (64),
 * BENCH_BACKENDS (postgres,workers,embedded), BENCH_WORKERS, BENCH_DATABASE_URL
 * (the server to create the database on, default the local one). `--base DIR`
 * also runs another checkout's app (an earlier commit, with node_modules) in
 * the same interleaved rounds, as the "(base)" rows (one process: an earlier
 * checkout has no workers).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { RedisClient, type Subprocess } from "bun";
import { generateApiKey } from "../src/accounts/keys.ts";
import { freePort, privateRedis } from "../test/helpers/redis-server.ts";
import { parseArgs } from "node:util";
import { root, runCli } from "../test/helpers/process.ts";
import { printTable, writeResults, type Row } from "./lib/report.ts";
import { ensureWrk, runWrk, type WrkResult, type WrkTarget } from "./lib/wrk.ts";
import { cpuSeconds } from "./lib/cpu.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "postgres,workers,embedded").split(",").map((b) => b.trim());
const WORKERS = Number(process.env.BENCH_WORKERS ?? Math.max(2, availableParallelism()));
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const { values: cli } = parseArgs({ options: { base: { type: "string" } } });
const ROOTS: { root: string; label: string }[] = [{ root, label: "" }, ...(cli.base ? [{ root: cli.base, label: " (base)" }] : [])];

const wrk = await ensureWrk();
const children: Subprocess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

// ---- a page for the contents target, read once into the page cache by the CLI
const page = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () =>
    new Response(
      `<!doctype html><html lang="en"><head><title>Bench article</title></head><body><article><h1>Bench article</h1>${"<p>The quick brown fox jumps over the lazy dog, and the page cache answers without a fetch. </p>".repeat(40)}</article></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ),
});
const articleUrl = `http://127.0.0.1:${page.port}/article`;

// ---- raw Bun
const raw = Bun.spawn([process.execPath, fileURLToPath(new URL("./lib/raw-server.ts", import.meta.url))], { stdout: "pipe" });
children.push(raw);
const rawPort = await (async () => {
  const { value } = await raw.stdout.getReader().read();
  return Number(new TextDecoder().decode(value).trim());
})();

// ---- the floor: the same Elysia with the same schemas and a cheap access log, no database (lib/floor-app.ts)
const floorKeys = { enterprise: (await generateApiKey()).secret, free: (await generateApiKey()).secret };
const floorLog = join(mkdtempSync(join(tmpdir(), "bench-http-floor-")), "floor.log");
const floorChild = Bun.spawn([process.execPath, fileURLToPath(new URL("./lib/floor-app.ts", import.meta.url))], {
  env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", FLOOR_ENTERPRISE_KEY: floorKeys.enterprise, FLOOR_FREE_KEY: floorKeys.free },
  stdout: Bun.file(floorLog),
  stderr: "inherit",
});
children.push(floorChild);
let floorPort = 0;
for (let i = 0; !floorPort; i++) {
  floorPort = Number(readFileSync(floorLog, "utf8").split("\n")[0]) || 0;
  if (i > 200) throw new Error("the floor app did not start");
  if (!floorPort) await Bun.sleep(25);
}

interface Backend {
  name: string;
  url: string;
  enterpriseKey: string;
  freeKey: string;
  logPath: string;
  /** Its server processes: the one, or the supervisor and its workers. */
  pids: number[];
  counters?: () => Promise<{ redis: number; postgres: number }>;
}

/** Commands our Lua scripts run inside Redis: counted by commandstats, but not round trips. */
function scriptedCommands(appRoot: string): Set<string> {
  const dir = join(appRoot, "src/limits");
  const names = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    for (const match of readFileSync(join(dir, file), "utf8").matchAll(/redis\.call\(\s*['"](\w+)['"]/gi))
      names.add(match[1]!.toLowerCase());
  }
  return names;
}

async function startApp(name: string, appRoot: string, env: Record<string, string>, workers = 1): Promise<Omit<Backend, "counters">> {
  const cliEnv = { ...env, FETCH_ALLOW_HOSTS: `127.0.0.1:${page.port}`, LOG_LEVEL: "warn" };
  const cli = async (args: string[]) => {
    const result = await runCli(args, cliEnv, appRoot);
    if (result.code !== 0) throw new Error(`cli ${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  };
  await cli(["db", "migrate"]);
  const enterpriseKey = JSON.parse(await cli(["accounts", "create", "--name", "bench-enterprise", "--limit", "1000000", "--json"])).api_key;
  const freeKey = JSON.parse(await cli(["accounts", "create", "--name", "bench-free", "--json"])).api_key;
  await cli(["index", articleUrl]);

  const port = await freePort();
  const logDir = mkdtempSync(join(tmpdir(), `bench-http-${name}-`));
  const logPath = join(logDir, "server.log");
  // The access log goes to a file, as it would to a log shipper's pipe: the server pays for every line.
  const child = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: appRoot,
    // NODE_ENV as the Dockerfile sets it, so a base checkout from before src/production-mode.ts runs as deployed too.
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      // Said even for one: with Postgres and Redis the default is one process per CPU.
      WEB_CONCURRENCY: String(workers),
      ...env,
    },
    stdin: "ignore",
    stdout: Bun.file(logPath),
    stderr: "inherit",
  });
  children.push(child);
  cleanups.push(() => rmSync(logDir, { recursive: true, force: true }));
  const url = `http://127.0.0.1:${port}`;
  const listening = () => readFileSync(logPath, "utf8").match(/"msg":"listening"/g)?.length ?? 0;
  for (let i = 0; ; i++) {
    const ready = await fetch(`${url}/readyz`).catch(() => null);
    if (ready?.ok && listening() >= workers) break;
    if (child.exitCode !== null || i > 600) throw new Error(`${name} server did not start: ${readFileSync(logPath, "utf8").slice(-2000)}`);
    await Bun.sleep(50);
  }
  const workerPids = [...readFileSync(logPath, "utf8").matchAll(/"msg":"worker started","worker":\d+,"pid":(\d+)/g)].map((m) =>
    Number(m[1]),
  );
  return { name, url, enterpriseKey, freeKey, logPath, pids: [child.pid, ...workerPids] };
}

async function postgresBackend(appRoot: string, label: string, workers: number): Promise<Backend> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const database = `bench_http_${process.pid}_${label ? "base" : "this"}_${workers}`;
  await admin.unsafe(`create database ${database}`);
  cleanups.push(async () => {
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
  });
  const redisServer = await privateRedis();
  await redisServer.start();
  cleanups.push(() => redisServer.kill());
  const databaseUrl = new URL(ADMIN_URL);
  databaseUrl.pathname = `/${database}`;
  const name = workers > 1 ? `postgres ×${workers}${label}` : `postgres${label}`;
  const app = await startApp(name, appRoot, { DATABASE_URL: databaseUrl.toString(), REDIS_URL: redisServer.url }, workers);
  const redis = new RedisClient(redisServer.url);
  cleanups.push(() => redis.close());
  const scripted = scriptedCommands(appRoot);
  const ignored = new Set(["info", "hello", "client|setinfo", "script|load"]);
  return {
    ...app,
    async counters() {
      // Backends flush their statistics at most once a second once idle.
      await Bun.sleep(1_500);
      const info = String(await redis.send("INFO", ["commandstats"]));
      let redisCalls = 0;
      for (const match of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) {
        if (!scripted.has(match[1]!) && !ignored.has(match[1]!)) redisCalls += Number(match[2]);
      }
      const [row] = await admin<{ n: string }[]>`
        select xact_commit + xact_rollback as n from pg_stat_database where datname = ${database}`;
      return { redis: redisCalls, postgres: Number(row?.n ?? 0) };
    },
  };
}

async function embeddedBackend(appRoot: string, label: string): Promise<Backend> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-http-pglite-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return startApp(`embedded${label}`, appRoot, { DATA_DIR: dataDir });
}

/** The floor serves every target but the page read, which needs the service's page cache. */
const FLOOR: Backend = {
  name: "floor",
  url: `http://127.0.0.1:${floorPort}`,
  enterpriseKey: floorKeys.enterprise,
  freeKey: floorKeys.free,
  logPath: floorLog,
  pids: [floorChild.pid],
};

function targets(backend: Backend): Record<string, { target: WrkTarget; status: number }> {
  const key = { "x-api-key": backend.enterpriseKey };
  const json = { ...key, "content-type": "application/json" };
  const all: Record<string, { target: WrkTarget; status: number }> = {
    "GET /healthz": { target: { method: "GET", url: `${backend.url}/healthz` }, status: 200 },
    "POST /v1/search {} (422)": { target: { method: "POST", url: `${backend.url}/v1/search`, headers: json, body: "{}" }, status: 422 },
    "GET /v1/account": { target: { method: "GET", url: `${backend.url}/v1/account`, headers: key }, status: 200 },
    "GET /v1/keys": { target: { method: "GET", url: `${backend.url}/v1/keys`, headers: key }, status: 200 },
    "POST /v1/contents (cached)": {
      target: { method: "POST", url: `${backend.url}/v1/contents`, headers: json, body: JSON.stringify({ url: articleUrl }) },
      status: 200,
    },
    "GET /v1/account (429)": {
      target: { method: "GET", url: `${backend.url}/v1/account`, headers: { "x-api-key": backend.freeKey } },
      status: 429,
    },
    "WS upgrade, unknown key (401)": {
      target: {
        method: "GET",
        url: `${backend.url}/v1/ws/search`,
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          "x-api-key": unknownKey,
        },
      },
      status: 401,
    },
  };
  if (backend === FLOOR) delete all["POST /v1/contents (cached)"];
  return all;
}

/** For each target, one process's req/s and p99 next to the workers' (this checkout's rows only). */
function workersSideBySide(rows: Row[]): Row[] {
  const one = rows.filter((r) => r.backend === "postgres");
  return one.flatMap((single) => {
    const several = rows.find((r) => r.backend === `postgres ×${WORKERS}` && r.target === single.target);
    if (!several) return [];
    return [
      {
        target: single.target!,
        "1 process req/s": single.req_s!,
        [`${WORKERS} workers req/s`]: several.req_s!,
        ratio: Number(several.req_s) / Number(single.req_s),
        "1 process cpu_us/req": single.cpu_us_per_req!,
        [`${WORKERS} workers cpu_us/req`]: several.cpu_us_per_req!,
        "1 process p99_ms": single.p99_ms!,
        [`${WORKERS} workers p99_ms`]: several.p99_ms!,
      },
    ];
  });
}

/** Well formed (shape and checksum pass), so it costs the lookup a real key costs: the expensive kind of bad key. */
const unknownKey = (await generateApiKey()).secret;

async function statusOf({ target }: { target: WrkTarget }): Promise<number> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
  await response.arrayBuffer();
  return response.status;
}

try {
  const backends: Backend[] = [];
  for (const name of BACKENDS)
    for (const { root: appRoot, label } of ROOTS) {
      if (name === "workers" && label) continue; // an earlier checkout runs one process whatever WEB_CONCURRENCY says
      if (name === "postgres") backends.push(await postgresBackend(appRoot, label, 1));
      else if (name === "workers") backends.push(await postgresBackend(appRoot, label, WORKERS));
      else backends.push(await embeddedBackend(appRoot, label));
    }

  backends.unshift(FLOOR);
  // The free key's bucket (10/min) is emptied first: from then on its calls are the 429 being measured.
  for (const backend of backends) for (let i = 0; i < 12; i++) await statusOf(targets(backend)["GET /v1/account (429)"]!);
  for (const backend of backends) {
    for (const [name, entry] of Object.entries(targets(backend))) {
      const status = await statusOf(entry);
      if (status !== entry.status) throw new Error(`${backend.name} ${name}: expected ${entry.status}, got ${status}`);
    }
  }

  const options = { seconds: SECONDS, connections: CONNECTIONS, threads: 1 };
  const results = new Map<string, { backend: string; target: string; runs: WrkResult[]; redis: number; postgres: number; cpu: number }>();
  const rawTarget: WrkTarget = { method: "GET", url: `http://127.0.0.1:${rawPort}/` };
  const rawRuns: WrkResult[] = [];
  let rawCpu = 0;
  /** The server's CPU seconds (all its processes) while `run` runs: what a request costs, whatever else shares the cores. */
  const onCpu = async <T>(pids: number[], run: () => Promise<T>): Promise<[T, number]> => {
    const used = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const before = used();
    const result = await run();
    return [result, used() - before];
  };
  for (let round = 0; round < ROUNDS; round++) {
    const [rawRun, rawUsed] = await onCpu([raw.pid], () => runWrk(wrk, rawTarget, options));
    rawRuns.push(rawRun);
    rawCpu += rawUsed;
    for (const backend of backends) {
      for (const [name, entry] of Object.entries(targets(backend))) {
        const before = await backend.counters?.();
        const [run, used] = await onCpu(backend.pids, () => runWrk(wrk, entry.target, options));
        const after = await backend.counters?.();
        const id = `${backend.name} ${name}`;
        const slot = results.get(id) ?? { backend: backend.name, target: name, runs: [], redis: 0, postgres: 0, cpu: 0 };
        slot.runs.push(run);
        slot.cpu += used;
        if (before && after) {
          slot.redis += after.redis - before.redis;
          slot.postgres += after.postgres - before.postgres;
        }
        results.set(id, slot);
      }
    }
    console.error(`round ${round + 1}/${ROUNDS} done`);
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const rawPerSecond = median(rawRuns.map((r) => r.perSecond));
  const rows: Row[] = [
    {
      backend: "-",
      target: "raw Bun.serve",
      req_s: Math.round(rawPerSecond),
      p50_ms: median(rawRuns.map((r) => r.p50Ms)),
      p99_ms: median(rawRuns.map((r) => r.p99Ms)),
      vs_raw: 1,
      vs_floor: "-",
      cpu_us_per_req: (rawCpu * 1e6) / rawRuns.reduce((s, r) => s + r.requests, 0),
      redis_per_req: "-",
      pg_per_req: "-",
      errors: rawRuns.reduce((s, r) => s + r.socketErrors, 0),
    },
  ];
  const floorPerSecond = new Map<string, number>();
  for (const slot of results.values())
    if (slot.backend === FLOOR.name) floorPerSecond.set(slot.target, median(slot.runs.map((r) => r.perSecond)));
  for (const slot of results.values()) {
    const requests = slot.runs.reduce((s, r) => s + r.requests, 0);
    const perSecond = median(slot.runs.map((r) => r.perSecond));
    const counted = slot.backend.startsWith("postgres");
    const floor = floorPerSecond.get(slot.target);
    rows.push({
      backend: slot.backend,
      target: slot.target,
      req_s: Math.round(perSecond),
      p50_ms: median(slot.runs.map((r) => r.p50Ms)),
      p99_ms: median(slot.runs.map((r) => r.p99Ms)),
      vs_raw: perSecond / rawPerSecond,
      vs_floor: floor ? perSecond / floor : "-",
      cpu_us_per_req: (slot.cpu * 1e6) / requests,
      redis_per_req: counted ? slot.redis / requests : "-",
      pg_per_req: counted ? slot.postgres / requests : "-",
      errors: slot.runs.reduce((s, r) => s + r.socketErrors, 0),
    });
  }
  printTable(`HTTP hot path: wrk -t1 -c${CONNECTIONS}, ${SECONDS} s per target, median of ${ROUNDS} interleaved rounds`, rows);
  const byWorkers = workersSideBySide(rows);
  if (byWorkers.length) {
    printTable(`One server process and WEB_CONCURRENCY=${WORKERS} on Postgres + Redis, measured in the same rounds`, byWorkers);
    console.log(
      `\nOn ${availableParallelism()} CPUs, with wrk (-t1) on one of them and Postgres and Redis on the same machine: ` +
        `req/s and their ratio are what ${WORKERS} processes gain where the load generator (and anything else running) ` +
        "competes for the cores: a floor of what they give where the load comes from the network (a Fly machine). " +
        "cpu_us/req counts the server's processes only (the supervisor's copying of the workers' log lines included); " +
        "it rises where processes outnumber free cores (switching between them, fewer requests per wake-up), " +
        `so here it is an upper bound, and ${WORKERS} × 1,000,000 / cpu_us a cautious estimate of req/s with a core per worker.`,
    );
  }
  const logLines = backends.map((b) => ({ backend: b.name, bytes: Bun.file(b.logPath).size }));
  console.log(`\naccess log written: ${logLines.map((l) => `${l.backend} ${(l.bytes / 1e6).toFixed(1)} MB`).join(", ")}`);
  console.log(
    `wrote ${writeResults("http", { seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, workers: WORKERS, cpus: availableParallelism(), rows, byWorkers })}`,
  );
} finally {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((c) => c.exited));
  for (const cleanup of cleanups.reverse()) await cleanup();
  page.stop(true);
}
process.exit(0);
