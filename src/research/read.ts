/**
 * Read: the top hits through the contents module (cache first), several at
 * once, within a time budget. What is not read in time, or fails, is still
 * a source through its search snippet; reads that are cut off keep going in
 * the background (bounded by the fetcher's own deadline) so the page cache
 * and the local index still get them.
 */
import { parseRequestedUrl } from "../contents/egress/policy.ts";
import type { PageRow } from "../contents/queries.ts";
import { readPage, type ContentsContext } from "../contents/service.ts";
import { ServiceError } from "../errors.ts";
import type { MergedHit } from "./fanout.ts";

export interface ReadSettings {
  maxPages: number;
  concurrency: number;
  budgetMs: number;
}

export interface ReadOutcome {
  hit: MergedHit;
  page: PageRow | null;
  cached: boolean;
  error: string | null;
}

export async function readHits(contents: ContentsContext, hits: MergedHit[], settings: ReadSettings, signal: AbortSignal): Promise<ReadOutcome[]> {
  const chosen = hits.slice(0, settings.maxPages);
  const outcomes: ReadOutcome[] = chosen.map((hit) => ({ hit, page: null, cached: false, error: "not read in time" }));
  const budget = AbortSignal.any([signal, AbortSignal.timeout(settings.budgetMs)]);
  let next = 0;
  const worker = async () => {
    while (next < chosen.length && !budget.aborted) {
      const index = next++;
      const outcome = outcomes[index]!;
      try {
        // The answer needs the page, not its cache write: that finishes in the background.
        const { page, cached } = await readPage(contents, { url: parseRequestedUrl(outcome.hit.url, ["url"]), signal: budget, waitForStore: false });
        outcome.page = page;
        outcome.cached = cached;
        outcome.error = null;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        outcome.error = error instanceof ServiceError ? error.code : budget.aborted ? "not read in time" : "read failed";
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(settings.concurrency, chosen.length)) }, worker));
  return outcomes;
}
