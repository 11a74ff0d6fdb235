/**
 * What a run tells the metrics and the log, through the real wrapper and
 * engine over in-memory sources: each started run finished exactly once with
 * its outcome, stages timed, refusals by reason, the queue's gauges read at
 * scrape, provider calls by outcome and class, and the run's warnings
 * carrying its request id and the trace id its caller sent. Metrics are on
 * for this process from here: counters are compared before and after.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../clock.ts";
import { loadConfig } from "../../config.ts";
import type { ContentsContext } from "../../contents/service.ts";
import { ServiceError } from "../../errors.ts";
import { InFlightGauge } from "../../limits/peak-load.ts";
import { createLogger } from "../../log.ts";
import { enableMetrics, renderMetrics } from "../../observe/metrics.ts";
import { requestSpan } from "../../observe/trace.ts";
import { CircuitBreaker } from "../breaker.ts";
import { CallLatencies } from "../call-latencies.ts";
import type { EngineDeps } from "../engine.ts";
import { PassageCache } from "../passage-cache.ts";
import type { ResearchRequest } from "../request.ts";
import { ProviderError, type SearchSource } from "../sources/source.ts";
import { engineSettings } from "../wiring.ts";
import { collect } from "./drain.ts";
import { holdRun, startSearch, type RunCall, type RunDeps } from "./hold.ts";
import { RunQueue } from "./queue.ts";
import { heldOpen } from "../../../test/helpers/held-run.ts";

beforeAll(() => enableMetrics());

/** The value of one series in the scrape (0 when absent): `name{labels}` as Prometheus writes it. */
async function value(series: string): Promise<number> {
  const { text } = await renderMetrics();
  const line = text.split("\n").find((l) => l.startsWith(`agentic_search_${series} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

/** How much each series moved while `work` ran. */
async function moved(series: string[], work: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await Promise.all(series.map(value));
  await work();
  const after = await Promise.all(series.map(value));
  return Object.fromEntries(series.map((s, i) => [s, after[i]! - before[i]!]));
}

const answersNothing: SearchSource = { name: "empty", search: async () => [] };
const neverAnswers: SearchSource = {
  name: "hung",
  search: (_query, { signal }) =>
    new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
};
const answersHttp503: SearchSource = {
  name: "broken",
  search: async () => {
    throw new ProviderError("broken", "answered HTTP 503", undefined, "http", 503);
  },
};

function world(sources: SearchSource[], deadlineMs = 5_000, queue = { concurrency: 4, maxQueued: 4 }) {
  const clock = new ManualClock(Date.UTC(2030, 4, 6, 7, 8, 9));
  const lines: Record<string, unknown>[] = [];
  const settings = engineSettings(loadConfig({ PROVIDER_TIMEOUT_MS: "60000", SEARCH_HEDGING: "false" }).search);
  const engine: EngineDeps = {
    sources,
    contents: {} as ContentsContext,
    passages: new PassageCache(),
    llm: null,
    breakers: new Map(sources.map((s) => [s.name, new CircuitBreaker(clock, 1)])),
    latencies: new Map(),
    readTimes: new CallLatencies(),
    settings: { ...settings, read: { ...settings.read, early: false } },
    log: createLogger({ level: "debug", sink: (line) => lines.push(JSON.parse(line)) }),
  };
  const deps: RunDeps = { engine, load: new InFlightGauge(), queue: new RunQueue(queue, clock, engine.log), deadlineMs, clock };
  return { deps, lines };
}

function callOf(account = "acct_metrics", traceparent?: string) {
  const controller = new AbortController();
  const span = traceparent
    ? requestSpan(new Request("http://localhost/v1/search", { headers: { traceparent } }))
    : requestSpan(new Request("http://localhost/v1/search"));
  const call: RunCall = { account, requestId: `req_${account}`, signal: controller.signal, span };
  return { call, controller };
}

const question: ResearchRequest = { prompt: "river bridge cost", image: null, whitelist: null, blacklist: null, outputFormat: null };
const failed = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("the run did not fail");
    },
    (error: unknown) => error as ServiceError,
  );

describe("run metrics", () => {
  test("a finished search: started and finished ok once, its duration and each stage's timed", async () => {
    const { deps } = world([answersNothing]);
    const series = [
      'runs_started_total{kind="search"}',
      'runs_finished_total{kind="search",outcome="ok"}',
      'run_duration_seconds_count{kind="search",outcome="ok"}',
      ...["plan", "search", "read", "rank", "answer"].map((stage) => `run_stage_duration_seconds_count{stage="${stage}"}`),
      'run_stage_duration_seconds_count{stage="image"}',
      "run_queue_wait_seconds_count",
    ];
    const delta = await moved(series, async () => collect(await startSearch(deps, question, callOf().call)));
    expect(delta).toEqual({ ...Object.fromEntries(series.map((s) => [s, 1])), 'run_stage_duration_seconds_count{stage="image"}': 0 });
  });

  test("past the deadline: finished once as deadline; a caller that stops it: canceled; a failure: error", async () => {
    const late = world([neverAnswers], 50);
    const stopped = world([neverAnswers]);
    const delta = await moved(
      [
        'runs_finished_total{kind="search",outcome="deadline"}',
        'runs_finished_total{kind="search",outcome="canceled"}',
        'runs_finished_total{kind="endpoint",outcome="error"}',
        'runs_started_total{kind="search"}',
        'runs_started_total{kind="endpoint"}',
      ],
      async () => {
        expect((await failed(startSearch(late.deps, question, callOf().call).then(collect))).code).toBe("deadline_exceeded");
        const { call, controller } = callOf();
        const events = await startSearch(stopped.deps, question, call);
        setTimeout(() => controller.abort(new ServiceError("bad_request", "one search per connection")), 20);
        await failed(collect(events));
        await failed(
          holdRun(stopped.deps, callOf().call, "endpoint", async () => {
            throw new ServiceError("service_unavailable", "the graph failed");
          }),
        );
      },
    );
    expect(delta).toEqual({
      'runs_finished_total{kind="search",outcome="deadline"}': 1,
      'runs_finished_total{kind="search",outcome="canceled"}': 1,
      'runs_finished_total{kind="endpoint",outcome="error"}': 1,
      'runs_started_total{kind="search"}': 2,
      'runs_started_total{kind="endpoint"}': 1,
    });
  });

  test("refusals by reason, never counted as started or finished; the queue's gauges read at scrape", async () => {
    const full = world([answersNothing], 5_000, { concurrency: 1, maxQueued: 0 });
    const waiting = world([answersNothing], 60, { concurrency: 1, maxQueued: 4 });
    const series = [
      'runs_refused_total{reason="queue_full"}',
      'runs_refused_total{reason="deadline"}',
      'runs_started_total{kind="search"}',
      'runs_finished_total{kind="search",outcome="deadline"}',
    ];
    const first = heldOpen();
    const second = heldOpen();
    const running = holdRun(full.deps, callOf().call, "endpoint", first.work);
    const holding = holdRun(waiting.deps, callOf().call, "endpoint", second.work);
    const queuedBefore = await value("runs_queued");
    const runningNow = await value("runs_running");
    const delta = await moved(series, async () => {
      expect((await failed(startSearch(full.deps, question, callOf("acct_b").call))).code).toBe("queue_full");
      // Queued behind the held run: the gauge reads it while it waits.
      const late = failed(startSearch(waiting.deps, question, callOf("acct_c").call));
      await Bun.sleep(5);
      expect((await value("runs_queued")) - queuedBefore).toBe(1);
      expect((await late).code).toBe("deadline_exceeded");
    });
    expect(runningNow).toBeGreaterThanOrEqual(2);
    expect(delta).toEqual({
      'runs_refused_total{reason="queue_full"}': 1,
      'runs_refused_total{reason="deadline"}': 1,
      'runs_started_total{kind="search"}': 0,
      'runs_finished_total{kind="search",outcome="deadline"}': 0,
    });
    first.finish();
    second.finish();
    await Promise.all([running, holding]);
    expect((await value("runs_running")) - runningNow).toBe(-2);
  });

  test("provider calls by outcome and failure class; a provider whose breaker is open is skipped", async () => {
    const { deps } = world([answersNothing, answersHttp503]);
    const series = [
      'provider_calls_total{provider="empty",outcome="ok"}',
      'provider_calls_total{provider="broken",outcome="failed"}',
      'provider_failures_total{provider="broken",class="http"}',
      'provider_calls_total{provider="broken",outcome="skipped"}',
      'provider_failures_total{provider="broken",class="breaker_open"}',
      'provider_call_duration_seconds_count{provider="broken"}',
    ];
    const delta = await moved(series, async () => {
      // The breaker opens after one failure (threshold 1): the second run skips the broken provider.
      await collect(await startSearch(deps, question, callOf().call));
      await collect(await startSearch(deps, question, callOf().call));
    });
    const queries = delta['provider_calls_total{provider="empty",outcome="ok"}']! / 2;
    expect(queries).toBeGreaterThanOrEqual(1);
    expect(delta['provider_calls_total{provider="broken",outcome="failed"}']).toBeGreaterThanOrEqual(1);
    expect(delta['provider_failures_total{provider="broken",class="http"}']).toBe(
      delta['provider_calls_total{provider="broken",outcome="failed"}'],
    );
    expect(delta['provider_calls_total{provider="broken",outcome="skipped"}']).toBeGreaterThanOrEqual(1);
    expect(delta['provider_failures_total{provider="broken",class="breaker_open"}']).toBe(
      delta['provider_calls_total{provider="broken",outcome="skipped"}'],
    );
    expect(delta['provider_call_duration_seconds_count{provider="broken"}']).toBe(
      delta['provider_calls_total{provider="broken",outcome="failed"}'],
    );
  });
});

describe("a run's log lines", () => {
  test("a provider's failure is logged with the call's request id and the trace id its caller sent", async () => {
    const { deps, lines } = world([answersHttp503]);
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    await collect(await startSearch(deps, question, callOf("acct_logs", `00-${traceId}-b7ad6b7169203331-01`).call));
    const warning = lines.find((l) => l.msg === "search provider failed");
    expect(warning).toMatchObject({ request_id: "req_acct_logs", trace_id: traceId, provider: "broken" });
  });

  test("without a trace id, none is written", async () => {
    const { deps, lines } = world([answersHttp503]);
    await collect(await startSearch(deps, question, callOf("acct_plain").call));
    const warning = lines.find((l) => l.msg === "search provider failed");
    expect(warning).toMatchObject({ request_id: "req_acct_plain" });
    expect(warning).not.toHaveProperty("trace_id");
  });
});
