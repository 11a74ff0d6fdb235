/**
 * npm run bench:fleet
 *
 * A fleet through a deploy and a crash: three instances of the real server
 * (bun src/main.ts) on a fresh Postgres database and Redis, behind HAProxy
 * (test/helpers/fleet.ts: round-robin, /readyz checked every second, a retry
 * only when a connection cannot be made), under steady load
 * (test/helpers/fleet-load.ts): searches over a loopback web and cheap calls
 * (GET /v1/account) at fixed rates, and a few WebSocket and SSE searches
 * kept open one after another, which the providers answer after a second
 * and a half so that streams span the restarts. The phases:
 *
 *   before    steady load, nothing happens (BENCH_BEFORE_SECONDS, 10)
 *   restarts  every instance SIGTERMed and started again, one after another, each
 *             back in HAProxy's rotation before the next: a rolling deploy
 *   between   steady load (3 s)
 *   kill      one instance SIGKILLed the moment a search it answered arrives, the
 *             others carry on; it is started again after BENCH_KILL_SECONDS (5)
 *   after     steady load (3 s)
 *
 * Then the load stops, every instance is SIGTERMed (so the survivors write what
 * they hold), and each answered billable call (a search's 200, a stream that
 * ran to its end) is looked up among the usage rows by its request id.
 * Printed per phase: calls, calls not answered in full, streams and streams
 * cut short, answered billable calls and their usage rows, p50/p99 of
 * searches and of cheap calls; and the p99 during the restarts against before
 * them. A call belongs to the phase it ended in.
 *
 * The load is small on purpose (BENCH_SEARCHES 4/s, BENCH_CHEAP 20/s,
 * BENCH_WEBSOCKETS 2, BENCH_SSE 2): the whole fleet, HAProxy, Postgres, Redis
 * and the load generator share one machine, and what is measured is what a
 * deploy costs callers, not throughput. BENCH_DATABASE_URL and
 * BENCH_REDIS_URL name the services (default: the local ones).
 */
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../test/helpers/env.ts";
import { failures, isStream, startLoad, streamsCut, type CallRecord } from "../test/helpers/fleet-load.ts";
import { startFleet, type Fleet } from "../test/helpers/fleet.ts";
import { startSearchWorld } from "../test/helpers/search-world.ts";
import { printTable, summarize, writeResults, type Row } from "./lib/report.ts";

// The harness reads the services from the test variables when it loads: a run without them starts again with them.
if (!TEST_DATABASE_URL || !TEST_REDIS_URL) {
  const child = Bun.spawn([process.execPath, ...process.argv.slice(1)], {
    env: {
      ...process.env,
      TEST_DATABASE_URL: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
      TEST_REDIS_URL: process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379",
    },
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(await child.exited);
}

const BEFORE_SECONDS = Number(process.env.BENCH_BEFORE_SECONDS ?? 10);
const KILL_SECONDS = Number(process.env.BENCH_KILL_SECONDS ?? 5);
const SETTLE_SECONDS = 3;
const STREAM_PROVIDER_MS = 1_500;
const SHAPE = {
  searchesPerSecond: Number(process.env.BENCH_SEARCHES ?? 4),
  cheapPerSecond: Number(process.env.BENCH_CHEAP ?? 20),
  websockets: Number(process.env.BENCH_WEBSOCKETS ?? 2),
  sse: Number(process.env.BENCH_SSE ?? 2),
  searchPrompt: "When was the Eiffel Tower completed?",
  streamPrompt: "What will the river bridge cost?",
};

type PhaseName = "before" | "restarts" | "between" | "kill" | "after";
interface Phase {
  name: PhaseName;
  from: number;
  to: number;
}

const world = startSearchWorld({ spawned: true });
world.slowOver("bridge", STREAM_PROVIDER_MS);
let fleet: Fleet | undefined;

try {
  fleet = await startFleet({ env: world.env({ PROVIDER_TIMEOUT_MS: "5000" }) });
  const { apiKey } = await fleet.account({ name: "bench", limit: 1_000_000 });
  // The page cache warm and every instance's first search behind it, so "before" is the steady state.
  for (let i = 0; i < 6; i++) {
    const response = await fetch(`${fleet.url}/v1/search`, {
      method: "POST",
      headers: { "X-API-Key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ prompt: i % 2 ? SHAPE.searchPrompt : SHAPE.streamPrompt }),
    });
    if (response.status !== 200) throw new Error(`warm-up search: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }

  const load = startLoad(fleet.url, apiKey, SHAPE);
  const phases: Phase[] = [];
  const phase = async (name: PhaseName, work: () => Promise<void>) => {
    const from = load.now();
    await work();
    phases.push({ name, from, to: load.now() });
    console.error(`${name}: ${((load.now() - from) / 1000).toFixed(1)} s`);
  };
  const exits: { instance: string; code: number; stopMs: number; backMs: number }[] = [];

  await phase("before", () => Bun.sleep(BEFORE_SECONDS * 1000));
  await phase("restarts", async () => {
    for (const instance of fleet!.instances) {
      const at = performance.now();
      const code = await instance.stop();
      const stopped = performance.now();
      await instance.start();
      exits.push({ instance: instance.name, code, stopMs: Math.round(stopped - at), backMs: Math.round(performance.now() - stopped) });
    }
  });
  await phase("between", () => Bun.sleep(SETTLE_SECONDS * 1000));
  const victim = fleet.instances[1]!;
  let killedAfter: CallRecord | undefined;
  await phase("kill", async () => {
    // The moment it has answered a search (its usage just handed to its recorder), as a crash would find it.
    killedAfter = await load.next((r) => r.instance === victim.name && r.kind === "search" && r.complete);
    await victim.kill();
    await Bun.sleep(KILL_SECONDS * 1000);
    await victim.start();
  });
  await phase("after", () => Bun.sleep(SETTLE_SECONDS * 1000));
  const records = await load.stop();
  // The survivors write what they still hold as they stop; the killed instance's memory is gone.
  const finalExits = await Promise.all(fleet.instances.map((instance) => instance.stop()));

  const answeredBillable = records.filter((r) => r.billable && r.complete);
  const rows = await fleet.usageRows(answeredBillable.map((r) => r.requestId));
  // By when it ended: a stream cut by a SIGKILL belongs to the kill, whenever it began.
  const phaseOf = (r: CallRecord) => phases.find((p) => r.startedAt + r.ms >= p.from && r.startedAt + r.ms < p.to)?.name ?? "after";
  const latency = (list: CallRecord[], kind: CallRecord["kind"]) => {
    const ms = list.filter((r) => r.kind === kind && r.complete).map((r) => r.ms);
    return ms.length ? summarize(ms) : { p50: Number.NaN, p99: Number.NaN, mean: Number.NaN };
  };

  const table: Row[] = [];
  for (const name of ["before", "restarts", "between", "kill", "after", "all"] as const) {
    const list = name === "all" ? records : records.filter((r) => phaseOf(r) === name);
    const billable = list.filter((r) => r.billable && r.complete);
    const found = billable.filter((r) => rows.has(r.requestId));
    const seconds =
      name === "all" ? load.now() / 1000 : (phases.find((p) => p.name === name)!.to - phases.find((p) => p.name === name)!.from) / 1000;
    table.push({
      phase: name,
      seconds: Math.round(seconds * 10) / 10,
      calls: list.length,
      failed: failures(list).length,
      streams: list.filter(isStream).length,
      streams_cut: streamsCut(list).length,
      answered_billable: billable.length,
      usage_rows: found.reduce((sum, r) => sum + rows.get(r.requestId)!, 0),
      missing_rows: billable.length - found.length,
      search_p50_ms: Math.round(latency(list, "search").p50),
      search_p99_ms: Math.round(latency(list, "search").p99),
      cheap_p50_ms: Math.round(latency(list, "cheap").p50),
      cheap_p99_ms: Math.round(latency(list, "cheap").p99),
    });
  }
  const duplicated = [...rows.values()].filter((n) => n > 1).length;
  printTable(
    `A fleet of 3 behind HAProxy: ${SHAPE.searchesPerSecond} searches/s, ${SHAPE.cheapPerSecond} cheap calls/s, ${SHAPE.websockets} WebSocket + ${SHAPE.sse} SSE streams; a rolling restart, then a SIGKILL`,
    table,
  );
  printTable(
    "The rolling restart, instance by instance (stop: SIGTERM to exit; back: start to HAProxy's UP)",
    exits.map((e) => ({ instance: e.instance, exit_code: e.code, stop_ms: e.stopMs, back_ms: e.backMs })),
  );

  const before = table.find((r) => r.phase === "before")!;
  const restarts = table.find((r) => r.phase === "restarts")!;
  const ratio = (key: string) => Number(restarts[key]) / Number(before[key]);
  console.log(
    `\np99 during the restarts against before them: searches ${ratio("search_p99_ms").toFixed(2)}x, cheap calls ${ratio("cheap_p99_ms").toFixed(2)}x`,
  );
  console.log(
    `failed during the restarts: ${restarts.failed} of ${restarts.calls} calls, ${restarts.streams_cut} of ${restarts.streams} streams cut short`,
  );
  const all = table.find((r) => r.phase === "all")!;
  console.log(
    `usage: ${all.answered_billable} answered billable calls, ${all.usage_rows} usage rows for them (${all.missing_rows} missing, ${duplicated} with more than one)`,
  );
  const byProblem = new Map<string, number>();
  for (const failure of failures(records)) {
    const key = `${phaseOf(failure)} ${failure.kind}: ${(failure.problem ?? String(failure.status)).slice(0, 120)}`;
    byProblem.set(key, (byProblem.get(key) ?? 0) + 1);
  }
  if (byProblem.size) {
    console.log("\nwhat failed:");
    for (const [problem, n] of [...byProblem].sort((x, y) => y[1] - x[1])) console.log(`  ${n} x ${problem}`);
  }
  // What the instances logged about each failed call (its request id is on its lines): where it went and how it ended.
  const logged = Object.fromEntries(
    failures(records).map((failure) => [
      failure.requestId,
      fleet!.instances.flatMap((instance) =>
        instance
          .output()
          .split("\n")
          .filter((line) => line.includes(failure.requestId))
          .map((line) => `${instance.name} ${line}`),
      ),
    ]),
  );
  for (const failure of failures(records).filter((f) => f.kind === "websocket" || f.status === 0))
    console.log(
      `  ${failure.requestId} (${phaseOf(failure)}, ${Math.round(failure.ms)} ms): ${logged[failure.requestId]!.join(" | ") || "no log line"}`,
    );
  // Where the tail comes from: the slowest searches and cheap calls, with the instance that answered and when.
  const slowest = records
    .filter((r) => (r.kind === "search" || r.kind === "cheap") && r.complete)
    .sort((x, y) => y.ms - x.ms)
    .slice(0, 8)
    .map((r) => ({
      kind: r.kind,
      phase: phaseOf(r),
      instance: r.instance ?? "?",
      started_s: Math.round(r.startedAt / 100) / 10,
      ms: Math.round(r.ms),
    }));
  printTable("The slowest searches and cheap calls", slowest);
  const lastAnswer = killedAfter && rows.get(killedAfter.requestId);
  console.log(`the search ${victim.name} answered just before its SIGKILL: ${lastAnswer ? `${lastAnswer} usage row` : "no usage row"}`);
  console.log(`\nfinal SIGTERM exit codes: ${finalExits.join(", ")}`);
  console.log(
    `wrote ${writeResults("fleet", {
      shape: SHAPE,
      beforeSeconds: BEFORE_SECONDS,
      killSeconds: KILL_SECONDS,
      phases,
      table,
      restarts: exits,
      p99Ratio: { searches: ratio("search_p99_ms"), cheap: ratio("cheap_p99_ms") },
      duplicatedRows: duplicated,
      failures: Object.fromEntries(byProblem),
      logged,
      slowest,
    })}`,
  );
} finally {
  await fleet?.close();
  world.stop();
}
process.exit(0);
