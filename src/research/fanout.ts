/**
 * Fan out: every query to every provider in parallel. Each call has its own
 * timeout inside the run's deadline, one hedged retry (a second identical
 * call when the first is slow or fails; the first answer wins and the other
 * is aborted), and its provider's circuit breaker. Each list is filtered
 * by the domain lists as it arrives (and handed to `onList`, so reading can
 * start before the slowest provider answers); the lists are merged by
 * reciprocal rank fusion under a canonical URL. A failing provider degrades
 * the answer; it never fails the run.
 */
import { inScope } from "../contents/source-scope.ts";
import type { SourceScope } from "../contents/queries.ts";
import type { Logger } from "../log.ts";
import type { CircuitBreaker } from "./breaker.ts";
import { canonicalUrl } from "./canonical-url.ts";
import { ProviderError, type SearchHit, type SearchSource } from "./sources/source.ts";

export interface FanoutSettings {
  providerTimeoutMs: number;
  /** Start the hedge after this long without an answer. */
  hedgeAfterMs: number;
  resultsPerQuery: number;
  hedging: boolean;
}

export interface ProviderReport {
  name: string;
  calls: number;
  succeeded: number;
  failed: number;
  hedges: number;
  skipped_by_breaker: number;
  errors: string[];
}

export interface MergedHit extends SearchHit {
  key: string;
  score: number;
  providers: string[];
}

class Hedged extends Error {}

type Scopes = { whitelist: SourceScope | null; blacklist: SourceScope | null };

/** One provider call as the hedge sees it: what is asked, the run's signal, and the report it counts its hedges in. */
interface HedgedCall {
  query: string;
  options: { limit: number } & Scopes;
  settings: FanoutSettings;
  signal: AbortSignal;
  report: ProviderReport;
}

async function hedgedSearch(source: SearchSource, { query, options, settings, signal, report }: HedgedCall): Promise<SearchHit[]> {
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
        clearTimeout(timer);
        report.hedges++;
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
  signal: AbortSignal;
  /** The run's log, which carries its request id. */
  log: Logger;
  /** Called with each filtered list as it arrives, so reading can start before the slowest provider answers. */
  onList?: (hits: SearchHit[]) => void;
}

export async function fanOut(fanout: Fanout): Promise<{ hits: MergedHit[]; reports: ProviderReport[] }> {
  const { sources, queries, scopes, settings, breakers, signal, log, onList } = fanout;
  const reports = new Map(
    sources.map((s) => [
      s.name,
      { name: s.name, calls: 0, succeeded: 0, failed: 0, hedges: 0, skipped_by_breaker: 0, errors: [] } as ProviderReport,
    ]),
  );
  const lists: { provider: string; hits: SearchHit[] }[] = [];
  await Promise.all(
    sources.flatMap((source) =>
      queries.map(async (query) => {
        const report = reports.get(source.name)!;
        const breaker = breakers.get(source.name);
        if (breaker && !breaker.allow()) {
          report.skipped_by_breaker++;
          return;
        }
        report.calls++;
        try {
          const found = await hedgedSearch(source, {
            query,
            options: { limit: settings.resultsPerQuery, ...scopes },
            settings,
            signal,
            report,
          });
          breaker?.succeeded();
          report.succeeded++;
          const hits = found.filter(
            (hit) => (!scopes.whitelist || inScope(hit.url, scopes.whitelist)) && !(scopes.blacklist && inScope(hit.url, scopes.blacklist)),
          );
          lists.push({ provider: source.name, hits });
          onList?.(hits);
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          breaker?.failed();
          report.failed++;
          const described = describe(error);
          if (report.errors.length < 5) report.errors.push(described);
          // The original (a driver's or a runtime's message) is ours to read, in the log with the run's request id.
          log.warn("search provider failed", {
            provider: source.name,
            reported: described,
            error,
            ...(error instanceof ProviderError && error.detail ? { detail: error.detail } : {}),
          });
        }
      }),
    ),
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
