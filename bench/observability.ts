/**
 * npm run bench:observability
 *
 * What metrics and tracing cost a request's own work, to within a percent or
 * two: the app runs in this process (app.handle, no socket), and the same
 * requests are timed by the process's CPU time with observability off and
 * on, in turns, round after round, so JIT state, heap and the machine's
 * drift are the same for every arm. `bench:http --observability` measures
 * the whole server under wrk instead, with wrk, Postgres and the collector
 * on the same two cores; its ratios move by ±20% from one run to the next
 * there, too much to show 5%, and this one is the check that can.
 *
 * The arms, each for every target:
 *   off          nothing on (the default);
 *   metrics      the Prometheus catalogue counting (prom-client), not scraped;
 *   spans        each request's span recorded as the server records it (a
 *                span nothing asked for is handed over as its parts), then
 *                thrown away: the cost of the spans alone;
 *   traced       spans exported over OTLP/HTTP (protobuf) to a loopback
 *                collector, a process of its own (lib/otlp-collector.ts);
 *   traced+metrics  both, as `bench:http --observability` runs them;
 *   1/10 traced+metrics  the same with a tenth of the traces sampled
 *                (parentbased_traceidratio 0.1), as tracing.md advises.
 * Elsewhere every request is traced (parentbased_always_on, the default).
 * Between batches of concurrent requests the loop yields a macrotask turn,
 * as a server does between reads, so an export's response is taken in time
 * and no span is dropped (the run fails if one is).
 *
 * CPU is process.cpuUsage(): every thread of the process, the HTTP client's
 * (the exports) and the collector's GC included. Not counted: Bun.serve's
 * HTTP parsing and writing, the same with observability on or off, so these
 * ratios are larger than a whole server's would be.
 *
 * BENCH_ROUND_MS (250, a round's length about), BENCH_ROUNDS (9), BENCH_CONCURRENCY (32).
 * On the embedded database and in-memory limiter unless TEST_DATABASE_URL and
 * TEST_REDIS_URL are set.
 */
import { fileURLToPath } from "node:url";
import { disableMetrics, enableMetrics } from "../src/observe/metrics.ts";
import { OtlpExporter, otlpTarget } from "../src/observe/otlp-exporter.ts";
import { samplerFrom } from "../src/observe/sampler.ts";
import { recordingSpans } from "../src/observe/spans.ts";
import { type SpanMaker, useTracer } from "../src/observe/trace.ts";
import { PROBE_PATHS } from "../src/ops/routes.ts";
import { startTestApp } from "../test/helpers/app.ts";
import { freshDatabase } from "../test/helpers/database.ts";
import { observabilityPieces } from "./lib/observability-pieces.ts";
import { printTable, writeResults, type Row } from "./lib/report.ts";

/** How long a round runs, about: each target's requests a round are set from a first timed round, so rounds are long beside the clock's ticks. */
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 250);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

const collector = Bun.spawn([process.execPath, fileURLToPath(new URL("./lib/otlp-collector.ts", import.meta.url))], { stdout: "pipe" });
const collectorUrl = await (async () => {
  const { value } = await collector.stdout.getReader().read();
  return `http://127.0.0.1:${Number(new TextDecoder().decode(value).trim())}`;
})();

const database = await freshDatabase();
const app = await startTestApp(database, { env: { LOG_LEVEL: "info" } });
const paid = await app.account({ limit: 1_000_000 });
const free = await app.account({ name: "free" });

const failures: string[] = [];
const exporter = new OtlpExporter(
  otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: `${collectorUrl}/observability` }),
  { resource: { "service.name": "bench-observability" }, scope: "agentic-search" },
  (reason) => failures.push(reason),
);
const sampler = samplerFrom({});
const untraced = new Set(PROBE_PATHS);
// As tracing.ts installs them: a request's span nothing asked for goes to the exporter as its parts (addAnswered).
const exported = recordingSpans(sampler, exporter.add, untraced, exporter.addAnswered);
/** A tenth of the traces, as docs/operate/tracing.md advises for a busy fleet. */
const sampled = recordingSpans(
  samplerFrom({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" }),
  exporter.add,
  untraced,
  exporter.addAnswered,
);
let discarded = 0;
const thrownAway = recordingSpans(
  sampler,
  () => {
    discarded++;
  },
  untraced,
  () => {
    discarded++;
  },
);

/** Each arm: the span maker in use (null: tracing off) and whether metrics count. */
const ARMS: Record<string, { spans: SpanMaker | null; metrics: boolean }> = {
  off: { spans: null, metrics: false },
  metrics: { spans: null, metrics: true },
  spans: { spans: thrownAway, metrics: false },
  traced: { spans: exported, metrics: false },
  "traced+metrics": { spans: exported, metrics: true },
  "1/10 traced+metrics": { spans: sampled, metrics: true },
};

function use(arm: string): void {
  const { spans, metrics } = ARMS[arm]!;
  useTracer(spans);
  if (metrics) enableMetrics();
  else disableMetrics();
}

const key = { "x-api-key": paid.apiKey };
const json = { ...key, "content-type": "application/json" };
/** bench:http's targets but the page read (it needs a page server) and the WebSocket upgrade (it needs a socket). */
const TARGETS: Record<string, { make: () => Request; status: number }> = {
  "GET /healthz": { make: () => new Request("http://bench/healthz"), status: 200 },
  "POST /v1/search {} (422)": {
    make: () => new Request("http://bench/v1/search", { method: "POST", headers: json, body: "{}" }),
    status: 422,
  },
  "GET /v1/account": { make: () => new Request("http://bench/v1/account", { headers: key }), status: 200 },
  "GET /v1/keys": { make: () => new Request("http://bench/v1/keys", { headers: key }), status: 200 },
  "GET /v1/account, no key (401)": { make: () => new Request("http://bench/v1/account"), status: 401 },
  "GET /v1/account (429)": { make: () => new Request("http://bench/v1/account", { headers: { "x-api-key": free.apiKey } }), status: 429 },
};

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One arm's round on one target: CPU microseconds a request. */
async function round(make: () => Request, status: number, requests: number): Promise<number> {
  // Each round starts from a collected heap, so no round pays for the garbage of the one before.
  Bun.gc(true);
  const other = new Map<number, number>();
  const before = process.cpuUsage();
  for (let sent = 0; sent < requests; sent += CONCURRENCY) {
    const batch: Promise<number>[] = [];
    for (let i = 0; i < CONCURRENCY; i++)
      batch.push(
        app.handle(make()).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      );
    for (const got of await Promise.all(batch)) if (got !== status) other.set(got, (other.get(got) ?? 0) + 1);
    await turn();
  }
  // The free key's minute refills as the run goes on: a 200 now and then among its 429s changes nothing measured.
  const unexpected = [...other.values()].reduce((sum, n) => sum + n, 0);
  if (unexpected > requests / 100) throw new Error(`expected ${status}, got ${JSON.stringify(Object.fromEntries(other))}`);
  const used = process.cpuUsage(before);
  // The access log is kept in memory by the test app: emptied, so it does not grow through the run.
  app.logs.length = 0;
  return (used.user + used.system) / requests;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const arms = Object.keys(ARMS);
const rows: Row[] = [];
try {
  for (const [target, { make, status }] of Object.entries(TARGETS)) {
    // The free key's minute is spent first, so its target is a 429.
    if (status === 429) for (let i = 0; i < 12; i++) await app.handle(make());
    const samples = new Map<string, number[]>(arms.map((arm) => [arm, []]));
    // A round of each arm unmeasured first: each code path is compiled before it is timed, and the last says how
    // many requests make a round of about ROUND_MS.
    let perRequest = 0;
    for (const arm of arms) {
      use(arm);
      perRequest = await round(make, status, 1000);
    }
    const requests = Math.max(CONCURRENCY, Math.round((ROUND_MS * 1000) / perRequest / CONCURRENCY) * CONCURRENCY);
    for (let r = 0; r < ROUNDS; r++) {
      // The order turns each round, so no arm always follows the same one.
      for (const arm of r % 2 ? [...arms].reverse() : arms) {
        use(arm);
        samples.get(arm)!.push(await round(make, status, requests));
      }
    }
    const off = samples.get("off")!;
    for (const arm of arms) {
      const values = samples.get(arm)!;
      rows.push({
        target,
        arm,
        requests,
        "µs/req": median(values),
        "vs off": median(values) / median(off),
        // CPU time only grows with what else the machine does: each arm's least is the steadier figure.
        "least vs off": Math.min(...values) / Math.min(...off),
        spread: `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`,
      });
    }
  }
  await exporter.flush();
  const counts = (await (await fetch(`${collectorUrl}/counts`)).json()) as Record<string, { spans: number }>;
  printTable(
    `Observability's cost to a request's own work (app.handle, CPU µs a request): rounds of about ${ROUND_MS} ms, ${CONCURRENCY} requests at a time, median of ${ROUNDS} rounds, arms in turn`,
    rows,
  );
  const pieces = observabilityPieces();
  printTable("The pieces alone (a loop each, the least of 5 rounds)", pieces);
  const received = Object.values(counts).reduce((sum, c) => sum + c.spans, 0);
  console.log(`\nspans: ${received} received by the collector, ${discarded} made and thrown away (the spans arm)`);
  if (failures.length) throw new Error(`the exporter lost spans: ${failures.join("; ")}`);
  if (received === 0 || discarded === 0) throw new Error("tracing was not on in its arms");
  console.log(
    `results: ${writeResults("observability", { roundMs: ROUND_MS, rounds: ROUNDS, concurrency: CONCURRENCY, spans: received, rows, pieces })}`,
  );
} finally {
  useTracer(null);
  disableMetrics();
  await exporter.shutdown();
  await app.stop();
  await database.drop();
  collector.kill();
}
