/**
 * Fan out: every query to every provider in parallel. Each call has its own
 * timeout inside the run's deadline, one hedged retry (a second identical
 * call when the first is slow or fails; the first answer wins and the other
 * is aborted), and its provider's circuit breaker. Each list is filtered
 * by the domain lists as it arrives (and handed to `onList`, so reading can
 * start before the slowest provider answers); the lists are merged by
 * reciprocal rank fusion under a canonical URL. A failing provider degrades
 * the answer; it never fails the run. Once the calls that answered hold what
 * the run needs, a straggler gets a grace and is then cut (quorum.ts).
 */
import { inScope } from "../contents/source-scope.ts";
import type { SourceScope } from "../contents/queries.ts";
import type { Logger } from "../log.ts";
import { metrics } from "../observe/metrics.ts";
import { NO_SPAN, type TraceSpan } from "../observe/trace.ts";
import type { CircuitBreaker } from "./breaker.ts";
import type { CallLatencies } from "./call-latencies.ts";
import { canonicalUrl } from "./canonical-url.ts";
import { providerFailureClass, providerFailureStatus } from "./provider-failure.ts";
import { Quorum, type QuorumSettings } from "./quorum.ts";
import { ProviderError, type SearchHit, type SearchSource } from "./sources/source.ts";

export interface FanoutSettings {
  providerTimeoutMs: number;
  /** Start the hedge after this long without an answer. */
  hedgeAfterMs: number;
  resultsPerQuery: number;
  hedging: boolean;
  quorum: QuorumSettings;
}

export interface ProviderReport {
  name: string;
  calls: number;
  succeeded: number;
  failed: number;
  hedges: number;
  skipped_by_breaker: number;
  /** Calls the run went on without (calls = succeeded + failed + cut). */
  cut: CutCall[];
  errors: string[];
}

/** A call cut after its grace: which query, how long it had been out, the grace it had, and why. */
export interface CutCall {
  query: string;
  waited_ms: number;
  grace_ms: number;
  reason: "straggler";
}

export interface MergedHit extends SearchHit {
  key: string;
  score: number;
  providers: string[];
}

class Hedged extends Error {}

type Scopes = { whitelist: SourceScope | null; blacklist: SourceScope | null };

/** One provider call as the hedge sees it: what is asked, the run's signal, the report it counts its hedges in, and whether it hedged. */
interface HedgedCall {
  query: string;
  options: { limit: number; traceparent?: string } & Scopes;
  settings: FanoutSettings;
  signal: AbortSignal;
  report: ProviderReport;
  state: { hedged: boolean };
}

async function hedgedSearch(source: SearchSource, { query, options, settings, signal, report, state }: HedgedCall): Promise<SearchHit[]> {
  const attempts: AbortController[] = [];
  const attempt = () => {
    const controller = new AbortController();
    attempts.push(controller);
    const attemptSignal = AbortSignal.any([signal, controller.signal, AbortSignal.timeout(settings.providerTimeoutMs)]);
    return source.search(query, { ...options, signal: attemptSignal });
  };
  try {
    return await new Promise<SearchHit[]>((resolve, reject) => {
      let pending = 0;
      let lastError: unknown;
      let hedged = false;
      const launch = () => {
        pending++;
        attempt().then(resolve, (error: unknown) => {
          lastError = error;
          pending--;
          if (!hedged && settings.hedging && !signal.aborted) hedge();
          else if (pending === 0) reject(lastError);
        });
      };
      const hedge = () => {
        if (hedged) return;
        hedged = true;
        state.hedged = true;
        clearTimeout(timer);
        report.hedges++;
        metrics.providerHedges.inc({ provider: source.name });
        launch();
      };
      const timer = settings.hedging ? setTimeout(hedge, settings.hedgeAfterMs) : undefined;
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      launch();
    });
  } finally {
    // The loser (or everything, on abort) is cancelled: adapters cancel their bodies on abort.
    for (const controller of attempts) controller.abort(new Hedged("superseded"));
  }
}

/** What a caller reads in `info.providers[].errors`: our adapters word their failures (ProviderError); nothing else is for callers to read. */
function describe(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "timed out";
  return error instanceof ProviderError ? error.message.slice(0, 200) : "failed";
}

export interface Fanout {
  sources: SearchSource[];
  queries: string[];
  /** The domain lists every hit is filtered by. */
  scopes: Scopes;
  settings: FanoutSettings;
  breakers: Map<string, CircuitBreaker>;
  /** Each provider's recent call times on this instance, which size a straggler's grace. */
  latencies: Map<string, CallLatencies>;
  /** Distinct results the run needs in hand before it may go on without a straggler (the pages it reads). */
  need: number;
  signal: AbortSignal;
  /** The run's log, which carries its request id. */
  log: Logger;
  /** The run's research.search span: each provider call is a span under it. */
  span?: TraceSpan;
  /** Called with each filtered list as it arrives, so reading can start before the slowest provider answers. */
  onList?: (hits: SearchHit[]) => void;
}

export async function fanOut(fanout: Fanout): Promise<{ hits: MergedHit[]; reports: ProviderReport[] }> {
  const { sources, queries, scopes, settings, breakers, signal, log, onList } = fanout;
  const reports = new Map(
    sources.map((s) => [
      s.name,
      { name: s.name, calls: 0, succeeded: 0, failed: 0, hedges: 0, skipped_by_breaker: 0, cut: [], errors: [] } as ProviderReport,
    ]),
  );
  const allowed = sources.flatMap((source) => {
    const breaker = breakers.get(source.name);
    return queries.flatMap((query) => {
      if (!breaker || breaker.allow()) return [{ source, query, breaker }];
      reports.get(source.name)!.skipped_by_breaker++;
      metrics.providerCalls.inc({ provider: source.name, outcome: "skipped" });
      metrics.providerFailures.inc({ provider: source.name, class: "breaker_open" });
      return [];
    });
  });
  const parent = fanout.span ?? NO_SPAN;
  const quorum = new Quorum({ settings: settings.quorum, need: fanout.need, calls: allowed.length, latencies: fanout.latencies, signal });
  const lists: { provider: string; hits: SearchHit[] }[] = [];
  await Promise.all(
    allowed.map(async ({ source, query, breaker }) => {
      const report = reports.get(source.name)!;
      report.calls++;
      const call = quorum.begin(source.name);
      const provider = source.name;
      // One client span per call (its hedge included): the query is never an attribute, only who was asked and how it went.
      const span = parent.child("provider.search", { "search.provider": provider }, "client");
      const state = { hedged: false };
      const startedAt = performance.now();
      let outcome: "ok" | "failed" | "cut" = "failed";
      try {
        const found = await hedgedSearch(source, {
          query,
          options: { limit: settings.resultsPerQuery, ...scopes, traceparent: span.traceparent() },
          settings,
          signal: call.signal,
          report,
          state,
        });
        breaker?.succeeded();
        report.succeeded++;
        outcome = "ok";
        const hits = found.filter(
          (hit) => (!scopes.whitelist || inScope(hit.url, scopes.whitelist)) && !(scopes.blacklist && inScope(hit.url, scopes.blacklist)),
        );
        span.set({ "search.results": hits.length });
        lists.push({ provider: source.name, hits });
        onList?.(hits);
        quorum.answered(call, hits);
      } catch (error) {
        if (signal.aborted) {
          outcome = "cut";
          span.fail("aborted");
          throw signal.reason;
        }
        // A cut counts against the breaker too: a provider that is the straggler run after run adds nothing but its grace,
        // and a half-open breaker's trial call must end one way or the other.
        breaker?.failed();
        const cut = quorum.cutOf(call);
        if (cut) {
          outcome = "cut";
          metrics.providerStragglersCut.inc({ provider });
          span.set({ "search.grace_ms": cut.graceMs });
          report.cut.push({ query, waited_ms: cut.waitedMs, grace_ms: cut.graceMs, reason: "straggler" });
          log.info("search provider call cut after grace", { provider: source.name, waited_ms: cut.waitedMs, grace_ms: cut.graceMs });
          return;
        }
        report.failed++;
        const failure = providerFailureClass(error);
        metrics.providerFailures.inc({ provider, class: failure });
        span.set({ "error.type": failure, "http.response.status_code": providerFailureStatus(error) });
        span.fail(failure);
        const described = describe(error);
        if (report.errors.length < 5) report.errors.push(described);
        // The original (a driver's or a runtime's message) is ours to read, in the log with the run's request id.
        log.warn("search provider failed", {
          provider: source.name,
          reported: described,
          error,
          ...(error instanceof ProviderError && error.detail ? { detail: error.detail } : {}),
        });
      } finally {
        quorum.settle(call);
        metrics.providerCalls.inc({ provider, outcome });
        metrics.providerDuration.observe({ provider }, (performance.now() - startedAt) / 1000);
        span.set({ "search.outcome": outcome, "search.hedged": state.hedged, "search.cut": outcome === "cut" });
        span.end();
      }
    }),
  );
  return { hits: mergeHits(lists), reports: [...reports.values()] };
}

/** Reciprocal rank fusion over every (query, provider) list, one entry per canonical URL. */
function mergeHits(lists: { provider: string; hits: SearchHit[] }[]): MergedHit[] {
  const merged = new Map<string, MergedHit>();
  for (const { provider, hits } of lists) {
    hits.forEach((hit, rank) => {
      const key = canonicalUrl(hit.url);
      if (!key) return;
      const score = 1 / (60 + rank);
      const existing = merged.get(key);
      if (!existing) {
        merged.set(key, { ...hit, key, score, providers: [provider] });
        return;
      }
      existing.score += score;
      if (!existing.providers.includes(provider)) existing.providers.push(provider);
      if (hit.snippet.length > existing.snippet.length) existing.snippet = hit.snippet;
      if (!existing.title && hit.title) existing.title = hit.title;
    });
  }
  return [...merged.values()].sort((a, b) => b.score - a.score);
}
