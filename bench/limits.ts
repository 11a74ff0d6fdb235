/**
 * npm run bench:limits
 *
 * 1. Admission: for each plan, PROCESSES processes share one key's bucket in
 *    Redis and fire more checks than the limit at the same instant (at most
 *    BENCH_MAX_CHECKS, so a 1,000,000/min key stays a short run: below its
 *    limit it shows the round trips, not the refusals); admitted must be the
 *    limit plus at most what refilled during the burst (measured with Redis's
 *    own clock), with zero over-admissions.
 * 2. Round trips: Redis's INFO commandstats counts the commands each plan's
 *    run sent; targets: exactly 1 per check for Free and Pro, at most 0.1 per
 *    admitted check for Enterprise.
 * 3. Cost: p50/p99 of one limiter check (RateLimiter + RedisStore) next to a
 *    plain Redis PING and the in-memory store, in the same run.
 *
 * Without BENCH_REDIS_URL the run starts a private redis-server when one is
 * installed: commandstats counts every client of a server, so a shared Redis
 * that other programs use would blur the round-trip counts.
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
import { privateRedis, redisServerBinary } from "../test/helpers/redis-server.ts";
import { printTable, summarize, writeResults, type Row } from "./lib/report.ts";

const ownRedis = !process.env.BENCH_REDIS_URL && redisServerBinary ? await privateRedis() : undefined;
const redisUrl = process.env.BENCH_REDIS_URL ?? ownRedis?.url ?? "redis://127.0.0.1:6379";
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 4);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5_000);
const MAX_CHECKS = Number(process.env.BENCH_MAX_CHECKS ?? 100_000);
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

// commandstats also counts the commands a script runs inside Redis (HMGET, HSET, PEXPIRE, TIME): those are
// not round trips. What a client sends is EVALSHA (or EVAL after a script flush); HELLO and SCRIPT LOAD
// happen once per process at connect, not per check. INFO and TIME are this program's own.
const SCRIPTED = new Set(["hmget", "hset", "pexpire", "time"]);
const PER_CONNECTION = new Set(["hello", "script|load", "client|setinfo"]);
const OWN = new Set(["info"]);

// ---- 1 and 2. admission across processes, and the commands each plan's run sent
const plans: Plan[] = [
  planFor({ balanceMicros: 0, customRateLimit: null }),
  planFor({ balanceMicros: 1, customRateLimit: null }),
  planFor({ balanceMicros: 0, customRateLimit: 5_000 }),
  planFor({ balanceMicros: 0, customRateLimit: 1_000_000 }),
];
const worker = fileURLToPath(new URL("./limits-worker.ts", import.meta.url));
const admissionRows: Row[] = [];
const commandRows: Row[] = [];

for (const plan of plans) {
  const perProcess = Math.ceil(Math.min(plan.perMinute * 2, MAX_CHECKS) / PROCESSES);
  const checks = perProcess * PROCESSES;
  const keyId = `key_${plan.name}_${plan.perMinute}`;
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
  const expected = Math.min(checks, plan.perMinute + refill);
  const delta = new Map<string, number>();
  for (const [command, calls] of after) {
    const d = calls - (before.get(command) ?? 0);
    if (d > 0 && !OWN.has(command)) delta.set(command, d);
  }
  const sent = [...delta].filter(([c]) => !SCRIPTED.has(c) && !PER_CONNECTION.has(c));
  const calls = sent.reduce((s, [, n]) => s + n, 0);
  const enterprise = plan.name === "enterprise";
  const perCheck = calls / checks;
  const perAdmitted = calls / admitted;
  const meetsTarget = enterprise ? perAdmitted <= 0.1 : perCheck === 1;
  admissionRows.push({
    plan: `${plan.name} ${plan.perMinute}/min`,
    processes: PROCESSES,
    checks,
    burst_ms: Math.round(windowEnd - windowStart),
    refill_allowance: refill,
    expected_max: expected,
    admitted,
    over_admitted: Math.max(0, admitted - expected),
    redis_calls: calls,
    calls_per_check: perCheck,
    calls_per_admitted: perAdmitted,
    target: enterprise ? "<= 0.1 per admitted" : "1 per check",
    ok: admitted >= Math.min(checks, plan.perMinute) && admitted <= expected && meetsTarget,
  });
  const pick = (set: Set<string>) => JSON.stringify(Object.fromEntries([...delta].filter(([c]) => set.has(c))));
  commandRows.push({
    plan: `${plan.name} ${plan.perMinute}/min`,
    checks,
    sent: JSON.stringify(Object.fromEntries(sent)),
    once_per_process: pick(PER_CONNECTION),
    inside_the_script: pick(SCRIPTED),
  });
}

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
const [, pro, enterprise] = plans as [Plan, Plan, Plan];

async function timeEach(fn: (i: number) => unknown): Promise<number[]> {
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
const subjects: Record<string, (i: number) => unknown> = {
  "redis PING (baseline)": () => redis.send("PING", []),
  "limiter check, redis store, pro": (i) => limiter.check(`key_cost_pro_${i % 64}`, pro),
  "limiter check, redis store, enterprise 5000/min": (i) => limiter.check(`key_cost_${i % 64}`, enterprise),
  "limiter check, memory store, enterprise 5000/min": (i) => memoryLimiter.check(`key_cost_${i % 64}`, enterprise),
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

printTable(
  `Admission and Redis round trips: ${PROCESSES} processes, one key per plan, up to 2x the limit fired at once (Redis store)`,
  admissionRows,
);
printTable("Commands per plan's run (INFO commandstats deltas)", commandRows);
printTable("Cost of one check, sequential, same run", costRows);
const path = writeResults("limits", {
  redisUrl: redisUrl.replace(/:[^:@/]*@/, ":***@"),
  privateRedis: Boolean(ownRedis),
  processes: PROCESSES,
  admission: admissionRows,
  commands: commandRows,
  cost: costRows,
});
console.log(`\nwrote ${path}`);

await clearPrefix(runId, redisUrl);
await limiter.close();
redis.close();
await ownRedis?.kill();
process.exit(admissionRows.some((r) => !r.ok) ? 1 : 0);
