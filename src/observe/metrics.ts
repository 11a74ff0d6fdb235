/**
 * Every metric the service exports, in one catalogue, with prom-client
 * (docs/operate/metrics.md lists them with their meaning). Chosen over
 * OpenTelemetry's metrics SDK: it renders the Prometheus text format
 * itself, and it brings the process metrics (RSS, event-loop lag) Fly's
 * scraper expects, where OTel's Prometheus exporter is a second HTTP server
 * on node:http of its own. Counters and histograms are our own series
 * (series.ts), a plain object and an add on the request path, which
 * prom-client's registry reads at a scrape; its gauges are prom-client's.
 *
 * Off by default (METRICS_PORT unset): `metrics` is then a catalogue of
 * no-ops, so code that counts costs a call to an empty function. main.ts
 * turns it on before the app is built; `metrics` is a live binding, so
 * every importer sees the real catalogue from then on.
 *
 * Labels are bounded by construction: route templates (never raw paths),
 * provider names from configuration, and fixed words (outcomes, classes,
 * plans). No key, account, prompt or URL is ever a label.
 *
 * Gauges of state that lives elsewhere (the run queue's depth, open
 * sockets, the usage outbox) are read when scraped, from sources the owner
 * registers with `gaugeFrom`: a count kept by inc/dec beside the real one
 * could drift from it; a read cannot.
 */
import type { Gauge, Metric, Registry } from "prom-client";
import { SeriesCount, SeriesCounter, SeriesHistogram } from "./series.ts";

/** prom-client, loaded only when metrics are turned on: its modules cost a server that keeps none some 15 MB. */
const prom = () => require("prom-client") as typeof import("prom-client");

type LabelValues<L extends string> = Partial<Record<L, string | number>>;

export interface CounterLike<L extends string> {
  inc(labels?: LabelValues<L>, value?: number): void;
}
export interface HistogramLike<L extends string> {
  observe(labels: LabelValues<L>, value: number): void;
}
export interface GaugeLike<L extends string> {
  set(labels: LabelValues<L>, value: number): void;
}

/** Seconds: from a millisecond request to a research run's whole minute. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** What one catalogue holds: the same shape whether its members count or not. */
function catalogue(
  counter: <L extends string>(name: string, help: string, labels: readonly L[]) => CounterLike<L>,
  /** `countedAs`: a counter of its observations by the same labels, read from it when scraped (series.ts SeriesCount). */
  histogram: <L extends string>(
    name: string,
    help: string,
    labels: readonly L[],
    countedAs?: { name: string; help: string },
    buckets?: number[],
  ) => HistogramLike<L>,
  gauge: <L extends string>(name: string, help: string, labels: readonly L[]) => GaugeLike<L>,
) {
  return {
    // The golden signals: traffic, errors and latency per route template (http_requests_total is its count).
    httpDuration: histogram(
      "http_request_duration_seconds",
      "Time from a request's arrival to its response being sent (a stream: until its headers), by route template, method and status class.",
      ["route", "method", "status_class"],
      { name: "http_requests_total", help: "Requests answered, by route template, method and status class." },
    ),

    // Research runs: every search and endpoint call runs one (research/run/hold.ts).
    runsStarted: counter("runs_started_total", "Research runs that got a slot and started, by kind (search or endpoint).", ["kind"]),
    runDuration: histogram(
      "run_duration_seconds",
      "A research run's time from its start to its end, waiting excluded, by kind and outcome.",
      ["kind", "outcome"],
      { name: "runs_finished_total", help: "Research runs that ended, by kind and outcome (ok, deadline, error, canceled)." },
    ),
    runStageDuration: histogram(
      "run_stage_duration_seconds",
      "Time spent in each stage of a research run (image, plan, search, read, rank, answer).",
      ["stage"],
    ),
    runsRefused: counter("runs_refused_total", "Research runs refused before they started, by reason (queue_full, deadline).", ["reason"]),
    runQueueWait: histogram("run_queue_wait_seconds", "How long a research run waited for a slot on this instance.", []),
    runsRunning: gauge("runs_running", "Research runs executing on this instance.", []),
    runsQueued: gauge("runs_queued", "Research runs waiting for a slot on this instance (the queue's depth).", []),

    // Search providers and page reads (research/fanout.ts, research/read.ts, contents/).
    providerCalls: counter("provider_calls_total", "Search provider calls, by provider and outcome (ok, failed, cut, skipped).", [
      "provider",
      "outcome",
    ]),
    providerFailures: counter(
      "provider_failures_total",
      "Failed search provider calls, by provider and class (timeout, http, network, invalid, breaker_open, other).",
      ["provider", "class"],
    ),
    providerDuration: histogram("provider_call_duration_seconds", "A search provider call's time, by provider.", ["provider"]),
    providerHedges: counter(
      "provider_hedges_total",
      "Second requests sent to a provider because the first was slow (hedges), by provider.",
      ["provider"],
    ),
    providerStragglersCut: counter(
      "provider_stragglers_cut_total",
      "Provider calls a run went on without after their grace, by provider.",
      ["provider"],
    ),
    providerBreakerState: gauge(
      "provider_breaker_state",
      "Each provider's circuit breaker on this instance: 0 closed, 1 half-open, 2 open.",
      ["provider"],
    ),
    pageReadDuration: histogram("page_read_duration_seconds", "A page read's time, from the cache or the web, by outcome.", ["outcome"], {
      name: "page_reads_total",
      help: "Pages read for a run or POST /v1/contents, by outcome (fetched, cached, failed, cut).",
    }),
    pageCacheLookups: counter("page_cache_lookups_total", "Page cache lookups, by tier (memory, database) and result (hit, miss).", [
      "tier",
      "result",
    ]),

    // The rate limiter (limits/).
    limiterDecisions: counter(
      "limiter_decisions_total",
      "Rate-limit decisions, by plan and outcome (allowed, limited, failed_open, failed_closed).",
      ["plan", "outcome"],
    ),
    limiterStoreRoundTrips: counter(
      "limiter_store_round_trips_total",
      "Round trips to the limiter's store, by store (memory, redis, upstash) and outcome (ok, error).",
      ["store", "outcome"],
    ),
    limiterStoreDuration: histogram("limiter_store_round_trip_seconds", "A round trip to the limiter's store, by store.", ["store"]),
    limiterStoreOutageSeconds: counter(
      "limiter_store_outage_seconds_total",
      "Seconds the limiter's store has been unreachable, summed over outages, the one going on included (read when scraped).",
      [],
    ),
    limiterStoreUp: gauge("limiter_store_up", "1 while the limiter's store answers, 0 during an outage.", []),
    leasesHeld: gauge("limiter_leases_held", "Token leases this instance holds from shared buckets (Enterprise keys).", []),

    // Streams, sessions and background work.
    openStreams: gauge("open_streams", "Streams open on this instance, by kind (websocket, sse).", ["kind"]),
    mcpSessions: gauge("mcp_sessions", "MCP sessions whose stream this instance holds.", []),
    usageOutboxDepth: gauge("usage_outbox_depth", "Usage records waiting to be written to the database.", []),
    usageCallsRefused: counter(
      "usage_calls_refused_total",
      "Calls refused before they ran because their usage could not be recorded, by reason (outbox_full, writes_failing): the recorder drops no record, it refuses the call instead.",
      ["reason"],
    ),
    abuseFlags: counter("abuse_flags_total", "Limit-evasion flags raised, by kind and action.", ["kind", "action"]),
    tasksFinished: counter(
      "tasks_finished_total",
      "Task attempts run by this instance, by outcome (succeeded, failed, canceled, requeued).",
      ["outcome"],
    ),
  };
}

export type Metrics = ReturnType<typeof catalogue>;

const PREFIX = "agentic_search_";

const NOOP = { inc() {}, observe() {}, set() {} };
const noopCatalogue = (): Metrics =>
  catalogue(
    () => NOOP,
    () => NOOP,
    () => NOOP,
  );

/** The live catalogue: no-ops until enableMetrics(). */
export let metrics: Metrics = noopCatalogue();
const NOOP_CATALOGUE = metrics;
let registry: Registry | null = null;
/** The registry's catalogue, kept while disableMetrics() has the no-ops in its place. */
let live: Metrics | null = null;

type Source = { labels: Record<string, string>; read: () => number };
/** Read-at-scrape sources, by the gauge's name without the prefix ("runs_queued"). */
const sources = new Map<string, Set<Source>>();

/**
 * A gauge (or a counter's total) read when scraped: `read` is asked each time, and what several
 * sources (several apps in one test process) say for the same labels is summed.
 * `name` is the gauge's name without the prefix ("runs_queued"). Returns the
 * function that takes the source back. Registering costs nothing with metrics off.
 * A counter read this way must be given a total that never decreases (counterFrom).
 */
export function gaugeFrom(name: string, read: () => number, labels: Record<string, string> = {}): () => void {
  let set = sources.get(name);
  if (!set) sources.set(name, (set = new Set()));
  const source = { labels, read };
  set.add(source);
  return () => set.delete(source);
}

/** A counter's total read when scraped: what `read` says must never decrease (seconds summed, the current stretch included). */
export const counterFrom = gaugeFrom;

function readSources(metric: Gauge | SeriesCounter, name: string): void {
  const from = sources.get(name);
  if (!from || from.size === 0) return;
  const totals = new Map<string, { labels: Record<string, string>; value: number }>();
  for (const source of from) {
    const key = JSON.stringify(source.labels);
    const total = totals.get(key) ?? { labels: source.labels, value: 0 };
    total.value += source.read();
    totals.set(key, total);
  }
  if ("set" in metric) for (const { labels, value } of totals.values()) metric.set(labels, value);
  else {
    // A counter has no set: its totals are given again, whole, at each scrape.
    metric.reset();
    for (const { labels, value } of totals.values()) metric.inc(labels, value);
  }
}

function realCatalogue(into: Registry): Metrics {
  const { Gauge } = prom();
  return catalogue(
    // The registry takes any object of its metrics' shape (name, help, type, get, reset); its types name only its own classes.
    (name, help, labelNames) => {
      const counter = new SeriesCounter(PREFIX + name, help, labelNames, (self) => readSources(self, name));
      into.registerMetric(counter as unknown as Metric);
      return counter;
    },
    (name, help, labelNames, countedAs, buckets = LATENCY_BUCKETS) => {
      const histogram = new SeriesHistogram(PREFIX + name, help, labelNames, buckets);
      into.registerMetric(histogram as unknown as Metric);
      if (countedAs) into.registerMetric(new SeriesCount(PREFIX + countedAs.name, countedAs.help, histogram) as unknown as Metric);
      return histogram;
    },
    (name, help, labelNames) =>
      new Gauge({
        name: PREFIX + name,
        help,
        labelNames,
        registers: [into],
        collect() {
          readSources(this as Gauge, name);
        },
      }),
  );
}

/**
 * Turns the catalogue on: the registry, made once per process, with the process's own metrics (RSS, event-loop lag,
 * GC where the runtime reports it) too.
 */
export function enableMetrics(): void {
  if (!registry) {
    const { Registry, collectDefaultMetrics } = prom();
    registry = new Registry();
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
    (require("./runtime-metrics.ts") as typeof import("./runtime-metrics.ts")).runtimeMetrics(registry);
    live = realCatalogue(registry);
  }
  metrics = live!;
}

/**
 * The no-ops again, until enableMetrics() puts the same registry back, its counts kept: what lets
 * bench/observability.ts measure metrics on and off in turn in one process. The service never calls it.
 */
export function disableMetrics(): void {
  metrics = NOOP_CATALOGUE;
}

export function metricsEnabled(): boolean {
  return metrics !== NOOP_CATALOGUE;
}

/** The scrape: every metric in Prometheus's text format, and its content type. */
export async function renderMetrics(): Promise<{ text: string; contentType: string }> {
  if (!registry) return { text: "", contentType: "text/plain; version=0.0.4; charset=utf-8" };
  return { text: await registry.metrics(), contentType: registry.contentType };
}

// The same five strings every time, not one built per request: the series are looked up by them (series.ts).
const STATUS_CLASSES = ["", "1xx", "2xx", "3xx", "4xx", "5xx"];

/** `2xx`, `4xx`...: the status's class, the label a request's status is counted by. */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? STATUS_CLASSES[Math.floor(status / 100)]! : "other";
}
