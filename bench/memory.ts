/**
 * npm run bench:memory [-- --base <checkout>]
 *
 * The server's resident memory, measured the way an operator meets it: the
 * real entry point (`bun src/main.ts`) as a child process, its RSS and peak
 * (VmRSS, VmHWM in /proc/<pid>/status; worker threads live in the same
 * process, so they are counted) read at four moments:
 *
 * - start: the server has said it listens;
 * - idle: BENCH_IDLE_MS later, nothing asked;
 * - request: an authenticated GET /v1/account, then BENCH_IDLE_MS;
 * - extraction: a POST /v1/contents of a loopback page, then BENCH_IDLE_MS
 *   (what lazily started parts cost once they are used).
 *
 * Scenarios: PGlite on an empty data folder (first start: initdb and the
 * migrations in a child process, whose peak the server logs and the table
 * shows beside the server's, then the first account), PGlite again on that folder, and, when
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL) and BENCH_REDIS_URL (or
 * TEST_REDIS_URL) are set, Postgres + Redis on a database created for the
 * run (first start) and again on it, dropped afterwards. Each is repeated
 * BENCH_REPEATS times (default 3) and the median is shown.
 *
 * BENCH_BUN_ARGS adds arguments to bun (`--smol`).
 *
 * `--base <dir>` measures another checkout (with its node_modules) in the
 * same run, alternating with this one, as the baseline.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { article } from "../test/helpers/peers/pages.ts";
import { printTable, writeResults, type Row } from "./lib/report.ts";

const here = fileURLToPath(new URL("..", import.meta.url));
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 4000);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
const BUN_ARGS = (process.env.BENCH_BUN_ARGS ?? "").split(" ").filter(Boolean);
const baseIndex = process.argv.indexOf("--base");
const base = baseIndex > 0 ? process.argv[baseIndex + 1] : undefined;

const checkouts = [...(base ? [{ name: "base", dir: base }] : []), { name: "this", dir: here }];

interface Sample {
  rssMb: number;
  peakMb: number;
}

function sample(pid: number): Sample {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () =>
    new Response(
      article(
        "Council approves the river bridge",
        Array.from({ length: 30 }, (_, i) => `Paragraph ${i}: the council voted on the bridge, its cost and its cycle path.`),
      ),
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ),
});

interface Run {
  startMs: number;
  /** The first POST /v1/contents, end to end: what loading on first use costs the first caller. */
  extractionMs: number;
  start: Sample;
  idle: Sample;
  request: Sample;
  extraction: Sample;
  /** A first start on PGlite: the peak of the child process that made the cluster, as the server logged it. */
  childPeakMb: number | undefined;
  key: string | undefined;
}

async function waitFor(
  output: () => string,
  pattern: RegExp,
  exited: () => boolean,
  pollMs = 10,
  timeoutMs = 60_000,
): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(output());
    if (match) return match;
    if (exited() || Date.now() > deadline) throw new Error(`no ${pattern} in:\n${output()}`);
    await Bun.sleep(pollMs);
  }
}

/** One start of the server in `dir` with `env`, measured, then stopped with SIGTERM. */
async function measure(dir: string, env: Record<string, string>, key: string | undefined): Promise<Run> {
  const started = performance.now();
  const child = Bun.spawn([process.execPath, ...BUN_ARGS, "src/main.ts"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
      ...env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  for (const stream of [child.stdout, child.stderr])
    void (async () => {
      for await (const chunk of stream) chunks.push(decoder.decode(chunk, { stream: true }));
    })();
  const output = () => chunks.join("");
  const exited = () => child.exitCode !== null;
  try {
    const url = (await waitFor(output, /"msg":"listening","url":"(http:\/\/[^"]+)"/, exited, 1))[1]!;
    const startMs = performance.now() - started;
    const start = sample(child.pid);
    const made = /"msg":"embedded database created".*?"child_peak_rss_mb":(\d+)/.exec(output());
    // An empty database gets its first account right after listening; its key is printed then.
    if (!key) key = (await waitFor(output, /export \w+=(\S+)/, exited))[1]!;
    await Bun.sleep(IDLE_MS);
    const idle = sample(child.pid);
    const account = await fetch(`${url}/v1/account`, { headers: { "X-API-Key": key } });
    if (account.status !== 200) throw new Error(`GET /v1/account answered ${account.status}: ${await account.text()}`);
    await Bun.sleep(IDLE_MS);
    const request = sample(child.pid);
    const asked = performance.now();
    const contents = await fetch(`${url}/v1/contents`, {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}article.html`, max_age_seconds: 0 }),
    });
    if (contents.status !== 200) throw new Error(`POST /v1/contents answered ${contents.status}: ${await contents.text()}`);
    const extractionMs = performance.now() - asked;
    await Bun.sleep(IDLE_MS);
    const extraction = sample(child.pid);
    return { startMs, extractionMs, start, idle, request, extraction, childPeakMb: made ? Number(made[1]) : undefined, key };
  } finally {
    child.kill("SIGTERM");
    const code = await child.exited;
    if (code !== 0) console.error(`server in ${dir} exited with ${code}:\n${output().slice(-2000)}`);
  }
}

interface Scenario {
  name: string;
  /** Runs the scenario's starts in `dir`, each returned in order. */
  runs(dir: string, tag: string): Promise<Run[]>;
}

const pglite: Scenario = {
  name: "pglite",
  async runs(dir, tag) {
    const dataDir = mkdtempSync(join(tmpdir(), `bench-mem-${tag}-`));
    try {
      const first = await measure(dir, { DATA_DIR: dataDir }, undefined);
      const second = await measure(dir, { DATA_DIR: dataDir }, first.key);
      return [first, second];
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

const postgresRedis: Scenario = {
  name: "postgres+redis",
  async runs(dir, tag) {
    const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
    const name = `bench_mem_${process.pid}_${tag.replace(/\W/g, "_")}`;
    const url = new URL(DATABASE_URL!);
    url.pathname = `/${name}`;
    await admin.unsafe(`create database "${name}"`);
    try {
      // One server process (with Postgres and Redis the default would be one per CPU under a supervisor): its RSS is the server's.
      const env = {
        DATABASE_URL: url.toString(),
        REDIS_URL: REDIS_URL!,
        RATE_LIMIT_KEY_PREFIX: `bench-mem:${name}:`,
        WEB_CONCURRENCY: "1",
      };
      const first = await measure(dir, env, undefined);
      const second = await measure(dir, env, first.key);
      return [first, second];
    } finally {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  },
};

const scenarios = [pglite, ...(DATABASE_URL && REDIS_URL ? [postgresRedis] : [])];
if (scenarios.length === 1) console.log("BENCH_DATABASE_URL/BENCH_REDIS_URL not set: Postgres + Redis is left out.");

// results[checkout][scenario start name] = runs
const results = new Map<string, Map<string, Run[]>>();
for (let round = 0; round < REPEATS; round++) {
  for (const scenario of scenarios) {
    // Alternate which checkout goes first, so machine noise hits both alike.
    const order = round % 2 === 0 ? checkouts : [...checkouts].reverse();
    for (const checkout of order) {
      const runs = await scenario.runs(checkout.dir, `${checkout.name}_${round}`);
      const byStart = results.get(checkout.name) ?? new Map<string, Run[]>();
      results.set(checkout.name, byStart);
      runs.forEach((run, i) => {
        const key = `${scenario.name}, ${i === 0 ? "first start" : "second start"}`;
        byStart.set(key, [...(byStart.get(key) ?? []), run]);
      });
      process.stderr.write(".");
    }
  }
}
process.stderr.write("\n");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const rows: Row[] = [];
for (const [checkout, byStart] of results)
  for (const [start, runs] of byStart) {
    const mb = (pick: (run: Run) => number) => Math.round(median(runs.map(pick)));
    rows.push({
      checkout,
      start,
      "start MB": mb((r) => r.start.rssMb),
      "idle MB": mb((r) => r.idle.rssMb),
      "after request MB": mb((r) => r.request.rssMb),
      "after extraction MB": mb((r) => r.extraction.rssMb),
      "peak to start MB": mb((r) => r.start.peakMb),
      "peak MB": mb((r) => r.extraction.peakMb),
      "child peak MB": runs.some((r) => r.childPeakMb !== undefined) ? mb((r) => r.childPeakMb ?? 0) : "-",
      "start ms": Math.round(median(runs.map((r) => r.startMs))),
      "1st extraction ms": Math.round(median(runs.map((r) => r.extractionMs))),
    });
  }
rows.sort((a, b) => String(a.start).localeCompare(String(b.start)) || String(a.checkout).localeCompare(String(b.checkout)));

printTable(
  `Server RSS, median of ${REPEATS} (idle = ${IDLE_MS} ms without requests)${BUN_ARGS.length ? `, bun ${BUN_ARGS.join(" ")}` : ""}`,
  rows,
);
const path = writeResults("memory", {
  repeats: REPEATS,
  idleMs: IDLE_MS,
  bunArgs: BUN_ARGS,
  checkouts,
  rows,
  runs: Object.fromEntries([...results].map(([checkout, byStart]) => [checkout, Object.fromEntries(byStart)])),
});
console.log(`\n${path}`);
site.stop(true);
