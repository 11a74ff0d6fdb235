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
 * BENCH_BACKENDS (postgres,workers,embedded), BENCH_TARGETS (every target, or
 * those whose names hold one of these words), BENCH_WORKERS, BENCH_DATABASE_URL
 * (the server to create the database on, default the local one). `--base DIR`
 * also runs another checkout's app (an earlier commit, with node_modules) in
 * the same interleaved rounds, as the "(base)" rows (one process: an earlier
 * checkout has no workers).
 *
 * `--observability` runs each of this checkout's backends twice in the same
 * rounds, as it is by default ("off") and with metrics and tracing on, the
 * "+obs" rows: METRICS_PORT (a random port each, read from the "listening"
 * line) scraped once a second while its targets run (Fly scrapes every 15 s;
 * BENCH_SCRAPE_SECONDS=15 does as Fly does),
 * and OTEL_EXPORTER_OTLP_ENDPOINT at a loopback collector (lib/otlp-collector.ts,
 * a process of its own) that counts the spans each server exports. Each
 * backend and its "+obs" twin are driven at the same time, target by target,
 * each by its own wrk with half the connections, so that the machine's
 * drift (large on a shared 2-core machine) hits both alike. A second
 * table puts off and on side by side per target, with their ratios, and the
 * run says how many spans the collector received and series the scrapes
 * returned, so "on" is shown to be on. `--observability --aa` runs the same
 * twins with nothing on in either: their ratios (0.97–1.10 CPU and 0.88–1.06
 * req/s in one run here) are how far a ratio moves by chance on this
 * machine, the yardstick for the observed run's.
 *
 * `--pin` (Linux, 2 CPUs or more, util-linux's taskset) puts every server
 * this bench starts on CPU 0 and wrk and the collector on the others
 * (Postgres and Redis, the machine's own, stay where the system puts them),
 * so servers never share a core with the load that drives them. With
 * --observability, twins then split one core between them, each slowed
 * alike by whatever else the machine does, and the side-by-side table adds
 * each target's CPU ratio round by round and their median, which one round
 * out of step cannot move, with an interval that holds the true median at
 * 90% or more (the rounds' order statistics: 8 rounds give the 2nd smallest
 * to the 2nd largest, 93%) and whether that interval is within 5% ("vs
 * 1.05": within, over, or can't tell, where more rounds narrow it).
 * Pinned, 10 rounds of 3 s, embedded, off against off (--aa) read
 * 0.985-1.009 pooled and 0.978-1.030 as medians per target, where unpinned
 * runs moved 0.97-1.10.
 *
 * `--profile` runs each one-process server of this checkout under Bun's
 * --cpu-prof and, at the end, says what share of its samples had a frame of
 * observability's code (src/observe/) or of the log's (src/log.ts) on the
 * stack (lib/profile-share.ts), sampled every BENCH_PROFILE_INTERVAL_US
 * (250). The same code's share moved by up to a point from one run to the
 * next, where a ratio of two servers moves by several; it is the JavaScript
 * thread's only (no garbage threads, no kernel), and spans every target run:
 * BENCH_TARGETS narrows it to one. With --observability, the off twin's share
 * is the baseline.
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
import { againstBound, medianInterval } from "./lib/median-interval.ts";
import { profileShare, readProfile } from "./lib/profile-share.ts";
import { PROBE_PATHS } from "../src/ops/routes.ts";
import { samplerFrom } from "../src/observe/sampler.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
/** How often an observed server is scraped: every second by default (harsher than Fly's 15 s; a scrape costs a busy server under 1 ms). */
const SCRAPE_SECONDS = Number(process.env.BENCH_SCRAPE_SECONDS ?? 1);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "postgres,workers,embedded").split(",").map((b) => b.trim());
const WORKERS = Number(process.env.BENCH_WORKERS ?? Math.max(2, availableParallelism()));
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const { values: cli } = parseArgs({
  options: {
    base: { type: "string" },
    observability: { type: "boolean" },
    aa: { type: "boolean" },
    pin: { type: "boolean" },
    profile: { type: "boolean" },
  },
});
const OBSERVE = cli.observability === true;
/** With --observability --aa the "+obs" twins run unobserved too: their ratios are this machine's noise, with nothing on. */
const AA = OBSERVE && cli.aa === true;
/** The backends' variants: as today, and with --observability also with metrics and tracing on (this checkout only). */
const OBSERVED = " +obs";
/** With --pin: the command prefixes that put the servers on CPU 0 and the load (wrk, the collector) on the other CPUs. */
const PIN = cli.pin === true ? pinning() : undefined;
/** With --profile: each one-process server of this checkout is profiled (Bun's --cpu-prof), its profile read at the end. */
const PROFILE = cli.profile === true;
/** Microseconds between a profile's samples: four times Bun's default rate, 15,000 to 25,000 samples a server for one target. */
const PROFILE_INTERVAL_US = Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 250);
const onServerCpu = (command: string[]): string[] => (PIN ? [...PIN.servers, ...command] : command);
const onLoadCpus = (command: string[]): string[] => (PIN ? [...PIN.load, ...command] : command);

function pinning(): { servers: string[]; load: string[] } {
  const taskset = Bun.which("taskset");
  const cpus = availableParallelism();
  if (process.platform !== "linux" || !taskset || cpus < 2) throw new Error("--pin needs Linux, taskset (util-linux) and 2 CPUs or more");
  return { servers: [taskset, "-c", "0"], load: [taskset, "-c", `1-${cpus - 1}`] };
}
const ROOTS: { root: string; label: string }[] = [{ root, label: "" }, ...(cli.base ? [{ root: cli.base, label: " (base)" }] : [])];

const wrk = await ensureWrk();
const children: Subprocess[] = [];
let stopping = false;
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

// ---- with --observability: the collector the observed servers export their spans to
const collector =
  OBSERVE && !AA
    ? Bun.spawn(onLoadCpus([process.execPath, fileURLToPath(new URL("./lib/otlp-collector.ts", import.meta.url))]), { stdout: "pipe" })
    : undefined;
if (collector) children.push(collector);
const collectorUrl = collector
  ? await (async () => {
      const { value } = await collector.stdout.getReader().read();
      return `http://127.0.0.1:${Number(new TextDecoder().decode(value).trim())}`;
    })()
  : "";
/**
 * The tracing settings the bench was run with, passed on as they are: every request is traced unless it is told to
 * sample (OTEL_TRACES_SAMPLER=parentbased_traceidratio, _ARG=0.1), in batches of the exporter's defaults unless told
 * otherwise (OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_SCHEDULE_DELAY).
 */
const TRACING_SETTINGS: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => /^OTEL_(TRACES_SAMPLER|BSP_)/.test(entry[0]) && !!entry[1]),
);
/** What observing a server adds to its environment; each exports under a path of its own, so the collector tells them apart. */
const observedEnv = (name: string): Record<string, string> => (AA ? {} : observedOn(name));
const observedOn = (name: string): Record<string, string> => ({
  METRICS_PORT: "0",
  METRICS_HOST: "127.0.0.1",
  OTEL_EXPORTER_OTLP_ENDPOINT: `${collectorUrl}/${encodeURIComponent(name)}`,
  OTEL_SERVICE_NAME: "bench-http",
  ...TRACING_SETTINGS,
});

// ---- raw Bun
const raw = Bun.spawn(onServerCpu([process.execPath, fileURLToPath(new URL("./lib/raw-server.ts", import.meta.url))]), { stdout: "pipe" });
children.push(raw);
const rawPort = await (async () => {
  const { value } = await raw.stdout.getReader().read();
  return Number(new TextDecoder().decode(value).trim());
})();

// ---- the floor: the same Elysia with the same schemas and a cheap access log, no database (lib/floor-app.ts)
const floorKeys = { enterprise: (await generateApiKey()).secret, free: (await generateApiKey()).secret };
const floorLog = join(mkdtempSync(join(tmpdir(), "bench-http-floor-")), "floor.log");
const floorChild = Bun.spawn(onServerCpu([process.execPath, fileURLToPath(new URL("./lib/floor-app.ts", import.meta.url))]), {
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
  /** With metrics on: each server process's /metrics. */
  metricsUrls: string[];
  /** With --profile: the folder its profile is written into when it exits, and the process that writes it. */
  profileDir?: string;
  child?: Subprocess;
  counters?: () => Promise<Counters>;
}

/** Redis round trips and Postgres statements so far (Postgres + Redis backends only). */
interface Counters {
  redis: number;
  postgres: number;
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
  // A supervisor's workers are processes of their own, which the flag does not reach: only one process is profiled.
  const profileDir = PROFILE && workers === 1 && appRoot === root ? join(logDir, "profile") : undefined;
  // The access log goes to a file, as it would to a log shipper's pipe: the server pays for every line.
  // taskset runs the server in its own process (exec), so the pid read for CPU time is the server's.
  const profiling = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`] : [];
  const child = Bun.spawn(onServerCpu([process.execPath, ...profiling, "src/main.ts"]), {
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
  // A server that ends before the bench does says how, with its log's end (the log is removed at the end of the run).
  void child.exited.then((code) => {
    if (!stopping)
      console.error(`${name} server exited (${child.signalCode ?? `code ${code}`}): ${readFileSync(logPath, "utf8").slice(-3000)}`);
  });
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
  const metricsUrls = [...readFileSync(logPath, "utf8").matchAll(/"msg":"listening".*?"metrics_port":(\d+)/g)].map(
    (m) => `http://127.0.0.1:${m[1]}/metrics`,
  );
  return { name, url, enterpriseKey, freeKey, logPath, pids: [child.pid, ...workerPids], metricsUrls, profileDir, child };
}

async function postgresBackend(appRoot: string, label: string, workers: number, observed = false): Promise<Backend> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const database = `bench_http_${process.pid}_${label ? "base" : "this"}_${workers}${observed ? "_obs" : ""}`;
  await admin.unsafe(`create database ${database}`);
  cleanups.push(async () => {
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
  });
  const redisServer = await privateRedis();
  cleanups.push(() => redisServer.kill());
  const databaseUrl = new URL(ADMIN_URL);
  databaseUrl.pathname = `/${database}`;
  const name = `${workers > 1 ? `postgres ×${workers}` : "postgres"}${label}${observed ? OBSERVED : ""}`;
  const app = await startApp(
    name,
    appRoot,
    { DATABASE_URL: databaseUrl.toString(), REDIS_URL: redisServer.url, ...(observed ? observedEnv(name) : {}) },
    workers,
  );
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

async function embeddedBackend(appRoot: string, label: string, observed = false): Promise<Backend> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-http-pglite-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const name = `embedded${label}${observed ? OBSERVED : ""}`;
  return startApp(name, appRoot, { DATA_DIR: dataDir, ...(observed ? observedEnv(name) : {}) });
}

/** The floor serves every target but the page read, which needs the service's page cache. */
const FLOOR: Backend = {
  name: "floor",
  url: `http://127.0.0.1:${floorPort}`,
  enterpriseKey: floorKeys.enterprise,
  freeKey: floorKeys.free,
  logPath: floorLog,
  pids: [floorChild.pid],
  metricsUrls: [],
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

/**
 * BENCH_TARGETS: only the targets whose names hold one of these words (comma-separated, any case), e.g. `401` for the
 * refused upgrade alone: a change to one path measured in a fraction of the time. Unset: every target.
 */
const TARGET_WORDS = (process.env.BENCH_TARGETS ?? "")
  .split(",")
  .map((word) => word.trim().toLowerCase())
  .filter(Boolean);

const chosenTarget = (name: string) => !TARGET_WORDS.length || TARGET_WORDS.some((word) => name.toLowerCase().includes(word));

function measuredTargets(backend: Backend): Record<string, { target: WrkTarget; status: number }> {
  return Object.fromEntries(Object.entries(targets(backend)).filter(([name]) => chosenTarget(name)));
}

/** What --profile reads in each profile: observability's code (metrics and tracing), and the log's. */
const PROFILED_PARTS = { "src/observe/": "/src/observe/", "src/log.ts": "/src/log.ts" };

/** Stops each profiled server, which writes its profile as it exits, and says what share of its samples each part holds. */
async function profiledShares(backends: Backend[]): Promise<Row[]> {
  const profiled = backends.filter((b) => b.profileDir !== undefined && b.child !== undefined);
  stopping = true; // these exits are the bench's own
  for (const backend of profiled) backend.child!.kill("SIGTERM");
  await Promise.all(profiled.map((b) => b.child!.exited));
  return profiled.map((backend) => {
    const profile = readProfile(backend.profileDir!);
    if (!profile) throw new Error(`${backend.name} wrote no profile into ${backend.profileDir}`);
    const { samples, shares } = profileShare(profile, PROFILED_PARTS);
    return {
      backend: backend.name,
      samples,
      ...Object.fromEntries(Object.entries(shares).map(([part, share]) => [`${part} %`, Math.round(share * 10_000) / 100])),
    };
  });
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

/**
 * For each target and observed backend, its req/s, CPU per request and p99 with observability off and on, measured in
 * the same rounds; pinned, also the CPU ratio of each round (`byRound`, by "<on backend> <target>") and their median.
 */
function observabilitySideBySide(rows: Row[], byRound: Map<string, number[]>): Row[] {
  return rows.flatMap((on) => {
    const backend = String(on.backend);
    if (!backend.endsWith(OBSERVED)) return [];
    const off = rows.find((r) => r.backend === backend.slice(0, -OBSERVED.length) && r.target === on.target);
    if (!off) return [];
    return [
      {
        backend: off.backend!,
        target: on.target!,
        "off req/s": off.req_s!,
        "on req/s": on.req_s!,
        "req/s on/off": Number(on.req_s) / Number(off.req_s),
        "off cpu_us/req": off.cpu_us_per_req!,
        "on cpu_us/req": on.cpu_us_per_req!,
        "cpu on/off": Number(on.cpu_us_per_req) / Number(off.cpu_us_per_req),
        ...(PIN ? roundColumns(byRound.get(`${backend} ${on.target}`) ?? []) : {}),
        "off p99_ms": off.p99_ms!,
        "on p99_ms": on.p99_ms!,
      },
    ];
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The bound a ratio is held to: observability on within 5% of off (issue 30's target). */
const BOUND = 1.05;

/**
 * The rounds' CPU ratios, their median, an interval that holds the true median with 90% or more (order statistics:
 * lib/median-interval.ts) and what it says of the bound: "within", "over", or "can't tell" when the interval straddles
 * it, where more rounds (BENCH_ROUNDS) narrow it.
 */
function roundColumns(ratios: number[]): Row {
  const interval = medianInterval(ratios);
  if (!interval) return { "cpu on/off by round": "", "median of rounds": "-" };
  return {
    "cpu on/off by round": ratios.map((r) => r.toFixed(2)).join(" "),
    "median of rounds": interval.median,
    "median's interval": `${interval.low.toFixed(3)}-${interval.high.toFixed(3)} (${Math.round(interval.coverage * 100)}%)`,
    [`vs ${BOUND}`]: againstBound(interval, BOUND),
  };
}

/** Scrapes an observed backend's /metrics every SCRAPE_SECONDS while its targets run: what it returned, to show metrics were on. */
class Scraper {
  scrapes = 0;
  failures = 0;
  /** Series (sample lines) in the latest scrape of each process, and whether the request counter was among them. */
  series = 0;
  requestSeries = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(private readonly urls: string[]) {}
  start(): void {
    this.timer = setInterval(() => {
      for (const url of this.urls) void this.scrape(url);
    }, SCRAPE_SECONDS * 1000);
  }
  stop(): void {
    clearInterval(this.timer);
  }
  private async scrape(url: string): Promise<void> {
    try {
      const response = await fetch(url);
      const text = await response.text();
      if (!response.ok) throw new Error(String(response.status));
      const samples = text.split("\n").filter((line) => line && !line.startsWith("#"));
      this.scrapes++;
      this.series = samples.length;
      this.requestSeries = samples.filter((line) => line.startsWith("agentic_search_http_requests_total{")).length;
    } catch {
      this.failures++;
    }
  }
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
      // Off and on side by side in the list, so each target's two runs are as close in time as the rounds allow.
      for (const observed of OBSERVE && !label ? [false, true] : [false]) {
        if (name === "postgres") backends.push(await postgresBackend(appRoot, label, 1, observed));
        else if (name === "workers") backends.push(await postgresBackend(appRoot, label, WORKERS, observed));
        else backends.push(await embeddedBackend(appRoot, label, observed));
      }
    }
  const scrapers = new Map(backends.filter((b) => b.metricsUrls.length).map((b) => [b, new Scraper(b.metricsUrls)] as const));
  if (OBSERVE && !AA) {
    const unscraped = backends.filter((b) => b.name.endsWith(OBSERVED) && !scrapers.has(b));
    if (unscraped.length) throw new Error(`no metrics port in the log of ${unscraped.map((b) => b.name).join(", ")}`);
  }
  const collectorCpuBefore = collector ? cpuSeconds(collector.pid) : 0;

  const names = Object.keys(targets(backends[0]!));
  if (!names.some(chosenTarget)) throw new Error(`BENCH_TARGETS=${process.env.BENCH_TARGETS} names none of: ${names.join(", ")}`);
  backends.unshift(FLOOR);
  for (const backend of backends) {
    // The free key's bucket (10/min) is emptied first, just before the checks (a token comes back every 6 s): from then
    // on its calls are the 429 being measured.
    for (let i = 0; i < 12; i++) await statusOf(targets(backend)["GET /v1/account (429)"]!);
    for (const [name, entry] of Object.entries(measuredTargets(backend))) {
      const status = await statusOf(entry);
      if (status !== entry.status) throw new Error(`${backend.name} ${name}: expected ${entry.status}, got ${status}`);
    }
  }

  const options = { seconds: SECONDS, connections: CONNECTIONS, threads: 1, prefix: onLoadCpus([]) };
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
  /** With --observability, each "off" backend's "+obs" twin: the two are driven at the same time, target by target. */
  const twinOf = new Map(
    backends.flatMap((b) => {
      const twin = OBSERVE && !b.name.endsWith(OBSERVED) ? backends.find((o) => o.name === `${b.name}${OBSERVED}`) : undefined;
      return twin ? [[b, twin] as const] : [];
    }),
  );
  const twins = new Set(twinOf.values());
  /** Each twin's CPU per request over its "off" twin's, round by round, by "<on backend> <target>". */
  const byRound = new Map<string, number[]>();
  const record = (backend: Backend, name: string, run: WrkResult, used: number, before?: Counters, after?: Counters) => {
    const id = `${backend.name} ${name}`;
    const slot = results.get(id) ?? { backend: backend.name, target: name, runs: [], redis: 0, postgres: 0, cpu: 0 };
    slot.runs.push(run);
    slot.cpu += used;
    if (before && after) {
      slot.redis += after.redis - before.redis;
      slot.postgres += after.postgres - before.postgres;
    }
    results.set(id, slot);
  };
  for (let round = 0; round < ROUNDS; round++) {
    const [rawRun, rawUsed] = await onCpu([raw.pid], () => runWrk(wrk, rawTarget, options));
    rawRuns.push(rawRun);
    rawCpu += rawUsed;
    for (const backend of backends) {
      if (twins.has(backend)) continue; // measured with its "off" twin
      const twin = twinOf.get(backend);
      const pair = twin ? [backend, twin] : [backend];
      for (const b of pair) scrapers.get(b)?.start();
      for (const name of Object.keys(measuredTargets(backend))) {
        const before = await Promise.all(pair.map((b) => b.counters?.()));
        // Twins share the connections and run side by side, so whatever the machine does meanwhile hits both alike.
        const shared = twin ? { ...options, connections: Math.max(1, Math.round(CONNECTIONS / 2)) } : options;
        const runs = await Promise.all(pair.map((b) => onCpu(b.pids, () => runWrk(wrk, targets(b)[name]!.target, shared))));
        const after = await Promise.all(pair.map((b) => b.counters?.()));
        pair.forEach((b, i) => record(b, name, runs[i]![0], runs[i]![1], before[i], after[i]));
        if (twin) {
          const [[offRun, offUsed], [onRun, onUsed]] = runs as [[WrkResult, number], [WrkResult, number]];
          const id = `${twin.name} ${name}`;
          byRound.set(id, [...(byRound.get(id) ?? []), onUsed / onRun.requests / (offUsed / offRun.requests)]);
        }
      }
      for (const b of pair) scrapers.get(b)?.stop();
    }
    console.error(`round ${round + 1}/${ROUNDS} done`);
  }

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
  const byObservability = observabilitySideBySide(rows, byRound);
  let observed: Row[] = [];
  if (AA)
    printTable(
      "Off against off (--aa: the twins run unobserved alike): how far the ratios move with nothing on, measured in the same rounds",
      byObservability,
    );
  else if (OBSERVE) {
    printTable(
      `Observability off and on (metrics scraped every ${SCRAPE_SECONDS} s, spans exported to a loopback collector), measured in the same rounds`,
      byObservability,
    );
    // The last batch of spans leaves within the exporter's delay (1 s).
    await Bun.sleep(2_000);
    const counts = (await (await fetch(`${collectorUrl}/counts`)).json()) as Record<
      string,
      { exports: number; bytes: number; spans: number }
    >;
    const collectorCpu = cpuSeconds(collector!.pid) - collectorCpuBefore;
    observed = [...scrapers].map(([backend, scraper]) => {
      const received = counts[`/${encodeURIComponent(backend.name)}`] ?? { exports: 0, bytes: 0, spans: 0 };
      // The health probes are not traced (src/ops/routes.ts PROBE_PATHS): a span is owed for every other request.
      const probe = (target: string) => (PROBE_PATHS as readonly string[]).includes(new URL(targets(backend)[target]!.target.url).pathname);
      const traced = [...results.values()]
        .filter((slot) => slot.backend === backend.name && !probe(slot.target))
        .reduce((sum, slot) => sum + slot.runs.reduce((s, r) => s + r.requests, 0), 0);
      return {
        backend: backend.name,
        "traced requests": traced,
        "spans received": received.spans,
        "spans/traced request": received.spans / traced,
        exports: received.exports,
        "span MB": received.bytes / 1e6,
        scrapes: scraper.scrapes,
        "failed scrapes": scraper.failures,
        "series in last scrape": scraper.series,
        "http_requests_total series": scraper.requestSeries,
      };
    });
    printTable("What the observed servers sent: spans at the collector, series at the scrapes", observed);
    const totalSpans = observed.reduce((s, r) => s + Number(r["spans received"]), 0);
    console.log(
      `\nSampler: ${process.env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on"} ${process.env.OTEL_TRACES_SAMPLER_ARG ?? ""}. ` +
        `Tracing settings passed on: ${
          Object.entries(TRACING_SETTINGS)
            .map(([name, value]) => `${name}=${value}`)
            .join(" ") || "none (the defaults)"
        }. ` +
        `The collector (a process of its own on the same cores) used ${((collectorCpu * 1e6) / Math.max(1, totalSpans)).toFixed(1)} µs of CPU per span. ` +
        "The health probes are not traced; with every other request traced, fewer spans than traced requests means the exporter's queue (4,096 spans, or OTEL_BSP_MAX_QUEUE_SIZE) overflowed and dropped spans: the server did less than full tracing costs.",
    );
    // No span is owed by a sampler that keeps nothing (always_off, or a ratio of 0: what metrics and the unsampled path
    // cost, alone), nor when only the probes ran.
    // The servers' own sampler, asked of a new trace at position 0: any sampler that keeps a trace keeps that one.
    const keepsNone = !samplerFrom(TRACING_SETTINGS).sample(new Uint8Array(16), undefined);
    const off = observed.filter(
      (r) => (!keepsNone && Number(r["traced requests"]) > 0 && !Number(r["spans received"])) || !Number(r["http_requests_total series"]),
    );
    if (off.length) throw new Error(`observability was not on for ${off.map((r) => r.backend).join(", ")}: no spans or no request series`);
  }
  const profiles = PROFILE ? await profiledShares(backends) : [];
  if (profiles.length)
    printTable(
      "Where each profiled server's CPU went (--profile): the share of its profile's samples with a frame of observability's code (src/observe/) or of the log's (src/log.ts) on the stack, over the whole run, every target in it",
      profiles,
    );
  const logLines = backends.map((b) => ({ backend: b.name, bytes: Bun.file(b.logPath).size }));
  console.log(`\naccess log written: ${logLines.map((l) => `${l.backend} ${(l.bytes / 1e6).toFixed(1)} MB`).join(", ")}`);
  console.log(
    `wrote ${writeResults("http", {
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      workers: WORKERS,
      ...(OBSERVE ? { scrapeSeconds: SCRAPE_SECONDS } : {}),
      cpus: availableParallelism(),
      pinned: PIN !== undefined,
      rows,
      ...(PROFILE ? { profiles } : {}),
      byWorkers,
      ...(OBSERVE
        ? {
            byObservability,
            observed,
            aa: AA,
            sampler: [process.env.OTEL_TRACES_SAMPLER, process.env.OTEL_TRACES_SAMPLER_ARG].filter(Boolean).join(" "),
            tracing: TRACING_SETTINGS,
          }
        : {}),
    })}`,
  );
} finally {
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((c) => c.exited));
  for (const cleanup of cleanups.reverse()) await cleanup();
  page.stop(true);
}
process.exit(0);
