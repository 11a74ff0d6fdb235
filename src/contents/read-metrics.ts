/**
 * What page reads tell the metrics: each read a caller took (a run's, or
 * POST /v1/contents's) once, by how it ended for that caller, and each
 * cache lookup by tier. Label sets are built once: a read allocates none.
 */
import { metrics } from "../observe/metrics.ts";

/** How a read ended for its caller: from the web, from the cache, failed, or gone on without (a run's grace, research/read-grace.ts). */
export type PageReadOutcome = "fetched" | "cached" | "failed" | "cut";

const OUTCOMES: Record<PageReadOutcome, { outcome: PageReadOutcome }> = {
  fetched: { outcome: "fetched" },
  cached: { outcome: "cached" },
  failed: { outcome: "failed" },
  cut: { outcome: "cut" },
};

/** A read is done: `startedAt` on performance.now()'s clock. */
export function pageReadDone(outcome: PageReadOutcome, startedAt: number): void {
  const labels = OUTCOMES[outcome];
  metrics.pageReadDuration.observe(labels, (performance.now() - startedAt) / 1000);
}

const LOOKUPS = {
  memory: { hit: { tier: "memory", result: "hit" }, miss: { tier: "memory", result: "miss" } },
  database: { hit: { tier: "database", result: "hit" }, miss: { tier: "database", result: "miss" } },
} as const;

/** One look in a tier of the page cache: the hot pages in memory (and pages being stored), or the pages table. */
export function pageCacheLookup(tier: "memory" | "database", hit: boolean): void {
  metrics.pageCacheLookups.inc(LOOKUPS[tier][hit ? "hit" : "miss"]);
}
