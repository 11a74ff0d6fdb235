/**
 * npm run bench:tasks [-- --tasks N] [--sync N] [--workers N] [--order round-robin|in-turn] [--poll SECONDS]
 *
 * Queued research against the synchronous route, on one instance. The server
 * runs as a child process (src/main.ts) on the embedded defaults (PGlite, a
 * fresh data directory) or, with BENCH_BACKENDS=postgres (or
 * "embedded,postgres" for both), on a fresh Postgres database and Redis
 * (BENCH_DATABASE_URL, BENCH_REDIS_URL: default the local services). It
 * searches a loopback world: a SearXNG peer that answers every query, after
 * BENCH_PROVIDER_MS (default 100), with the same ten article-sized pages,
 * served on loopback and read once (the page cache answers afterwards): what
 * is measured is the service's own work per run, and the queue's.
 *
 * Three Enterprise accounts (a million calls a minute; up to
 * TASK_CONCURRENCY_ENTERPRISE, 20, tasks each at once), so neither the rate
 * limit nor an account's running-task bound holds anything back: what is
 * left is the instance's TASK_WORKERS and the queue. The baseline, in the
 * same run on the same server: `--sync` (300) `POST /v1/search` calls from as
 * many clients at once as the instance has task workers (`--workers`, default
 * 4, TASK_WORKERS's default), over prompts of the same kind. Then `--tasks`
 * (1,000) `POST /v1/tasks` with such prompts, spread over the three accounts
 * (`--order round-robin`, the default: task i to account i mod 3; `in-turn`:
 * the first account's third, then the second's, then the third's), created by
 * BENCH_CREATORS (16) clients as fast as the server takes them, and waited for
 * (each account's queued and running lists polled until both are empty); then
 * every task read back through the API.
 *
 * Reported per backend: the baseline's searches/s and latency; the creates/s
 * and their p50/p99; tasks finished per second from the first start to the
 * last finish and its ratio to the baseline; queue wait (started_at -
 * created_at) and run time (finished_at - started_at) p50/p99; the workers'
 * utilisation (the tasks' summed run time over workers x the span: below 1,
 * workers stood idle while tasks waited, the queue's polling and fetching)
 * next to the ceiling polling would set if a worker waited out its
 * TASK_POLL_SECONDS (`--poll`, default 0.5) after each job (workers /
 * max(poll, run time)): src/job-queue.ts has each worker ask again at once,
 * so the rate passes it; the server's CPU per
 * search and per task (its process, from /proc: a task's includes its create,
 * and this bench's listing of the queued and running tasks every 250 ms),
 * and its CPU per second while idle (the workers' polling); and fairness
 * across the accounts (see the table's notes). Then the create path alone:
 * the same creates on a fresh instance with TASK_WORKERS=0, whose creates/s
 * no run or worker's fetch shares the database or the CPU with
 * (BENCH_CREATE_ALONE=0 skips it). BENCH_PROFILE=1 writes each server's CPU
 * profile to /tmp/bench-profile.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { article } from "../test/helpers/peers/pages.ts";
import { startSearxngPeer } from "../test/helpers/peers/searxng.ts";
import { runCli, startServer, type ServerProcess } from "../test/helpers/process.ts";
import { cpuSeconds } from "./lib/cpu.ts";
import { printTable, summarize, writeResults, type Row } from "./lib/report.ts";

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    tasks: { type: "string" },
    sync: { type: "string" },
    workers: { type: "string" },
    order: { type: "string" },
    poll: { type: "string" },
  },
});
const TASKS = Number(flags.tasks ?? 1_000);
const SYNC = Number(flags.sync ?? 300);
const WORKERS = Number(flags.workers ?? 4);
const ORDER = (flags.order ?? "round-robin") as "round-robin" | "in-turn";
if (ORDER !== "round-robin" && ORDER !== "in-turn") throw new Error("--order is round-robin or in-turn");
const ACCOUNTS = 3;
const CREATORS = Number(process.env.BENCH_CREATORS ?? 16);
/** Tasks created and run before the clock starts: the create path's JIT, and the queue started. */
const WARM_TASKS = 10;
/** BENCH_CREATE_ALONE=0 skips the creates on an instance with no workers. */
const CREATE_ALONE = process.env.BENCH_CREATE_ALONE !== "0";
const PROVIDER_MS = Number(process.env.BENCH_PROVIDER_MS ?? 100);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "embedded").split(",").map((b) => b.trim()) as Backend[];
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
/** The most the tasks may take, all told: a bench that waits longer is stuck, not slow. */
const WAIT_LIMIT_MS = 15 * 60_000;
/** How long the idle instance's CPU is sampled. */
const IDLE_MS = 5_000;
/** TASK_POLL_SECONDS (default its least): an idle worker asks the queue this often (a task created here wakes one at once). */
const POLL_SECONDS = Number(flags.poll ?? 0.5);

type Backend = "embedded" | "postgres";

// ---- the loopback world: ten pages, and a SearXNG that finds them for any question.
const aspects = ["cost", "schedule", "design", "traffic", "funding", "critics", "environment", "materials", "opening", "upkeep"];
const pages = aspects.map((aspect, n) =>
  article(`The river bridge: ${aspect}`, [
    `The river bridge's ${aspect} was settled by the council in meeting ${n + 1}.`,
    ...Array.from(
      { length: 30 },
      (_, p) =>
        `Paragraph ${p} on the ${aspect} of the river bridge: the works department reported progress ${p} to the committee, which noted item ${n}-${p}.`,
    ),
  ]),
);
const site = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const match = /^\/(\d+)\.html$/.exec(new URL(request.url).pathname);
    const page = match ? pages[Number(match[1])] : undefined;
    return page
      ? new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } })
      : new Response("not found", { status: 404 });
  },
});
const searxng = startSearxngPeer();
searxng.setLatency(PROVIDER_MS);
searxng.setAnswers(() =>
  aspects.map((aspect, n) => ({
    title: `The river bridge: ${aspect}`,
    url: `http://127.0.0.1:${site.port}/${n}.html`,
    snippet: `The river bridge's ${aspect} was settled by the council in meeting ${n + 1}.`,
  })),
);
// Each prompt carries its own token, so no answer is another's.
const prompt = (i: number) => `What do we know about the river bridge s${i}x: cost, schedule, design and traffic?`;

// ---- the server
interface Instance {
  server: ServerProcess;
  keys: string[];
  cleanup(): Promise<void>;
}

let running: ServerProcess | undefined;
// An interrupted bench takes its server down with it.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    running?.child.kill();
    process.exit(130);
  });

async function startInstance(backend: Backend, workers: number): Promise<Instance> {
  const env: Record<string, string> = {
    // info: the server says where it listens at that level (an access line per call, on both routes alike).
    LOG_LEVEL: "info",
    SEARCH_PROVIDERS: "searxng",
    SEARXNG_URL: searxng.url,
    FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    WEB_CONCURRENCY: "1",
    TASK_WORKERS: String(workers),
    TASK_POLL_SECONDS: String(POLL_SECONDS),
    // An account may have all its tasks waiting at once (the default bound is 1,000 each).
    TASK_QUEUED_MAX: String(Math.max(1_000, TASKS)),
  };
  let cleanup: () => Promise<void>;
  if (backend === "embedded") {
    const dir = mkdtempSync(join(tmpdir(), "bench-tasks-"));
    env.DATA_DIR = dir;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const database = `bench_tasks_${process.pid}`;
    const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${database}" with (force)`);
    await admin.unsafe(`create database "${database}"`);
    await admin.end();
    const url = new URL(DATABASE_URL);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
    env.REDIS_URL = REDIS_URL;
    env.RATE_LIMIT_KEY_PREFIX = `bench:tasks:${process.pid}:`;
    cleanup = async () => {
      const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop database if exists "${database}" with (force)`);
      await admin.end();
    };
  }
  // The CLI migrates the fresh database; a limit of a million a minute makes an Enterprise account.
  const keys: string[] = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const created = await runCli(["accounts", "create", "--name", `bench ${a}`, "--limit", "1000000", "--json"], env);
    if (created.code !== 0) throw new Error(`accounts create failed: ${created.stderr}`);
    keys.push(JSON.parse(created.stdout).api_key as string);
  }
  // BENCH_PROFILE=1 writes a CPU profile of each server run (markdown, for reading) to /tmp/bench-profile.
  const profile: Record<string, string> = process.env.BENCH_PROFILE
    ? { BUN_OPTIONS: "--cpu-prof --cpu-prof-md --cpu-prof-dir=/tmp/bench-profile" }
    : {};
  // A server that does not start leaves no data directory or database behind.
  running = await startServer({ ...env, ...profile }).catch(async (error: unknown) => {
    await cleanup();
    throw error;
  });
  return { server: running, keys, cleanup };
}

async function stopInstance(instance: Instance): Promise<void> {
  const stopped = await Promise.race([instance.server.stop(), Bun.sleep(30_000).then(() => null)]);
  if (stopped === null) {
    instance.server.child.kill("SIGKILL");
    await instance.server.child.exited;
  }
  running = undefined;
  await instance.cleanup();
}

const headers = (key: string) => ({ "X-API-Key": key, "content-type": "application/json" });

/** `calls` searches from `clients` clients at once; answers each one's ms, and the span from the first ask to the last answer. */
async function syncSearches(base: string, key: string, calls: number, clients: number, first: number) {
  const ms: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < calls) {
        const i = first + next++;
        const asked = performance.now();
        const response = await fetch(`${base}/v1/search`, {
          method: "POST",
          headers: headers(key),
          body: JSON.stringify({ prompt: prompt(i) }),
        });
        const body = (await response.json()) as { context?: unknown[] };
        if (response.status !== 200 || !body.context?.length)
          throw new Error(`search ${i}: ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
        ms.push(performance.now() - asked);
      }
    }),
  );
  return { ms, spanMs: performance.now() - started };
}

interface TaskView {
  id: string;
  status: string;
  attempts: number;
  metadata: { i: number; account: number } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: { code: string; message: string } | null;
}

/** Which account task i belongs to. */
const accountOf = (i: number) => (ORDER === "round-robin" ? i % ACCOUNTS : Math.min(ACCOUNTS - 1, Math.floor((i * ACCOUNTS) / TASKS)));

async function createTasks(base: string, keys: string[], first: number) {
  const ms: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CREATORS }, async () => {
      while (next < TASKS) {
        const n = next++;
        const account = accountOf(n);
        const asked = performance.now();
        const response = await fetch(`${base}/v1/tasks`, {
          method: "POST",
          headers: headers(keys[account]!),
          body: JSON.stringify({ prompt: prompt(first + n), metadata: { i: n, account } }),
        });
        if (response.status !== 202) throw new Error(`task ${n}: ${response.status} ${(await response.text()).slice(0, 200)}`);
        await response.body?.cancel();
        ms.push(performance.now() - asked);
      }
    }),
  );
  return { ms, spanMs: performance.now() - started };
}

async function count(base: string, key: string, status: string): Promise<boolean> {
  const response = await fetch(`${base}/v1/tasks?status=${status}&limit=1`, { headers: headers(key) });
  const body = (await response.json()) as { data?: unknown[] };
  if (!body.data) throw new Error(`listing ${status} tasks: ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
  return body.data.length > 0;
}

/** Polls each account's queued and running lists until all are empty. */
async function waitForTasks(base: string, keys: string[]): Promise<void> {
  const deadline = performance.now() + WAIT_LIMIT_MS;
  for (;;) {
    const busy = await Promise.all(keys.flatMap((key) => [count(base, key, "queued"), count(base, key, "running")]));
    if (!busy.some(Boolean)) return;
    if (performance.now() > deadline) throw new Error(`tasks still queued or running after ${WAIT_LIMIT_MS / 60_000} minutes`);
    // The tasks' times come from their rows: this only says when to read them, and asks little of the server meanwhile.
    await Bun.sleep(1_000);
  }
}

async function readTasks(base: string, key: string): Promise<TaskView[]> {
  const all: TaskView[] = [];
  let cursor: string | null = null;
  do {
    const response = await fetch(`${base}/v1/tasks?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { headers: headers(key) });
    const page = (await response.json()) as { data: TaskView[]; next_cursor: string | null };
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

/** A few tasks without metadata (the read-back leaves them out), created one after another. */
async function warmTasks(base: string, key: string): Promise<void> {
  for (let i = 0; i < WARM_TASKS; i++) {
    const warm = await fetch(`${base}/v1/tasks`, {
      method: "POST",
      headers: headers(key),
      body: JSON.stringify({ prompt: prompt(90_000 + i) }),
    });
    if (warm.status !== 202) throw new Error(`warm-up task: ${warm.status} ${await warm.text()}`);
    await warm.body?.cancel();
  }
}

/**
 * The create path alone: the same creates on a fresh instance that runs no tasks (TASK_WORKERS=0), so that neither
 * the runs nor the workers' fetches share the database, its one connection on PGlite, or the CPU with them.
 */
async function createAlone(backend: Backend): Promise<Row> {
  const instance = await startInstance(backend, 0);
  const { server, keys } = instance;
  try {
    await warmTasks(server.url, keys[0]!);
    console.error(`${backend}: ${TASKS} tasks created on an instance with no workers`);
    const cpu = cpuSeconds(server.child.pid);
    const created = await createTasks(server.url, keys, 200_000);
    const cpuMs = ((cpuSeconds(server.child.pid) - cpu) * 1000) / TASKS;
    const create = summarize(created.ms);
    return {
      backend,
      route: "POST /v1/tasks, create only (TASK_WORKERS=0)",
      clients_or_workers: 0,
      calls: TASKS,
      ok: created.ms.length,
      per_s: "n/a",
      ratio_to_sync: "n/a",
      create_per_s: TASKS / (created.spanMs / 1000),
      create_p50_ms: create.p50,
      create_p99_ms: create.p99,
      queue_wait_p50_s: "n/a",
      queue_wait_p99_s: "n/a",
      run_p50_s: "n/a",
      run_p99_s: "n/a",
      worker_utilisation: "n/a",
      poll_ceiling_per_s: "n/a",
      server_cpu_ms_per_call: cpuMs,
      idle_cpu_ms_per_s: "n/a",
      first_half_share_by_account: "n/a",
      jain_first_half: "n/a",
      median_finish_s_by_account: "n/a",
    };
  } finally {
    await stopInstance(instance);
  }
}

/** Jain's fairness index over the amounts: 1 when all are equal, 1/n when one has everything. */
const jain = (xs: number[]) => xs.reduce((s, x) => s + x, 0) ** 2 / (xs.length * xs.reduce((s, x) => s + x * x, 0));

async function runBackend(backend: Backend): Promise<{ rows: Row[]; raw: unknown }> {
  const instance = await startInstance(backend, WORKERS);
  const { server, keys } = instance;
  const pid = server.child.pid;
  try {
    // Warm-up off the clock: the JIT, the pools, the page cache, and tasks through the queue (the first starts it).
    await syncSearches(server.url, keys[0]!, WORKERS * 2, WORKERS, 0);
    await warmTasks(server.url, keys[0]!);
    await waitForTasks(server.url, keys);

    // The idle instance's own work: the workers' polling, the queue's supervision.
    let cpu = cpuSeconds(pid);
    await Bun.sleep(IDLE_MS);
    const idleCpuMsPerS = ((cpuSeconds(pid) - cpu) * 1000) / (IDLE_MS / 1000);

    console.error(`${backend}: ${SYNC} searches from ${WORKERS} clients`);
    cpu = cpuSeconds(pid);
    const sync = await syncSearches(server.url, keys[1]!, SYNC, WORKERS, 10_000);
    const syncCpuMs = ((cpuSeconds(pid) - cpu) * 1000) / SYNC;
    const searchesPerS = SYNC / (sync.spanMs / 1000);

    console.error(`${backend}: ${TASKS} tasks over ${ACCOUNTS} accounts (${ORDER}), ${WORKERS} workers`);
    cpu = cpuSeconds(pid);
    const created = await createTasks(server.url, keys, 100_000);
    console.error(`${backend}: created in ${(created.spanMs / 1000).toFixed(1)} s; waiting`);
    await waitForTasks(server.url, keys);
    const taskCpuMs = ((cpuSeconds(pid) - cpu) * 1000) / TASKS;
    const tasks = (await Promise.all(keys.map((key) => readTasks(server.url, key)))).flat().filter((t) => t.metadata !== null);
    if (tasks.length !== TASKS) throw new Error(`read back ${tasks.length} tasks of ${TASKS}`);

    const time = (iso: string | null) => (iso === null ? Number.NaN : Date.parse(iso));
    const done = tasks.filter((t) => t.status === "succeeded");
    const failures = [...new Set(tasks.filter((t) => t.status !== "succeeded").map((t) => `${t.status}: ${t.error?.code ?? ""}`))];
    const firstStart = Math.min(...done.map((t) => time(t.started_at)));
    const lastFinish = Math.max(...done.map((t) => time(t.finished_at)));
    const spanS = (lastFinish - firstStart) / 1000;
    const tasksPerS = done.length / spanS;
    const wait = summarize(done.map((t) => time(t.started_at) - time(t.created_at)));
    const run = summarize(done.map((t) => time(t.finished_at) - time(t.started_at)));
    const busyMs = done.reduce((s, t) => s + time(t.finished_at) - time(t.started_at), 0);
    const syncLatency = summarize(sync.ms);
    const create = summarize(created.ms);

    // Fairness: the first half of the tasks to finish, by account (each account asked for a third), and Jain's index
    // over those counts; and each account's median finish, in seconds from the first start.
    const byFinish = [...done].sort((a, b) => time(a.finished_at) - time(b.finished_at));
    const firstHalf = byFinish.slice(0, Math.floor(byFinish.length / 2));
    const asked = Array.from({ length: ACCOUNTS }, (_, a) => tasks.filter((t) => t.metadata!.account === a).length);
    const halfCounts = Array.from({ length: ACCOUNTS }, (_, a) => firstHalf.filter((t) => t.metadata!.account === a).length);
    // Normalised by what each asked for, so that an uneven split of --tasks does not read as unfairness.
    const halfShares = halfCounts.map((n, a) => n / asked[a]!);
    const medianFinish = Array.from(
      { length: ACCOUNTS },
      (_, a) => summarize(done.filter((t) => t.metadata!.account === a).map((t) => (time(t.finished_at) - firstStart) / 1000)).p50,
    );
    const fmt = (xs: number[], digits: number) => xs.map((x) => x.toFixed(digits)).join(" / ");

    const rows: Row[] = [
      {
        backend,
        route: "POST /v1/search",
        clients_or_workers: WORKERS,
        calls: SYNC,
        ok: SYNC,
        per_s: searchesPerS,
        ratio_to_sync: 1,
        create_per_s: "n/a",
        create_p50_ms: "n/a",
        create_p99_ms: "n/a",
        queue_wait_p50_s: "n/a",
        queue_wait_p99_s: "n/a",
        run_p50_s: syncLatency.p50 / 1000,
        run_p99_s: syncLatency.p99 / 1000,
        worker_utilisation: "n/a",
        poll_ceiling_per_s: "n/a",
        server_cpu_ms_per_call: syncCpuMs,
        idle_cpu_ms_per_s: idleCpuMsPerS,
        first_half_share_by_account: "n/a",
        jain_first_half: "n/a",
        median_finish_s_by_account: "n/a",
      },
      {
        backend,
        route: "POST /v1/tasks",
        clients_or_workers: WORKERS,
        calls: TASKS,
        ok: done.length,
        per_s: tasksPerS,
        ratio_to_sync: tasksPerS / searchesPerS,
        create_per_s: TASKS / (created.spanMs / 1000),
        create_p50_ms: create.p50,
        create_p99_ms: create.p99,
        queue_wait_p50_s: wait.p50 / 1000,
        queue_wait_p99_s: wait.p99 / 1000,
        run_p50_s: run.p50 / 1000,
        run_p99_s: run.p99 / 1000,
        worker_utilisation: busyMs / (WORKERS * spanS * 1000),
        // pg-boss's worker, after a job, waits out the rest of its polling interval before it fetches again (unless a
        // send on this instance wakes it): each worker takes at most one task per max(interval, run time).
        poll_ceiling_per_s: WORKERS / Math.max(POLL_SECONDS, busyMs / done.length / 1000),
        server_cpu_ms_per_call: taskCpuMs,
        idle_cpu_ms_per_s: idleCpuMsPerS,
        first_half_share_by_account: fmt(halfShares, 3),
        jain_first_half: jain(halfShares),
        median_finish_s_by_account: fmt(medianFinish, 1),
      },
    ];
    if (failures.length) console.log(`${backend}: ${TASKS - done.length} tasks did not succeed: ${JSON.stringify(failures)}`);
    const retried = tasks.filter((t) => t.attempts > 1).length;
    if (retried) console.log(`${backend}: ${retried} tasks were begun more than once (started_at is their last start)`);
    return {
      rows,
      raw: {
        syncMs: sync.ms,
        syncSpanMs: sync.spanMs,
        createMs: created.ms,
        createSpanMs: created.spanMs,
        tasks: tasks.map((t) => ({
          account: t.metadata!.account,
          i: t.metadata!.i,
          status: t.status,
          attempts: t.attempts,
          created_at: t.created_at,
          started_at: t.started_at,
          finished_at: t.finished_at,
        })),
        failures,
      },
    };
  } finally {
    await stopInstance(instance);
  }
}

const rows: Row[] = [];
const raw: Record<string, unknown> = {};
for (const backend of BACKENDS) {
  const result = await runBackend(backend);
  rows.push(...result.rows);
  raw[backend] = result.raw;
  if (CREATE_ALONE) rows.push(await createAlone(backend));
}
printTable(
  `Tasks: ${TASKS} tasks over ${ACCOUNTS} Enterprise accounts (${ORDER}) created by ${CREATORS} clients at once, against ${SYNC} synchronous searches from ${WORKERS} clients at once, on one instance (TASK_WORKERS=${WORKERS}, TASK_POLL_SECONDS=${POLL_SECONDS}); SearXNG peer (${PROVIDER_MS} ms) and 10 cached pages on loopback. per_s: searches answered, or tasks finished from the first start to the last finish; run: a search's latency, or a task's finished_at - started_at; queue wait: started_at - created_at; worker_utilisation: the tasks' summed run time over workers x that span; poll_ceiling: workers / max(poll, mean run time), what the workers would take if each waited out its polling interval after a job (they ask again at once: src/job-queue.ts); server_cpu: the server process's CPU per search, per task (its create, run and this bench's listing), per create on an instance with no workers; idle_cpu: per second while idle (the workers' polling); first_half_share_by_account: the share of each account's tasks among the first half to finish (each 0.5 when fair), and Jain's index over those shares (1 fair, 1/3 one account only); median_finish: each account's median finish, s after the first start`,
  rows,
);
console.log(
  `\nwrote ${writeResults("tasks", { tasks: TASKS, sync: SYNC, workers: WORKERS, order: ORDER, creators: CREATORS, providerMs: PROVIDER_MS, rows, raw })}`,
);
site.stop(true);
searxng.stop();
process.exit(0);
