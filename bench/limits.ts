/**
 * npm run bench:limits
 *
 * 1. Admission: for each plan, PROCESSES processes share one key's bucket in
 *    Redis and fire more checks than the limit at the same instant; admitted
 *    must equal the limit plus what refilled during the burst (measured with
 *    Redis's own clock), with zero over-admissions.
 * 2. Round trips: Redis's INFO commandstats counts every command the checks
 *    cause; per check it must be 1.
 * 3. Cost: p50/p99 of one limiter check (RateLimiter + RedisStore) next to a
 *    plain Redis PING and the in-memory store, in the same run.
 */
import { RedisClient } from "bun";
import { fileURLToPath } from "node:url";
import { systemClock } from "../src/clock.ts";
import { createLogger } from "../src/log.ts";
import { RateLimiter } from "../src/limits/limiter.ts";
import { MemoryStore } from "../src/limits/memory-store.ts";
import { InFlightGauge } from "../src/limits/peak-load.ts";
import { planFor, type Plan } from "../src/limits/plans.ts";
import { RedisStore } from "../src/limits/redis-store.ts";
import { clearPrefix } from "../test/helpers/redis.ts";
import { printTable, summarize, writeResults, type Row } from "./lib/report.ts";

const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 4);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5_000);
const runId = `bench:${process.pid}:${Date.now()}:`;
const redis = new RedisClient(redisUrl);
await redis.send("PING", []);

async function redisMillis(): Promise<number> {
  const [seconds, micros] = (await redis.send("TIME", [])) as [string, string];
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

async function commandStats(): Promise<Map<string, number>> {
  const info = String(await redis.send("INFO", ["commandstats"]));
  const stats = new Map<string, number>();
  for (const match of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) stats.set(match[1]!, Number(match[2]));
  return stats;
}

// ---- 1. admission across processes
const plans: Plan[] = [
  planFor({ balanceMicros: 0, customRateLimit: null }),
  planFor({ balanceMicros: 1, customRateLimit: null }),
  planFor({ balanceMicros: 0, customRateLimit: 5_000 }),
];
const worker = fileURLToPath(new URL("./limits-worker.ts", import.meta.url));
const admissionRows: Row[] = [];
let roundTrips: { checks: number; commands: Record<string, number> } | undefined;

for (const plan of plans) {
  const perProcess = Math.ceil((plan.perMinute * 2) / PROCESSES);
  const checks = perProcess * PROCESSES;
  const keyId = `key_${plan.name}`;
  const before = await commandStats();
  const startAt = Date.now() + 1_500;
  const children = Array.from({ length: PROCESSES }, () =>
    Bun.spawn(
      [process.execPath, worker, redisUrl, runId, keyId, String(plan.perMinute), plan.name, String(perProcess), "32", String(startAt)],
      { stdout: "pipe", stderr: "inherit" },
    ),
  );
  await Bun.sleep(Math.max(0, startAt - Date.now() - 50));
  const windowStart = await redisMillis();
  const results = await Promise.all(
    children.map(async (child) => JSON.parse(await new Response(child.stdout).text()) as { admitted: number; refused: number }),
  );
  const windowEnd = await redisMillis();
  const after = await commandStats();
  const admitted = results.reduce((s, r) => s + r.admitted, 0);
  // Tokens that can have refilled between the first and the last check, by Redis's clock.
  const refill = Math.floor(((windowEnd - windowStart) / 1000) * (plan.perMinute / 60));
  const expected = plan.perMinute + refill;
  admissionRows.push({
    plan: plan.name,
    limit_per_min: plan.perMinute,
    processes: PROCESSES,
    checks,
    burst_ms: Math.round(windowEnd - windowStart),
    refill_allowance: refill,
    expected_max: expected,
    admitted,
    over_admitted: Math.max(0, admitted - expected),
    ok: admitted >= plan.perMinute && admitted <= expected,
  });
  if (plan.name === "free") {
    const delta: Record<string, number> = {};
    for (const [command, calls] of after) {
      const d = calls - (before.get(command) ?? 0);
      if (d > 0 && command !== "info" && command !== "time") delta[command] = d;
    }
    // Each worker loads the script once at start (SCRIPT LOAD), which is start-up, not a check.
    roundTrips = { checks, commands: delta };
  }
}

// ---- 2. round trips per check (from the free run's command counts). commandstats also counts the
// commands the script runs inside Redis (HMGET, HSET, PEXPIRE, TIME): those are not round trips.
// What a client sends is EVALSHA (or EVAL after a script flush); HELLO and SCRIPT LOAD happen once per
// process at connect, not per check.
const SCRIPTED = new Set(["hmget", "hset", "pexpire", "time"]);
const PER_CONNECTION = new Set(["hello", "script|load", "client|setinfo"]);
const clientCommands = Object.entries(roundTrips?.commands ?? {}).filter(([c]) => !SCRIPTED.has(c) && !PER_CONNECTION.has(c));
const perCheck = clientCommands.reduce((s, [, n]) => s + n, 0) / (roundTrips?.checks ?? Number.NaN);

// ---- 3. cost of a check next to PING
const store = new RedisStore(redisUrl);
await store.init();
const limiter = new RateLimiter(
  store,
  new MemoryStore(systemClock),
  { failMode: "closed", timeoutMs: 2_000, keyPrefix: runId, peakInflightThreshold: 1e9, peakFreeRefillFactor: 1 },
  { clock: systemClock, log: createLogger({ level: "warn" }), load: new InFlightGauge() },
);
const memory = new MemoryStore(systemClock);
const memoryLimiter = new RateLimiter(
  memory,
  memory,
  { failMode: "open", timeoutMs: 100, keyPrefix: runId, peakInflightThreshold: 1e9, peakFreeRefillFactor: 1 },
  { clock: systemClock, log: createLogger({ level: "warn" }), load: new InFlightGauge() },
);
const enterprise = plans[2]!;

async function timeEach(fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 200; i++) await fn(i); // warm up
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = Bun.nanoseconds();
    await fn(i);
    samples.push((Bun.nanoseconds() - started) / 1e6);
  }
  return samples;
}

// Interleaved rounds so drift on a noisy machine hits every subject alike.
const subjects: Record<string, (i: number) => Promise<unknown>> = {
  "redis PING (baseline)": () => redis.send("PING", []),
  "limiter check, redis store": (i) => limiter.check(`key_cost_${i % 64}`, enterprise),
  "limiter check, memory store": (i) => memoryLimiter.check(`key_cost_${i % 64}`, enterprise),
};
const samples: Record<string, number[]> = {};
for (let round = 0; round < 3; round++)
  for (const [name, fn] of Object.entries(subjects)) (samples[name] ??= []).push(...(await timeEach(fn)));
const ping = summarize(samples["redis PING (baseline)"]!);
const costRows: Row[] = Object.entries(samples).map(([name, s]) => {
  const stats = summarize(s);
  return {
    subject: name,
    samples: s.length,
    p50_ms: stats.p50,
    p99_ms: stats.p99,
    p50_vs_ping: stats.p50 / ping.p50,
    p99_vs_ping: stats.p99 / ping.p99,
  };
});

printTable(`Admission: ${PROCESSES} processes, one key, 2x the limit fired at once (Redis store)`, admissionRows);
printTable("Redis round trips per check (INFO commandstats, free run)", [
  {
    checks: roundTrips?.checks ?? 0,
    sent_per_check: JSON.stringify(Object.fromEntries(clientCommands)),
    once_per_process: JSON.stringify(Object.fromEntries(Object.entries(roundTrips?.commands ?? {}).filter(([c]) => PER_CONNECTION.has(c)))),
    inside_the_script: JSON.stringify(Object.fromEntries(Object.entries(roundTrips?.commands ?? {}).filter(([c]) => SCRIPTED.has(c)))),
    round_trips_per_check: perCheck,
  },
]);
printTable("Cost of one check, sequential, same run", costRows);
const path = writeResults("limits", {
  redisUrl: redisUrl.replace(/:[^:@/]*@/, ":***@"),
  processes: PROCESSES,
  admission: admissionRows,
  roundTrips: { ...roundTrips, perCheck },
  cost: costRows,
});
console.log(`\nwrote ${path}`);

await clearPrefix(runId, redisUrl);
await limiter.close();
redis.close();
const failed = admissionRows.some((r) => !r.ok) || perCheck !== 1;
process.exit(failed ? 1 : 0);
